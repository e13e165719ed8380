/** Moments merged with Chan's formula, and quantiles of a histogram as numpy's `linear` method gives them. */
import { describe, expect, it } from 'vitest';
import { mergeMoments, momentsOf, sortedHistogram } from '../../shared/distribution';

describe('moments', () => {
  it('two sets merged give what one set of all the values gives', () => {
    const a = [101, 99, 140, 57];
    const b = [180, 181, 70];
    const merged = mergeMoments(momentsOf(a), momentsOf(b));
    const whole = momentsOf([...a, ...b]);
    expect(merged.count).toBe(7);
    expect(merged.sum).toBe(whole.sum);
    expect(merged.m2).toBeCloseTo(whole.m2, 9);
  });

  it('an empty set merges as nothing', () => {
    const a = momentsOf([3, 4]);
    expect(mergeMoments({ count: 0, sum: 0, m2: 0 }, a)).toEqual(a);
    expect(mergeMoments(a, { count: 0, sum: 0, m2: 0 })).toEqual(a);
  });
});

describe('quantiles of a histogram', () => {
  it('interpolates between the closest ranks', () => {
    // 1, 2, 3, 4, 10 as a histogram, in no particular order.
    const sorted = sortedHistogram([[10, 1], [2, 1], [1, 1], [4, 1], [3, 1]])!;
    expect(sorted.count).toBe(5);
    expect(sorted.quantile(0.5)).toBe(3);
    expect(sorted.quantile(0.2)).toBeCloseTo(1.8, 12);
    expect(sorted.quantile(0.95)).toBeCloseTo(8.8, 12);
    expect(sorted.quantile(0)).toBe(1);
    expect(sorted.quantile(1)).toBe(10);
  });

  it('reads runs of equal values as that many values', () => {
    const sorted = sortedHistogram([[5, 3], [1, 1], [7, 0]])!;
    expect(sorted.count).toBe(4);
    expect(sorted.quantile(0.5)).toBe(5);
    expect(sorted.quantile(1)).toBe(5);
  });

  it('has no quantiles of no values', () => {
    expect(sortedHistogram([])).toBeUndefined();
    expect(sortedHistogram([[4, 0]])).toBeUndefined();
  });
});
