/**
 * The digest of a run of glucose sensor readings (docs/cgm.md#the-digest): small, plain JSON, and
 * mergeable, so a period's metrics and profile come from digests kept per day rather than from
 * every reading. A digest holds:
 *
 * - the moments of the values (count, sum, M2, in mg/dL; shared/distribution.ts), their least and
 *   greatest: the mean, SD and CV merge exactly up to floating point;
 * - how many readings fall in each band (thresholds.ts): the times in ranges merge exactly;
 * - the first and last instants and a histogram of the gaps between consecutive readings (whole
 *   seconds): merging digests in time order adds the gap across each boundary, so a period's median
 *   gap is exactly the one its readings give;
 * - the UTC quarter-hours holding a reading, as runs: the days of wear of any period that starts on
 *   a quarter-hour (time-of-day.ts) are exact;
 * - per time-of-day bin of the reading's own clock, a histogram of the values rounded to whole
 *   mg/dL: the profile's percentiles are exact for whole mg/dL values and within 0.5 mg/dL of the
 *   readings' own percentiles otherwise (agp.ts says why).
 *
 * Digests merge only when their readings do not interleave in time (days, or any runs of time one
 * after another): `mergeDigests` refuses digests that overlap.
 *
 * The profile is most of a digest (a day of 288 readings: about 3 KB of its 3.2); everything else,
 * the figures (`CgmFigures`), is what a period's metrics need without its profile, so a study's
 * table reads and merges the figures alone (`mergeFigures`).
 */
import { mergeMoments, momentsOf, type Moments } from '../distribution';
import { BANDS, bandIndexOf } from './thresholds';
import { binOf, isOffset, quarterOf } from './time-of-day';

/** One sensor reading: its instant (epoch ms), the UTC offset it was written with, and its value in mg/dL (units.ts converts). */
export interface CgmReading {
  at: number;
  offsetMinutes: number;
  mgdl: number;
}

/** The format of a digest: a kept digest of another version is recomputed from its readings. */
export const DIGEST_VERSION = 1;

/** A digest without its profile: what every metric but the ambulatory glucose profile comes from. */
export interface CgmFigures extends Moments {
  version: typeof DIGEST_VERSION;
  /** Least and greatest value (mg/dL); absent when the digest holds no reading. */
  min?: number;
  max?: number;
  /** Readings per band, in BANDS order. */
  bands: number[];
  /** The first and last reading's instant; absent when the digest holds no reading. */
  first?: number;
  last?: number;
  /** Gaps between consecutive readings, in whole seconds (none of 0), with how many times each occurs; ascending. */
  gaps: Array<[seconds: number, times: number]>;
  /** The UTC quarter-hours holding a reading, as runs `[first, end)`, ascending, apart from each other. */
  active: Array<[first: number, end: number]>;
}

export interface CgmDigest extends CgmFigures {
  /** Per time-of-day bin, how many readings had each whole mg/dL value: `[bin, mgdl, times]`, ascending by bin then value. */
  profile: Array<[bin: number, mgdl: number, times: number]>;
}

/** The digest of a day's readings (as kept per day), and of a period's (merged): the same shape. */
export type CgmDayDigest = CgmDigest;
export type CgmPeriodDigest = CgmDigest;

export const emptyDigest = (): CgmDigest => ({ version: DIGEST_VERSION, count: 0, sum: 0, m2: 0, bands: BANDS.map(() => 0), gaps: [], active: [], profile: [] });

/** A value a digest counts: a finite, non-negative concentration (no validated payload holds another, but uploads are not bounded below). */
const isGlucose = (mgdl: number) => Number.isFinite(mgdl) && mgdl >= 0;

/** Per time-of-day bin, how many times each whole mg/dL value occurs. */
type Profile = Map<number, Map<number, number>>;

function countValue(profile: Profile, bin: number, mgdl: number, times: number): void {
  let values = profile.get(bin);
  if (!values) profile.set(bin, (values = new Map()));
  values.set(mgdl, (values.get(mgdl) ?? 0) + times);
}

/** Whole seconds between two instants. */
const secondsBetween = (earlier: number, later: number) => Math.round((later - earlier) / 1000);

/**
 * The digest of readings (any order; usually a UTC day's). A reading whose value is not a finite,
 * non-negative number is left out; an instant or offset that is not one is the caller's error.
 */
