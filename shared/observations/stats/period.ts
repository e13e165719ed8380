/**
 * The value groups of a patient's code over a period, whole or cut into hours, days or weeks
 * (docs/api.md#statistics-observationstats): the readings of the period and of each interval are
 * those whose effective start lies in it (`../period.ts`), so the intervals share none and sum to
 * the period. The whole UTC days inside the period come from the day summaries (one Query for the
 * period); the partial days at its edges from the rows of those partial days, as every hourly
 * interval does. Both are exact. A day whose histogram the store could not keep is read from its
 * rows when a quantile is asked.
 */
import { schemaQuantities } from '../../omh/quantities';
import type { StoredObservation } from '../model';
import { placeOf, startBoundsOf, wholeDaysOf, type BoundedPeriod } from '../period';
import { summaryStore } from '../store/summary-current';
import { DAY_MS, dayOf, dayStart, mergeGroups, valueGroups, type DaySummary, type ValueGroup } from './day-summary';
import { allReadings, rowsQuery } from './keep';
import type { Interval } from './params';
import { namesGroup, type StatsTarget } from './targets';

/** A period or one of its intervals: half-open `[from, to)`, epoch ms. */
export type Span = BoundedPeriod;

export interface IntervalGroups extends Span {
  groups: ValueGroup[];
}

const HOUR_MS = 3_600_000;
const WEEK_MS = 7 * DAY_MS;
/** 1970-01-01 was a Thursday: weeks (ISO, from Monday) start 3 days after an epoch multiple of 7 days, less 7. */
const MONDAY_OFFSET = 4 * DAY_MS;

const floorTo = (ms: number, step: number, offset = 0) => Math.floor((ms - offset) / step) * step + offset;

/** The intervals of the period (clipped to it), or the period itself. */
export function intervalsOf(period: Span, interval: Interval | undefined): Span[] {
  if (!interval) return [period];
  const step = interval === 'hour' ? HOUR_MS : interval === 'day' ? DAY_MS : WEEK_MS;
  const spans: Span[] = [];
  for (let at = floorTo(period.from, step, interval === 'week' ? MONDAY_OFFSET : 0); at < period.to; at += step) {
    spans.push({ from: Math.max(at, period.from), to: Math.min(at + step, period.to) });
  }
  return spans;
}

/** The groups of each interval of the period (intervals without values included, with none). */
export async function periodGroups(patientId: number, target: StatsTarget, period: Span, intervals: readonly Span[], histograms: boolean, fromRows = false): Promise<IntervalGroups[]> {
  const whole = wholeDaysOf(startBoundsOf(period));
  const wholeFrom = fromRows ? period.to : whole.start;
  const wholeTo = fromRows ? period.to : whole.end;
  const summaries: DaySummary[] = wholeFrom < wholeTo ? await summaryStore().days(patientId, target.codeId, { from: dayOf(wholeFrom), to: dayOf(wholeTo - 1) }, histograms) : [];
  // Rows: the edges (or all of the period when no whole day lies in it), and any day a quantile cannot take from its summary.
  const rowSpans: Span[] = wholeFrom < wholeTo ? [{ from: period.from, to: wholeFrom }, { from: wholeTo, to: period.to }] : [period];
  const usable = new Set(summaries.filter((s) => !histograms || s.groups.every((g) => g.histogram)));
  for (const s of summaries) if (!usable.has(s)) rowSpans.push({ from: dayStart(s.day), to: dayStart(s.day) + DAY_MS });
  const rows = (await Promise.all(rowSpans.filter((s) => s.from < s.to).map((s) => allReadings(rowsQuery(patientId, target.codeId, s))))).flat();

  const quantities = schemaQuantities(target.schemaCode);
  const named = (g: ValueGroup) => quantities !== undefined && namesGroup(target, quantities, g);
  const summaryGroups = intervals.map((): ValueGroup[] => []);
  const rowsIn = intervals.map((): StoredObservation[] => []);
  for (const s of usable) {
    const at = intervalAt(intervals, dayStart(s.day));
    if (at !== undefined) summaryGroups[at]!.push(...s.groups.filter(named));
  }
  for (const row of rows) {
    const at = intervalAt(intervals, placeOf(row)!);
    if (at !== undefined) rowsIn[at]!.push(row);
  }
  return intervals.map((span, i) => ({ ...span, groups: mergeGroups([...summaryGroups[i]!, ...valueGroups(rowsIn[i]!, target.schemaCode, target.members).filter(named)]) }));
}

/** The index of the interval (ascending, contiguous) holding an instant (a reading's place, `placeOf`), or undefined. */
function intervalAt(intervals: readonly Span[], ms: number): number | undefined {
  let lo = 0;
  let hi = intervals.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    const span = intervals[mid]!;
    if (ms < span.from) hi = mid - 1;
    else if (ms >= span.to) lo = mid + 1;
    else return mid;
  }
  return undefined;
}
