/**
 * THE readings of a period (docs/api.md#the-readings-of-a-period): which stored readings a period
 * `[from, to)` holds, for every path that asks for a patient's readings over a period rather than
 * a FHIR `date=` search (the assistants' tools, the counts by type, `$stats`, `$lastn`'s newest of a
 * period, the day summaries that count them):
 *
 * - A dated reading belongs to a period when its **effective start** lies in it, however long the
 *   reading lasts: a sleep from 23:00 to 07:00 is a reading of the day it began, not of the next,
 *   and a reading that began before `from` is not one of the period even if it lasts into it. So
 *   periods that follow one another share no reading: the days of a week hold the week's readings
 *   once each, a day's summary (kept per UTC day of the start) counts exactly that day's readings,
 *   and intervals sum to their period.
 * - Each end of a period given as a FHIR date covers its whole precision: `from` its first instant,
 *   `to` its last (`to: 2026-01-07` ends at the end of that day); an absent end is open.
 * - An undated reading (a payload without a time frame) belongs to no bounded period: only the whole
 *   history (no end given) holds it, and it sorts after every dated one.
 *
 * A FHIR search's `date=` keeps R5's own range semantics (`shared/fhir/search/match.ts`): `ge` and
 * `le` compare a reading's whole range, so a search may find a reading that started before its
 * first day. The search's `date=sa<the instant before from>&date=lt<to>` asks for exactly the
 * readings of a period.
 */
import type { StartBounds } from '../fhir/search/date-bounds';
import { dateRange } from '../fhir/search/dates';
import { invalidQuery } from '../failures';
import { FIRST_INSTANT, LAST_INSTANT } from '../omh/datetime';
import type { ReadingFacts } from './model';
import { DAY_MS } from './stats/day-summary';

/** Half-open `[from, to)`, epoch ms; an absent end is open. No end at all: the whole history. */
export interface ReadingPeriod {
  from?: number;
  to?: number;
}

/** A period with both ends (what `$stats` and its intervals summarise). */
export type BoundedPeriod = Required<ReadingPeriod>;

export const WHOLE_HISTORY: ReadingPeriod = {};

/** Whether the period has an end: then it holds dated readings only. */
export const isBounded = (period: ReadingPeriod): boolean => period.from !== undefined || period.to !== undefined;

/**
 * The period between two FHIR dates or dateTimes (`2026-01`, `2026-01-05`, `2026-01-05T08:00:00Z`),
 * each covering its whole precision; an absent one leaves its end open. A text that is no date is
 * an `invalid-query` failure naming it (`at`, with the name the caller gave it).
 */
export function periodOfDates(from: string | undefined, to: string | undefined, names: { from: string; to: string } = { from: 'from', to: 'to' }): ReadingPeriod {
  const range = (text: string, name: string) => {
    const found = dateRange(text);
    if (!found) throw invalidQuery(`${name} is not a date or a dateTime with a time zone: ${text} (e.g. 2026-01-05 or 2026-01-05T08:00:00Z).`, name);
    return found;
  };
  return { ...(from === undefined ? {} : { from: range(from, names.from).lo }), ...(to === undefined ? {} : { to: range(to, names.to).hi }) };
}

/** The instant that places a reading in periods: its effective start (undefined: undated, in no bounded period). */
export const placeOf = (reading: Pick<ReadingFacts, 'effective'>): number | undefined => reading.effective?.start;

/** Whether the reading is one of the period's. */
export function inPeriod(reading: Pick<ReadingFacts, 'effective'>, period: ReadingPeriod): boolean {
  const at = placeOf(reading);
  if (at === undefined) return !isBounded(period);
  return (period.from === undefined || at >= period.from) && (period.to === undefined || at < period.to);
}

/** The period as bounds on the effective start, the store's key (`lo` inclusive, `hi` exclusive). */
export const startBoundsOf = (period: ReadingPeriod): StartBounds => ({ ...(period.from === undefined ? {} : { lo: period.from }), ...(period.to === undefined ? {} : { hi: period.to }) });

const clampInstant = (ms: number) => Math.min(LAST_INSTANT, Math.max(FIRST_INSTANT, ms));

/**
 * The store's read bounds (`ReadingsQuery.time`: both ends inclusive to the millisecond, within the
 * instants a reading can have) of bounds on the time a read is ordered by (the effective start, or
 * the last update), or undefined when no reading's time can lie within them.
 */
export function storeTimeRange(bounds: StartBounds): { from?: number; to?: number } | undefined {
  if (bounds.lo !== undefined && bounds.hi !== undefined && bounds.lo >= bounds.hi) return undefined;
  if (bounds.hi !== undefined && bounds.hi <= FIRST_INSTANT) return undefined;
  if (bounds.lo !== undefined && bounds.lo > LAST_INSTANT) return undefined;
  return { ...(bounds.lo === undefined ? {} : { from: clampInstant(bounds.lo) }), ...(bounds.hi === undefined ? {} : { to: clampInstant(bounds.hi - 1) }) };
}

const floorDay = (ms: number) => Math.floor(ms / DAY_MS) * DAY_MS;
const ceilDay = (ms: number) => Math.ceil(ms / DAY_MS) * DAY_MS;

/**
 * The whole UTC days within start bounds, `[start, end)` (empty when `start >= end`): a day's
 * summary counts exactly the readings such a period holds on that day; the parts of the period
 * before `start` and after `end` are partial days, read from the rows.
 */
export function wholeDaysOf(bounds: StartBounds): { start: number; end: number } {
  return { start: ceilDay(Math.max(FIRST_INSTANT, bounds.lo ?? FIRST_INSTANT)), end: floorDay(Math.min(LAST_INSTANT + 1, bounds.hi ?? LAST_INSTANT + 1)) };
}
