/**
 * The ambulatory glucose profile (docs/cgm.md#the-ambulatory-glucose-profile): a period's readings
 * folded onto one day by the time of day on their own clock, and per bin of 15 minutes the 5th,
 * 25th, 50th, 75th and 95th percentiles of the values that fall in it, whatever day they were
 * taken on.
 *
 * - Percentiles by linear interpolation between the closest ranks (shared/distribution.ts), of the
 *   values rounded to whole mg/dL as the digest keeps them. Rounding moves each value by at most
 *   0.5 mg/dL and keeps their order, so each order statistic, and each interpolation between two
 *   neighbouring ones, moves by at most 0.5 mg/dL: a percentile here is within 0.5 mg/dL of the
 *   same percentile of the readings as they were, and equal to it when they are whole mg/dL.
 * - Not smoothed: each bin's figures are its own readings', so they follow from the digests
 *   exactly. With a reading every 5 minutes a bin of a 14-day period holds about 42 values, enough
 *   for its 5th and 95th percentiles; a chart may smooth the curves for display. Each bin says how
 *   many readings it holds, so a reader can tell a thin bin from a full one.
 * - A bin without readings has no percentiles.
 */
import { sortedHistogram } from '../distribution';
import type { CgmDigest } from './digest';
import { BIN_MINUTES, BINS_PER_DAY } from './time-of-day';

/** The percentiles of the profile, in order. */
export const AGP_PERCENTILES = [5, 25, 50, 75, 95] as const;
export type AgpPercentile = (typeof AGP_PERCENTILES)[number];

export interface AgpBin {
  /** The bin's first minute of the day (0, 15, ..., 1425) on the readings' own clocks. */
  startMinute: number;
  readings: number;
  /** mg/dL, one per AGP_PERCENTILES entry; absent when the bin holds no reading. */
  percentiles?: Record<AgpPercentile, number>;
}

export interface Agp {
  binMinutes: typeof BIN_MINUTES;
  /** Every bin of the day, from midnight. */
  bins: AgpBin[];
}

export function agpOf(digest: Pick<CgmDigest, 'profile'>): Agp {
  const byBin: Array<Array<[number, number]>> = Array.from({ length: BINS_PER_DAY }, () => []);
  for (const [bin, mgdl, times] of digest.profile) byBin[bin]!.push([mgdl, times]);
  return {
    binMinutes: BIN_MINUTES,
    bins: byBin.map((values, bin) => {
      const sorted = sortedHistogram(values);
      const startMinute = bin * BIN_MINUTES;
      if (!sorted) return { startMinute, readings: 0 };
      const percentiles = Object.fromEntries(AGP_PERCENTILES.map((p) => [p, sorted.quantile(p / 100)])) as Record<AgpPercentile, number>;
      return { startMinute, readings: sorted.count, percentiles };
    }),
  };
}
