/**
 * A period's glucose metrics as the International Consensus on Time in Range defines them, with
 * its targets, the data sufficiency rule and the ambulatory glucose profile, from a digest of the
 * period's readings (docs/cgm.md#the-metrics):
 *
 * - mean glucose; SD, the population standard deviation (divided by n, as `$stats` computes it);
 *   CV = SD / mean; GMI (%) = 3.31 + 0.02392 x mean (mg/dL);
 * - the times in ranges: each band's share of the readings (thresholds.ts), as the consensus and
 *   LOINC 97510-2 count them ("measurements in range out of total measurements");
 * - the reading interval: as given, else the readings' median gap (the lower middle one), taken to
 *   the nearest whole minute when it is a minute or more (sensors read every 1, 5 or 15 minutes, and
 *   a few seconds of clock jitter are no other interval), else 5 minutes when there is no gap;
 * - sensor active %: the readings as a share of those the interval gives over the period, at most
 *   100% (a device that sends a reading twice does not raise it past full wear);
 * - days of wear: the 24-hour days of the period, counted from its start (the last one may be
 *   shorter), that hold a reading;
 * - sufficiency: a period of at least 14 days with at least 70% active, and a reading at all.
 */
import { invalidQuery } from '../failures';
import { MS_PER_DAY, MS_PER_MINUTE } from '../omh/datetime';
import { agpOf, type Agp } from './agp';
import { summariseDay, type CgmFigures, type CgmPeriodDigest, type CgmReading } from './digest';
import {
  BANDS, BANDS_OF, CONSENSUS_TARGETS, meets, SUFFICIENT_ACTIVE_PERCENT, SUFFICIENT_DAYS, type Band, type Target, type TargetMetric,
} from './thresholds';
import { QUARTER_MS } from './time-of-day';

/** Half-open `[from, to)`, epoch ms: the readings whose instant lies in it. */
export interface CgmPeriod {
  from: number;
  to: number;
}

export interface CgmSummaryOptions {
  period: CgmPeriod;
  /** Minutes between the sensor's readings; absent: found from the readings' gaps. */
  intervalMinutes?: number;
  /** The targets to judge the figures by; absent: the consensus targets for most adults. */
  targets?: readonly Target[];
}

/** Where the reading interval came from. */
export type IntervalSource = 'given' | 'readings' | 'default';

/** Why a period's data are not enough for the consensus's figures to be read as its. */
export type Shortfall =
  | { code: 'no-readings' }
  | { code: 'period-too-short'; days: number; needed: number }
  | { code: 'too-little-data'; activePercent: number; needed: number };

export interface TargetCheck extends Target {
  /** The figure judged (%). */
  value: number;
  met: boolean;
}

export interface GlucoseMetrics {
  meanMgdl: number;
  sdMgdl: number;
  cvPercent: number;
  gmiPercent: number;
  minMgdl: number;
  maxMgdl: number;
  /** Readings and their share (%) per band. */
  bands: Record<Band, { readings: number; percent: number }>;
  /** Each target, with the figure it judges and whether it is met. */
  targets: TargetCheck[];
}

/** A period's metrics without its profile: what the figures of a digest give (a study's row). */
export interface CgmMetrics {
  period: CgmPeriod;
  /** The period's length in days (fractional for a period of part days). */
  periodDays: number;
  readings: number;
  interval: { minutes: number; source: IntervalSource };
  /** Readings the sensor would have taken over the period at its interval. */
  expectedReadings: number;
  sensorActivePercent: number;
  daysOfWear: number;
  sufficiency: { sufficient: boolean; shortfalls: Shortfall[] };
  /** Absent when the period holds no reading. */
  glucose?: GlucoseMetrics;
}

export interface CgmSummary extends CgmMetrics {
  agp: Agp;
}

/** Minutes between readings when the readings show no gap (one reading, or none). */
export const DEFAULT_INTERVAL_MINUTES = 5;
/** The longest reading interval taken (a day). */
const MAX_INTERVAL_MINUTES = 1440;

/** GMI (%) of a mean glucose (mg/dL): Bergenstal et al., Diabetes Care 2018, as the consensus uses it. */
export const gmiOf = (meanMgdl: number): number => 3.31 + 0.02392 * meanMgdl;

/** The summary of a period from the digest of its readings (merged from its days' digests). */
export function summaryOf(digest: CgmPeriodDigest, options: CgmSummaryOptions): CgmSummary {
  return { ...metricsOf(digest, options), agp: agpOf(digest) };
}

