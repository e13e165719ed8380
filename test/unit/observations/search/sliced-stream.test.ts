import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { SLICES, sliceQueries } from '../../../../shared/observations/search/sliced-stream';

describe("an export's slices of a patient's read", () => {
  it('cover the time from the first page to the far end once, in the reading order, out to the read’s own bounds', () => {
    fc.assert(
      fc.property(fc.boolean(), fc.integer({ min: 0, max: 10_000 }), fc.integer({ min: 0, max: 10_000 }), fc.boolean(), (ascending, a, b, withUndated) => {
        const [last, far] = ascending ? [Math.min(a, b), Math.max(a, b)] : [Math.max(a, b), Math.min(a, b)];
        const time = ascending ? { from: -50 } : { from: -50, to: 20_000 };
        const q = { patientId: 1, order: 'effective' as const, ascending, time, ...(withUndated && ascending ? { undated: {} } : {}) };
        const slices = sliceQueries(q, last, far);
        expect(slices.length).toBe(Math.min(SLICES, Math.abs(far - last) + 1));
        // In the reading's direction, each stretch starts where the one before ended.
        const lows = slices.map((s) => s.time!.from ?? -Infinity);
        const highs = slices.map((s) => s.time!.to ?? Infinity);
        for (let j = 1; j < slices.length; j++) {
          if (ascending) expect(lows[j]).toBe(highs[j - 1]! + 1);
          else expect(highs[j]).toBe(lows[j - 1]! - 1);
        }
        // The first stretch goes on from the first page's last instant; the last reaches the read's bound.
        expect(ascending ? lows[0] : highs[0]).toBe(last);
        expect(ascending ? highs.at(-1) : lows.at(-1)).toBe(ascending ? Infinity : -50);
        // Undated readings only in the last stretch of an ascending read (descending, the first page had them).
        slices.forEach((s, j) => expect(s.undated !== undefined).toBe(withUndated && ascending && j === slices.length - 1));
      }),
    );
  });
});
