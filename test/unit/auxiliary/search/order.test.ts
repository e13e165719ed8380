/** The result order of auxiliary searches and the cursors that mark a place in it. */
import { describe, expect, it } from 'vitest';
import { auxiliaryPositions, comparePositions, type Position } from '../../../../shared/auxiliary/search/order';
import { parseSort } from '../../../../shared/fhir/search';

const pos = (keys: Position['keys'], patientId = 1, sourceId = 0, place = 'Condition#2024#a'): Position => ({ keys, patientId, sourceId, place });

describe('comparePositions', () => {
  it('orders by the sort keys (rows without a value last both ways), then patient, source, newest first', () => {
    const asc = parseSort('Condition', 'recorded-date');
    const desc = parseSort('Condition', '-recorded-date');
    const rows = [pos([null]), pos([20]), pos([10])];
    expect([...rows].sort((a, b) => comparePositions(a, b, asc)).map((p) => p.keys[0])).toEqual([10, 20, null]);
    expect([...rows].sort((a, b) => comparePositions(a, b, desc)).map((p) => p.keys[0])).toEqual([20, 10, null]);
    const plain = [pos([], 2, 0, 'C#2024'), pos([], 1, 0, 'C#2023'), pos([], 1, 0, 'C#2025'), pos([], 1, 3, 'C#2026')];
    expect([...plain].sort((a, b) => comparePositions(a, b, [])).map((p) => `${p.patientId}/${p.sourceId}/${p.place}`)).toEqual([
      '1/0/C#2025',
      '1/0/C#2023',
      '1/3/C#2026',
      '2/0/C#2024',
    ]);
  });
});

describe('cursor positions', () => {
  const codec = auxiliaryPositions(2);

  it('round-trip through the codec the kernel binds to the search', () => {
    const at = pos(['2024', null], 7, 3, 'Condition#x');
    expect(codec.decode(JSON.parse(JSON.stringify(codec.encode(at))))).toEqual(at);
  });

  it('refuse anything of another shape (another number of sort keys, missing or mistyped fields)', () => {
    expect(codec.decode(codec.encode(pos(['2024'])))).toBeUndefined();
    for (const bad of [null, 1, {}, [['a', 'b'], 1, 0], [['a', 'b'], '1', 0, 'sk'], [['a', { $gt: 1 }], 1, 0, 'sk'], [['a', 'b'], 1, 0, 5]]) {
      expect(codec.decode(bad), JSON.stringify(bad)).toBeUndefined();
    }
  });
});
