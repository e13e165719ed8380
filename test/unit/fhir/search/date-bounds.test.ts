import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { PREFIXES, type DateQuery } from '../../../../shared/fhir/search/criteria';
import { allOfBounds, anyOfBounds, isEmptyBounds, startBounds, type StartBounds } from '../../../../shared/fhir/search/date-bounds';
import { dateMatches } from '../../../../shared/fhir/search/match';

const NOW = Date.UTC(2026, 5, 1);
const within = (b: StartBounds, start: number) => (b.lo === undefined || start >= b.lo) && (b.hi === undefined || start < b.hi);

const instant = fc.integer({ min: Date.UTC(2024, 0, 1), max: Date.UTC(2027, 0, 1) });
const query = fc.record({
  prefix: fc.constantFrom(...PREFIXES),
  lo: instant,
  width: fc.constantFrom(1, 1000, 60_000, 86_400_000, 31 * 86_400_000, 366 * 86_400_000),
}).map(({ prefix, lo, width }): DateQuery => ({ prefix, range: { lo, hi: lo + width } }));
const target = fc.record({ start: instant, length: fc.integer({ min: 1, max: 40 * 86_400_000 }) });

describe('start bounds of a date search', () => {
  it('never exclude a value that matches (every prefix, values up to the stored width)', () => {
    fc.assert(
      fc.property(query, target, fc.integer({ min: 0, max: 3 }), (q, t, slack) => {
        const maxWidth = t.length * (1 + slack); // the stored width is at least the value's
        const range = { lo: t.start, hi: t.start + t.length };
        if (dateMatches(range, q, NOW)) expect(within(startBounds(q, maxWidth, NOW), t.start)).toBe(true);
      }),
      { numRuns: 20_000 },
    );
  });

  it('narrow to the search range for eq, sa and the ends for lt/le', () => {
    const q = (prefix: DateQuery['prefix']): DateQuery => ({ prefix, range: { lo: 100, hi: 200 } });
    expect(startBounds(q('eq'), 50, NOW)).toEqual({ lo: 100, hi: 200 });
    expect(startBounds(q('sa'), 50, NOW)).toEqual({ lo: 200 });
    expect(startBounds(q('lt'), 50, NOW)).toEqual({ hi: 100 });
    expect(startBounds(q('le'), 50, NOW)).toEqual({ hi: 200 });
    expect(startBounds(q('gt'), 50, NOW)).toEqual({ lo: 150 });
    expect(startBounds(q('ge'), 50, NOW)).toEqual({ lo: 100 });
    expect(startBounds(q('ge'), 500, NOW)).toEqual({ lo: -300 });
    expect(startBounds(q('ne'), 50, NOW)).toEqual({});
  });

  it('combine alternatives as their hull and repetitions as their overlap', () => {
    expect(anyOfBounds([{ lo: 1, hi: 5 }, { lo: 3, hi: 9 }])).toEqual({ lo: 1, hi: 9 });
    expect(anyOfBounds([{ lo: 1, hi: 5 }, { hi: 9 }])).toEqual({ hi: 9 });
    expect(allOfBounds([{ lo: 1, hi: 5 }, { lo: 3, hi: 9 }])).toEqual({ lo: 3, hi: 5 });
    expect(isEmptyBounds(allOfBounds([{ lo: 6 }, { hi: 5 }]))).toBe(true);
  });
});