/** The metrics of a period from the figures of its readings' digest (no profile needed). */
export function metricsOf(digest: CgmFigures, options: CgmSummaryOptions): CgmMetrics {
  const { period } = options;
  if (!(Number.isFinite(period.from) && Number.isFinite(period.to) && period.to > period.from)) throw invalidQuery('The period must end after it starts.', 'period');
  if (digest.count > 0 && (digest.first! < period.from || digest.last! >= period.to)) throw new RangeError('the digest holds readings outside the period');
  const interval = intervalOf(digest, options.intervalMinutes);
  const periodMs = period.to - period.from;
  const periodDays = periodMs / MS_PER_DAY;
  const expectedReadings = periodMs / (interval.minutes * MS_PER_MINUTE);
  const sensorActivePercent = Math.min(100, (100 * digest.count) / expectedReadings);
  const shortfalls: Shortfall[] = [];
  if (digest.count === 0) shortfalls.push({ code: 'no-readings' });
  if (periodDays < SUFFICIENT_DAYS) shortfalls.push({ code: 'period-too-short', days: periodDays, needed: SUFFICIENT_DAYS });
  if (sensorActivePercent < SUFFICIENT_ACTIVE_PERCENT) shortfalls.push({ code: 'too-little-data', activePercent: sensorActivePercent, needed: SUFFICIENT_ACTIVE_PERCENT });
  return {
    period: { from: period.from, to: period.to },
    periodDays,
    readings: digest.count,
    interval,
    expectedReadings,
    sensorActivePercent,
    daysOfWear: daysOfWear(digest.active, period),
    sufficiency: { sufficient: shortfalls.length === 0, shortfalls },
    ...(digest.count > 0 ? { glucose: glucoseMetrics(digest, options.targets ?? CONSENSUS_TARGETS) } : {}),
  };
}

/** The summary of a period straight from its readings (those outside it left out): one digest of them all. */
export function summariseReadings(readings: readonly CgmReading[], options: CgmSummaryOptions): CgmSummary {
  const { from, to } = options.period;
  return summaryOf(summariseDay(readings.filter((r) => r.at >= from && r.at < to)), options);
}

function glucoseMetrics(digest: CgmFigures, targets: readonly Target[]): GlucoseMetrics {
  const meanMgdl = digest.sum / digest.count;
  const sdMgdl = Math.sqrt(Math.max(0, digest.m2 / digest.count));
  const cvPercent = meanMgdl > 0 ? (100 * sdMgdl) / meanMgdl : 0;
  const percentOf = (readings: number) => (100 * readings) / digest.count;
  const bands = Object.fromEntries(BANDS.map((band, i) => [band, { readings: digest.bands[i]!, percent: percentOf(digest.bands[i]!) }])) as GlucoseMetrics['bands'];
  const figure = (metric: TargetMetric) =>
    metric === 'cv' ? cvPercent : percentOf(BANDS_OF[metric].reduce((n, band) => n + bands[band].readings, 0));
  return {
    meanMgdl,
    sdMgdl,
    cvPercent,
    gmiPercent: gmiOf(meanMgdl),
    minMgdl: digest.min!,
    maxMgdl: digest.max!,
    bands,
    targets: targets.map((target) => {
      const value = figure(target.metric);
      return { ...target, value, met: meets(target, value) };
    }),
  };
}

function intervalOf(digest: CgmFigures, given: number | undefined): CgmMetrics['interval'] {
  if (given !== undefined) {
    if (!(Number.isFinite(given) && given > 0 && given <= MAX_INTERVAL_MINUTES)) {
      throw invalidQuery(`The reading interval must be more than 0 and at most ${MAX_INTERVAL_MINUTES} minutes.`, 'interval');
    }
    return { minutes: given, source: 'given' };
  }
  const gaps = digest.gaps;
  const total = gaps.reduce((n, [, times]) => n + times, 0);
  if (total === 0) return { minutes: DEFAULT_INTERVAL_MINUTES, source: 'default' };
  // The lower middle gap: a gap the readings have, never the mean of two.
  const rank = Math.floor((total - 1) / 2);
  let seen = 0;
  const seconds = gaps.find(([, times]) => (seen += times) > rank)![0];
  return { minutes: seconds >= 60 ? Math.round(seconds / 60) : seconds / 60, source: 'readings' };
}

/** The 24-hour days of the period, from its start, that hold a reading (from the quarter-hours the digest marks active). */
function daysOfWear(active: CgmFigures['active'], period: CgmPeriod): number {
  const dayIndex = (ms: number) => Math.floor((ms - period.from) / MS_PER_DAY);
  let days = 0;
  /** The first day not counted yet (runs are ascending). */
  let next = 0;
  for (const [first, end] of active) {
    const firstDay = Math.max(next, dayIndex(Math.max(first * QUARTER_MS, period.from)));
    const lastDay = dayIndex(Math.min(end * QUARTER_MS, period.to) - 1);
    if (lastDay >= firstDay) {
      days += lastDay - firstDay + 1;
      next = lastDay + 1;
    }
  }
  return days;
}
