import { describe, expect, it } from 'vitest';
import { clampRuns, decodeRuns, encodeRuns, runsKey } from '../../../../shared/observations/search/runs-hint';

const T = Date.UTC(2025, 0, 1);
const H = 3_600_000;

describe("a value search's runs carried in its cursor", () => {
  it('come back as they were planned', () => {
    const runs = new Map([
      [runsKey(7, 3), [{ lo: T, hi: T + H }, { lo: T + 5 * H, hi: T + 9 * H }]],
      [runsKey(8, 3), []],
    ]);
    expect(decodeRuns(JSON.parse(JSON.stringify(encodeRuns(runs))))).toEqual(runs);
  });

  it('are not carried past 16 codes, and a hint that is not one the search makes is ignored', () => {
    expect(encodeRuns(new Map(Array.from({ length: 17 }, (_, i) => [runsKey(i, 1), [{ lo: T, hi: T + H }]])))).toBeUndefined();
    for (const hint of [undefined, 'x', {}, [], [[1]], [[1, 2, 3]], [[1, 2, T + H, T]], [[1, 2, T, T + 2 * H, T + H, T + 3 * H]], [['1', 2, T, T + H]], [[1, 2, T, Number.MAX_VALUE]], [[1.5, 2, T, T + H]]]) {
      expect(decodeRuns(hint)).toBeUndefined();
    }
  });

  it('never read past the date filter they are used under', () => {
    expect(clampRuns([{ lo: T, hi: T + 10 * H }, { lo: T + 20 * H, hi: T + 30 * H }], { lo: T + 5 * H, hi: T + 22 * H })).toEqual([
      { lo: T + 5 * H, hi: T + 10 * H },
      { lo: T + 20 * H, hi: T + 22 * H },
    ]);
    expect(clampRuns([{ lo: T, hi: T + H }], { lo: T + 2 * H })).toEqual([]);
  });
});
