/**
 * The two facts every summary of values merged over days stands on, in one place (the day
 * summaries of `$stats`, shared/observations/stats/; the glucose digests, shared/cgm/):
 *
 * - Moments: a count, a sum and M2 (the sum of squared deviations from the mean), merged with
 *   Chan's formula, so spreads of many days merge without the cancellation a sum of squares suffers.
 * - Quantiles of a histogram (value -> how many times) by linear interpolation between the closest
 *   ranks, numpy's default `linear` method: for the p-th quantile of n sorted values x[0..n-1],
 *   h = (n - 1) p, and the answer is x[floor(h)] + (h - floor(h)) (x[floor(h) + 1] - x[floor(h)]).
 */

export interface Moments {
  count: number;
  sum: number;
  /** Sum of squared deviations from the mean: the population variance is `m2 / count`. */
  m2: number;
}

/** The moments of values, in two passes (the mean first). */
export function momentsOf(values: readonly number[]): Moments {
  let sum = 0;
  for (const v of values) sum += v;
  const mean = sum / values.length;
  let m2 = 0;
  for (const v of values) m2 += (v - mean) ** 2;
  return { count: values.length, sum, m2 };
}

/** Two sets' moments as one set's (Chan's merge of the spread); either may be empty. */
export function mergeMoments(a: Moments, b: Moments): Moments {
  if (a.count === 0) return { count: b.count, sum: b.sum, m2: b.m2 };
  if (b.count === 0) return { count: a.count, sum: a.sum, m2: a.m2 };
  const count = a.count + b.count;
  const delta = b.sum / b.count - a.sum / a.count;
  return { count, sum: a.sum + b.sum, m2: a.m2 + b.m2 + (delta * delta * a.count * b.count) / count };
}

export interface SortedValues {
  /** How many values. */
  count: number;
  /** The p-th quantile (0..1), by linear interpolation between the closest ranks. */
  quantile(p: number): number;
}

/** The values a histogram counts, in order (as runs of equal values); undefined when it counts none. */
export function sortedHistogram(histogram: Iterable<readonly [value: number, times: number]>): SortedValues | undefined {
  const runs = [...histogram].filter(([, times]) => times > 0).sort((a, b) => a[0] - b[0]);
  if (runs.length === 0) return undefined;
  const values = runs.map(([value]) => value);
  /** ends[i]: how many values are at or below values[i]. */
  const ends: number[] = [];
  let seen = 0;
  for (const [, times] of runs) ends.push((seen += times));
  const at = (rank: number): number => {
    // The first run whose end passes the rank (a binary search: a year may hold thousands of runs).
    let lo = 0;
    let hi = ends.length - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (ends[mid]! > rank) hi = mid;
      else lo = mid + 1;
    }
    return values[lo]!;
  };
  return {
    count: seen,
    quantile(p) {
      const h = (seen - 1) * p;
      const below = Math.floor(h);
      const low = at(below);
      return below + 1 < seen ? low + (h - below) * (at(below + 1) - low) : low;
    },
  };
}