export function summariseDay(readings: readonly CgmReading[]): CgmDayDigest {
  for (const r of readings) {
    if (!Number.isFinite(r.at) || !isOffset(r.offsetMinutes)) throw new RangeError(`not a reading's time: ${r.at} at offset ${r.offsetMinutes}`);
  }
  const kept = readings.filter((r) => isGlucose(r.mgdl)).sort((a, b) => a.at - b.at);
  if (kept.length === 0) return emptyDigest();
  const values = kept.map((r) => r.mgdl);
  const bands = BANDS.map(() => 0);
  let min = Infinity;
  let max = -Infinity;
  for (const v of values) {
    bands[bandIndexOf(v)]! += 1;
    if (v < min) min = v;
    if (v > max) max = v;
  }
  const gaps = new Map<number, number>();
  const active: Array<[number, number]> = [];
  const profile: Profile = new Map();
  kept.forEach((r, i) => {
    if (i > 0) countGap(gaps, secondsBetween(kept[i - 1]!.at, r.at));
    addQuarter(active, quarterOf(r.at));
    countValue(profile, binOf(r.at, r.offsetMinutes), Math.round(r.mgdl), 1);
  });
  return {
    version: DIGEST_VERSION,
    ...momentsOf(values),
    min,
    max,
    bands,
    first: kept[0]!.at,
    last: kept.at(-1)!.at,
    gaps: sortedPairs(gaps),
    active,
    profile: profileRows(profile),
  };
}

/** The figures of a digest (its profile left out). */
export function figuresOf(digest: CgmFigures): CgmFigures {
  const { profile: _profile, ...figures } = digest as CgmDigest;
  return figures;
}

/**
 * Digests of runs of time that do not interleave (a patient's days) as one digest of all their
 * readings. Empty digests are left out; two that overlap in time are the caller's error.
 */
export function mergeDigests(digests: readonly CgmDigest[]): CgmPeriodDigest {
  const held = digests.filter((d) => d.count > 0);
  const profile: Profile = new Map();
  for (const d of held) for (const [bin, mgdl, times] of d.profile) countValue(profile, bin, mgdl, times);
  return { ...mergeFigures(held), profile: profileRows(profile) };
}

/** The figures of runs of time that do not interleave, as `mergeDigests` merges them (profiles, if any, left out). */
export function mergeFigures(digests: readonly CgmFigures[]): CgmFigures {
  const held = digests.filter((d) => d.count > 0).sort((a, b) => a.first! - b.first!);
  const merged = figuresOf(emptyDigest());
  if (held.length === 0) return merged;
  let moments: Moments = merged;
  const gaps = new Map<number, number>();
  const runs: Array<[number, number]> = [];
  held.forEach((d, i) => {
    if (d.version !== DIGEST_VERSION) throw new RangeError(`a digest of version ${d.version}, not ${DIGEST_VERSION}`);
    if (i > 0) {
      const before = held[i - 1]!;
      if (d.first! < before.last!) throw new RangeError('digests of readings that interleave in time cannot merge');
      countGap(gaps, secondsBetween(before.last!, d.first!));
    }
    moments = mergeMoments(moments, d);
    merged.min = Math.min(merged.min ?? Infinity, d.min!);
    merged.max = Math.max(merged.max ?? -Infinity, d.max!);
    d.bands.forEach((n, band) => (merged.bands[band]! += n));
    for (const [seconds, times] of d.gaps) gaps.set(seconds, (gaps.get(seconds) ?? 0) + times);
    runs.push(...d.active);
  });
  return {
    ...merged,
    ...moments,
    first: held[0]!.first,
    last: held.at(-1)!.last,
    gaps: sortedPairs(gaps),
    active: unionOf(runs),
  };
}

function countGap(gaps: Map<number, number>, seconds: number): void {
  if (seconds > 0) gaps.set(seconds, (gaps.get(seconds) ?? 0) + 1);
}

/** A quarter-hour added to runs built in time order. */
function addQuarter(runs: Array<[number, number]>, quarter: number): void {
  const last = runs.at(-1);
  if (last && quarter < last[1]) return;
  if (last && quarter === last[1]) last[1] += 1;
  else runs.push([quarter, quarter + 1]);
}

/** Runs in any order as ascending runs apart from each other (touching or overlapping ones joined). */
function unionOf(runs: Array<[number, number]>): Array<[number, number]> {
  const union: Array<[number, number]> = [];
  for (const [first, end] of [...runs].sort((a, b) => a[0] - b[0])) {
    const last = union.at(-1);
    if (last && first <= last[1]) last[1] = Math.max(last[1], end);
    else union.push([first, end]);
  }
  return union;
}

const sortedPairs = (counts: Map<number, number>): Array<[number, number]> => [...counts].sort((a, b) => a[0] - b[0]);

function profileRows(profile: Profile): Array<[number, number, number]> {
  return [...profile]
    .flatMap(([bin, values]) => [...values].map(([mgdl, times]): [number, number, number] => [bin, mgdl, times]))
    .sort((a, b) => a[0] - b[0] || a[1] - b[1]);
}
