/** The result order of auxiliary searches and the cursors that mark a place in it. */
import { describe, expect, it } from 'vitest';
import { comparePositions, decodeCursor, encodeCursor, searchFingerprint, type Position } from '../../../shared/auxiliary/search/order';
import { parseSort } from '../../../shared/fhir/search';
import { isHttpError } from '../../../shared/http/errors';

const pos = (keys: Position['keys'], patientId = 1, sourceId = 0, sk = 'Condition#2024#a'): Position => ({ keys, patientId, sourceId, sk });

describe('comparePositions', () => {
  it('orders by the sort keys (rows without a value last both ways), then patient, source, newest first', () => {
    const asc = parseSort('Condition', 'recorded-date');
    const desc = parseSort('Condition', '-recorded-date');
    const rows = [pos([null]), pos([20]), pos([10])];
    expect([...rows].sort((a, b) => comparePositions(a, b, asc)).map((p) => p.keys[0])).toEqual([10, 20, null]);
    expect([...rows].sort((a, b) => comparePositions(a, b, desc)).map((p) => p.keys[0])).toEqual([20, 10, null]);
    const plain = [pos([], 2, 0, 'C#2024'), pos([], 1, 0, 'C#2023'), pos([], 1, 0, 'C#2025'), pos([], 1, 3, 'C#2026')];
    expect([...plain].sort((a, b) => comparePositions(a, b, [])).map((p) => `${p.patientId}/${p.sourceId}/${p.sk}`)).toEqual([
      '1/0/C#2025',
      '1/0/C#2023',
      '1/3/C#2026',
      '2/0/C#2024',
    ]);
  });
});

describe('cursors', () => {
  const fp = searchFingerprint('Condition', new URLSearchParams('code=x&_count=3&_cursor=old'), new Set(['_count', '_cursor']));

  it('round-trip, and the fingerprint ignores page size and cursor but not the filters or their order-free spelling', () => {
    const cursor = { direction: 'previous' as const, after: pos(['2024', null], 7, 3, 'Condition#x') };
    expect(decodeCursor(encodeCursor(cursor, fp), fp, 2)).toEqual(cursor);
    expect(searchFingerprint('Condition', new URLSearchParams('code=x'), new Set(['_count', '_cursor']))).toBe(fp);
    expect(searchFingerprint('Condition', new URLSearchParams('code=y'), new Set())).not.toBe(fp);
    expect(searchFingerprint('Location', new URLSearchParams('code=x'), new Set())).not.toBe(fp);
    expect(
      searchFingerprint('Condition', new URLSearchParams('a=1&b=2'), new Set()) === searchFingerprint('Condition', new URLSearchParams('b=2&a=1'), new Set()),
    ).toBe(true);
  });

  it('refuses garbage, a cursor of another search, and one of another shape', () => {
    const status = (raw: string, length = 0) => {
      try {
        decodeCursor(raw, fp, length);
      } catch (e) {
        return isHttpError(e) ? e.status : -1;
      }
      return 200;
    };
    expect(status('%%%')).toBe(400);
    expect(status(Buffer.from('{"f":1}').toString('base64url'))).toBe(400);
    const cursor = encodeCursor({ direction: 'next', after: pos([]) }, fp);
    expect(status(cursor)).toBe(200);
    expect(status(cursor, 1)).toBe(400);
    expect(status(encodeCursor({ direction: 'next', after: pos([]) }, 'another'))).toBe(400);
  });
});
