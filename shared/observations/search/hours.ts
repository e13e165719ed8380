/**
 * A value search's reads of one patient's code, planned from the day summaries' value bounds
 * (docs/api.md#search-by-value): the hours whose values no reading could match are left out, and
 * what remains of the date filter's bounds is read as runs of contiguous candidate hours, one read
 * each (a few hours left out between two runs are read with them). Only what a summary proves is
 * left out: a day without a summary, or with one kept before the bounds were, is read whole;
 * undated readings are read as before (segments.ts).
 */
import type { StartBounds } from '../../fhir/search/date-bounds';
import { FIRST_INSTANT, LAST_INSTANT } from '../../omh/datetime';
import { dayOf, dayStart, HOUR_MS, type HourBounds } from '../stats/day-summary';
import { summaryStore } from '../store/summary-current';
import type { HourValues } from './values';

/**
 * Reads a code's runs take at most: past it the shortest stretches left out between runs are read
 * too (rows read to no avail, instead of many reads in turn of a few rows each).
 */
export const MAX_RUNS = 32;

/**
 * A stretch left out between two runs that is shorter than this is read with them: a block of an
 * hour of minute readings is about 2 KB (half a read unit), where a read of its own is a round
 * trip and a read unit at least, so reading a few hours to no avail costs less than another read.
 */
export const NARROW_GAP_MS = 4 * HOUR_MS;

/** Whether any reading of an hour may match, by the hour's values (`hourTest` in ./values.ts). */
export type HourTest = (hour: readonly HourValues[]) => boolean;

/** A day's bounds hour by hour: each hour's values, per member and unit. */
function byHour(bounds: readonly HourBounds[]): HourValues[][] {
  const hours = Array.from({ length: 24 }, (): HourValues[] => []);
  for (const { member, unit, hours: each } of bounds) for (const [hour, min, max] of each) hours[hour]?.push({ member, unit, min, max });
  return hours;
}

/** Runs with the narrow stretches between them read too. */
function bridged(runs: ReadonlyArray<[number, number]>): Array<[number, number]> {
  const out: Array<[number, number]> = [];
  for (const run of runs) {
    const last = out[out.length - 1];
    if (last && run[0] - last[1] < NARROW_GAP_MS) last[1] = run[1];
    else out.push([...run]);
  }
  return out;
}

/** At most `max` runs: the longest stretches between runs stay left out, the others are read with their runs. */
function fewest(runs: Array<[number, number]>, max: number): Array<[number, number]> {
  if (runs.length <= max) return runs;
  const gaps = runs.slice(1).map((run, i) => ({ after: i, length: run[0] - runs[i]![1] }));
  const kept = new Set(gaps.sort((a, b) => b.length - a.length).slice(0, max - 1).map((g) => g.after));
  const merged: Array<[number, number]> = [[...runs[0]!]];
  for (let i = 1; i < runs.length; i += 1) {
    if (kept.has(i - 1)) merged.push([...runs[i]!]);
    else merged[merged.length - 1]![1] = runs[i]![1];
  }
  return merged;
}

/**
 * The start bounds, ascending, of the runs of a code's readings that a value search reads within
 * `dates` (the date filter's start bounds): every instant except the hours the day summaries show
 * `test` rules out. Empty when nothing there can match.
 */
export async function candidateRuns(patientId: number, codeId: number, dates: StartBounds, test: HourTest): Promise<StartBounds[]> {
  const lo = Math.max(dates.lo ?? FIRST_INSTANT, FIRST_INSTANT);
  const hi = Math.min(dates.hi ?? LAST_INSTANT + 1, LAST_INSTANT + 1);
  if (lo >= hi) return [];
  const days = await summaryStore().bounds(patientId, codeId, { from: dayOf(lo), to: dayOf(hi - 1) });
  /** The hours ruled out, as ascending stretches `[from, to)`. */
  const out: Array<[number, number]> = [];
  for (const { day, bounds } of days) {
    if (!bounds) continue; // kept before the bounds were: read whole
    const start = dayStart(day);
    byHour(bounds).forEach((values, hour) => {
      if (test(values)) return;
      const from = start + hour * HOUR_MS;
      const last = out[out.length - 1];
      if (last && last[1] === from) last[1] = from + HOUR_MS;
      else out.push([from, from + HOUR_MS]);
    });
  }
  const runs: Array<[number, number]> = [];
  let at = lo;
  for (const [from, to] of out) {
    if (to <= at) continue;
    if (from >= hi) break;
    if (from > at) runs.push([at, from]);
    at = to;
  }
  if (at < hi) runs.push([at, hi]);
  return fewest(bridged(runs), MAX_RUNS).map(([from, to]) => ({ lo: from, hi: to }));
}
