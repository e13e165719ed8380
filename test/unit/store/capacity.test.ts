/** DynamoDB's pricing rules as the storage bench applies them. */
import { describe, expect, it } from 'vitest';
import { indexEntries, itemSize, queryReadUnits, storedBytes, writeUnits } from '../../../shared/store/capacity';
import { OBSERVATIONS, OBSERVATIONS_LAYOUT_1, OBSERVATIONS_LAYOUT_2 } from '../../../shared/store/tables';

const row = { pk: 'P#1', sk: 'U#u', effSk: 'e', codeEffSk: 'c', updatedSk: 'u', codeShard: '1#1', data: 'x'.repeat(500) };

describe('item size', () => {
  it('counts attribute names and values: strings by UTF-8 bytes, numbers by digits, binaries by bytes', () => {
    expect(itemSize({ ab: 'cd' })).toBe(4);
    expect(itemSize({ s: 'é' })).toBe(3);
    expect(itemSize({ n: 123456 })).toBe(1 + 4);
    expect(itemSize({ b: new Uint8Array(10) })).toBe(11);
    expect(itemSize({ l: ['a', 'b'] })).toBe(1 + 3 + 2 + 2);
    expect(itemSize({ m: { k: 'v' } })).toBe(1 + 3 + 1 + 1 + 1);
  });
});

describe('writes and storage', () => {
  it('charge each started KB, doubled in a transaction, plus one write per index entry', () => {
    expect(writeUnits(OBSERVATIONS_LAYOUT_2, { pk: 'O#1', sk: 'O' })).toBe(1);
    expect(writeUnits(OBSERVATIONS_LAYOUT_2, { pk: 'O#1', sk: 'O' }, true)).toBe(2);
    // The row, three local indexes and the code index.
    expect(writeUnits(OBSERVATIONS_LAYOUT_2, row)).toBe(5);
    expect(writeUnits(OBSERVATIONS_LAYOUT_2, row, true)).toBe(6);
    // Over 1 KB: two units for the row and for its whole copy in the code index, one for each keys-only entry.
    expect(writeUnits(OBSERVATIONS_LAYOUT_2, { ...row, data: 'x'.repeat(1500) })).toBe(2 + 1 + 2 + 1 + 1);
  });

  it('keep only keys in a keys-only index and the whole item in an ALL index', () => {
    const entries = new Map(indexEntries(OBSERVATIONS_LAYOUT_2, row).map(({ index, entry }) => [index.name, entry]));
    expect(Object.keys(entries.get('byEffective')!).sort()).toEqual(['effSk', 'pk', 'sk']);
    expect(Object.keys(entries.get('byCode')!).sort()).toEqual(['codeShard', 'effSk', 'pk', 'sk']);
    expect(entries.get('byCodeEffective')).toEqual(row);
    expect(storedBytes(OBSERVATIONS_LAYOUT_2, row)).toBeLessThan(storedBytes(OBSERVATIONS_LAYOUT_1, row) - 3 * 500);
    expect(storedBytes(OBSERVATIONS_LAYOUT_1, row)).toBe(5 * (itemSize(row) + 100));
  });

  it('charge layout 3 an item\'s own size only: it has no index', () => {
    expect(indexEntries(OBSERVATIONS, row)).toEqual([]);
    expect(writeUnits(OBSERVATIONS, row)).toBe(1);
    expect(storedBytes(OBSERVATIONS, row)).toBe(itemSize(row) + 100);
  });

  it('leave an item out of an index whose key it lacks', () => {
    expect(indexEntries(OBSERVATIONS_LAYOUT_2, { pk: 'P#1', sk: '#SPAN' })).toEqual([]);
  });
});

describe('reads', () => {
  it('price a Query on its entries together; fetching from a keys-only index adds a read per item', () => {
    const items = Array.from({ length: 10 }, () => row);
    expect(queryReadUnits(OBSERVATIONS_LAYOUT_2, 'byCodeEffective', items)).toBe(2);
    expect(queryReadUnits(OBSERVATIONS_LAYOUT_2, 'byEffective', items, { fetched: true })).toBe(1 + 10);
    expect(queryReadUnits(OBSERVATIONS_LAYOUT_2, 'byCodeEffective', items, { consistent: false })).toBe(1);
  });
});
