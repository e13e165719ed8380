/**
 * The statistics `Observation/$stats` answers (R5's observation-statistics code system), computed
 * from a merged value group (`day-summary.ts`), in the group's own unit; `display.ts` converts them.
 *
 * - count, minimum, maximum: exact.
 * - sum, average, variance, std-dev: from the groups' sums and spreads, merged with Chan's formula
 *   (floating point, no cancellation). Variance is the population variance (divided by n, numpy's
 *   `var` default); std-dev its square root.
 * - median, percentiles, quartiles, quintiles: exact, from the merged histograms, by linear
 *   interpolation between the closest ranks (numpy's default `linear` method): for the p-th
 *   quantile of n sorted values x[0..n-1], h = (n - 1) p, and the answer is
 *   x[floor(h)] + (h - floor(h)) (x[floor(h) + 1] - x[floor(h)]).
 */
import type { ValueGroup } from './day-summary';

/** The code system of R5's statistics. */
export const STATISTICS_SYSTEM = 'http://hl7.org/fhir/observation-statistics';

/** The quantile each quantile statistic is. */
const QUANTILES = {
  median: 0.5,
  '20-percent': 0.2,
  '80-percent': 0.8,
  '4-lower': 0.25,
  '4-upper': 0.75,
  '5-1': 0.2,
  '5-2': 0.4,
  '5-3': 0.6,
  '5-4': 0.8,
} as const;

/** Every statistic served, with R5's display, in the order the answer lists them. */
export const STATISTICS = {
  count: 'Count',
  minimum: 'Minimum',
  maximum: 'Maximum',
  average: 'Average',
  sum: 'Sum',
  variance: 'Variance',
  'std-dev': 'Standard Deviation',
  median: 'Median',
  '20-percent': '20th Percentile',
  '80-percent': '80th Percentile',
  '4-lower': 'Lower Quartile',
  '4-upper': 'Upper Quartile',
  '4-dev': 'Quartile Deviation',
  '5-1': '1st Quintile',
  '5-2': '2nd Quintile',
  '5-3': '3rd Quintile',
  '5-4': '4th Quintile',
} as const;

export type Statistic = keyof typeof STATISTICS;

/** R5's statistics this service does not compute (a 400 that says so, not "unknown"). */
export const NOT_COMPUTED: ReadonlySet<string> = new Set(['total-count', 'skew', 'kurtosis', 'regression']);

const SERVED: ReadonlySet<string> = new Set(Object.keys(STATISTICS));
export const isStatistic = (text: string): text is Statistic => SERVED.has(text);

/** Statistics as answered: once each, in the order of the code system, whatever the order asked. */
export const inCodeSystemOrder = (statistics: readonly Statistic[]): Statistic[] => (Object.keys(STATISTICS) as Statistic[]).filter((s) => statistics.includes(s));

/** Whether the statistic needs the values' histogram (a quantile). */
export const needsHistogram = (s: Statistic): boolean => s in QUANTILES || s === '4-dev';

/**
 * How a statistic's value converts with the unit: a value (offset and factor), a sum (n offsets and
 * the factor), a difference or spread (factor), a square (factor²), a count (not at all).
 */
export type Scaling = 'value' | 'sum' | 'difference' | 'square' | 'count';

export function scalingOf(s: Statistic): Scaling {
  if (s === 'count') return 'count';
  if (s === 'variance') return 'square';
  if (s === 'std-dev' || s === '4-dev') return 'difference';
  return s === 'sum' ? 'sum' : 'value';
}

/**
 * The statistic of a group (at least one value), in the group's unit. A quantile of a group
 * without its histogram is undefined (the caller reads the readings instead).
 */
export function statisticOf(group: ValueGroup, s: Statistic, sorted?: SortedValues): number | undefined {
  switch (s) {
    case 'count':
      return group.count;
    case 'minimum':
      return group.min;
    case 'maximum':
      return group.max;
    case 'average':
      return group.sum / group.count;
    case 'sum':
      return group.sum;
    case 'variance':
      return Math.max(0, group.m2 / group.count);
    case 'std-dev':
      return Math.sqrt(Math.max(0, group.m2 / group.count));
    case '4-dev': {
      const values = sorted ?? sortedValues(group);
      return values && (values.quantile(0.75) - values.quantile(0.25)) / 2;
    }
    default:
      return (sorted ?? sortedValues(group))?.quantile(QUANTILES[s]);
  }
}

export interface SortedValues {
  /** The p-th quantile (0..1), by linear interpolation between the closest ranks. */
  quantile(p: number): number;
}

/** The group's values in order, as runs of equal values (from its histogram), or undefined without one. */
export function sortedValues(group: ValueGroup): SortedValues | undefined {
  if (!group.histogram) return undefined;
  const values = [...group.histogram.keys()].sort((a, b) => a - b);
  /** ends[i]: how many values are at or below values[i]. */
  const ends: number[] = [];
  let seen = 0;
  for (const v of values) ends.push((seen += group.histogram.get(v)!));
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
    quantile(p) {
      const h = (seen - 1) * p;
      const below = Math.floor(h);
      const low = at(below);
      return below + 1 < seen ? low + (h - below) * (at(below + 1) - low) : low;
    },
  };
}
