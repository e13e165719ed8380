import { describe, expect, it } from 'vitest';
import { BoundedMap } from '../../shared/bounded-map';

describe('BoundedMap', () => {
  it('never holds more than its size: a new key into a full map drops the least recently set quarter', () => {
    const map = new BoundedMap<number, string>(8);
    for (let i = 0; i < 8; i++) map.set(i, `v${i}`);
    map.set(0, 'again'); // set again: now the newest
    map.set(100, 'new');
    expect(map.size).toBe(7);
    expect([...map.keys()]).toEqual([3, 4, 5, 6, 7, 0, 100]);
    expect(map.get(0)).toBe('again');
    for (let i = 0; i < 10_000; i++) map.set(1000 + i, '');
    expect(map.size).toBeLessThanOrEqual(8);
    expect(map.has(10_999)).toBe(true);
  });

  it('replaces a key in a full map without dropping any other', () => {
    const map = new BoundedMap<string, number>(2);
    map.set('a', 1).set('b', 2).set('a', 3);
    expect([...map]).toEqual([['b', 2], ['a', 3]]);
  });

  it('refuses a size under one', () => {
    expect(() => new BoundedMap(0)).toThrow(RangeError);
  });
});
