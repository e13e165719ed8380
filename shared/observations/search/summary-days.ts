/**
 * Counting from the day summaries (../stats/day-summary.ts): a count of a patient's readings of one
 * code takes the whole UTC days every one of whose readings the query matches from those days'
 * summaries (their `readings`: every row of the code whose effective start lies in the day, whatever
 * its status), and reads rows only for what the summaries cannot answer: the partial days at the
 * date range's edges (and the readings that started earlier but may reach into it), and the
 * undated readings. What the summaries count is what the rows would (both kept by the write path,
 * `../stats/keep.ts`), so the count is the same; `test/contract/summary-counts.ts` holds it to a
 * plain count of rows.
 *
 * A day is whole for the query when every reading that can start in it matches each date criterion.
 * A reading's range is `[start, end)` with an end from `start + 1` (an instant) to `start + span`
 * (the patient's span statistics bound every stored reading's length, `../span-stats.ts`; without
 * them, no bound). Each criterion of one prefix other than `ne` holds or fails monotonically in the
 * start and in the end (R5's range comparisons, `rangeMatches`: conditions on the start, on the
 * end, or both joined by and/or as `ge` and `le` join them), so it holds for every reading of the
 * day exactly when it holds at the day's corners: its first and last instant, each with the
 * shortest and the longest end. The days that pass form one run; its first and last are found near
 * the edges of the start bounds. A criterion with alternatives (a comma) or `ne` has no such
 * corners: a count with one reads its rows, as before.
 */
import type { DateQuery } from '../../fhir/search';
import { dateMatches } from '../../fhir/search/match';
import type { StartBounds } from '../../fhir/search/date-bounds';
import { wholeDaysOf } from '../period';
import { DAY_MS, dayOf } from '../stats/day-summary';
import { testsBeyondCodeAndDates } from './filters';
import type { NativeQuery } from './query';

/** Whole days a count takes from the summaries: `[start, end)` epoch ms, `from` and `to` their first and last day. */
export interface SummaryDays {
  start: number;
  end: number;
  from: string;
  to: string;
}

/** Days tried at each edge of the start bounds before a count gives up on the summaries (a run's edge is within one day of them). */
const EDGE_DAYS = 3;

/** Whether the query tests nothing of a row but its code and its dates: what the summaries can count. */
export function countableFromSummaries(query: NativeQuery): boolean {
  return !testsBeyondCodeAndDates(query) && query.dates.every((alternatives) => alternatives.length === 1 && alternatives[0]!.prefix !== 'ne');
}

/** Whether every reading of at most `span` ms that starts on the day of `start` matches the criteria (see above). */
function wholeDay(criteria: readonly DateQuery[], start: number, span: number, now: number): boolean {
  const last = start + DAY_MS - 1;
  const corners = [
    { lo: start, hi: start + 1 },
    { lo: last, hi: last + 1 },
    { lo: start, hi: start + span },
    { lo: last, hi: last + span },
  ];
  return criteria.every((criterion) => corners.every((corner) => dateMatches(corner, criterion, now)));
}

/**
 * The whole days of a count whose query `countableFromSummaries` accepts, within `bounds` (the
 * start bounds of its dates and its period, `[lo, hi)`: a period's readings are those starting in
 * it, `../period.ts`), for readings of at most `span` ms (Infinity: unknown),
 * or undefined when no day is whole.
 */
export function summaryDays(query: NativeQuery, bounds: StartBounds, span: number, now: number): SummaryDays | undefined {
  const criteria = query.dates.map((alternatives) => alternatives[0]!);
  const longest = Math.max(1, span);
  const { start: lo, end: hi } = wholeDaysOf(bounds);
  let first = lo;
  while (first < hi && first < lo + EDGE_DAYS * DAY_MS && !wholeDay(criteria, first, longest, now)) first += DAY_MS;
  let end = hi;
  while (end > first && end > hi - EDGE_DAYS * DAY_MS && !wholeDay(criteria, end - DAY_MS, longest, now)) end -= DAY_MS;
  if (first >= end || !wholeDay(criteria, first, longest, now) || !wholeDay(criteria, end - DAY_MS, longest, now)) return undefined;
  return { start: first, end, from: dayOf(first), to: dayOf(end - DAY_MS) };
}
