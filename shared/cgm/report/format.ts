/**
 * How the report writes its figures: percentages to a tenth (glucose: `glucoseText` in ../units.ts), counts with thousands separators, targets with
 * the consensus's signs, dates and times as ISO 8601 reads them in every country.
 */
import { effectivePeriodOf } from '../fhir';
import type { CgmPeriod } from '../metrics';
import type { Target } from '../thresholds';
import type { Clock } from '../zones';

export const percentText = (value: number): string => `${value.toFixed(1)}%`;

export const countText = (n: number): string => String(n).replace(/\B(?=(\d{3})+(?!\d))/g, ',');

const COMPARATOR_SIGNS: Readonly<Record<Target['comparator'], string>> = { '>': '>', '<': '<', '<=': '≤' };

export const targetText = (target: Target): string => `${COMPARATOR_SIGNS[target.comparator]} ${target.percent}%`;

/** A number of days: whole, or to a tenth for a period of part days. */
export const daysText = (days: number): string => (Number.isInteger(days) ? String(days) : days.toFixed(1));

/**
 * The period's ends as the summary Observations write them (fhir.ts): dates when it is whole days
 * on the clock, else date-times. Each end is read at its own offset.
 */
export const periodEnds = (period: CgmPeriod, clock: Clock): { start: string; end: string } => effectivePeriodOf(period, clock);

/** The period as `2026-03-01 – 2026-03-14`: its first and last day, or its first and last minute. */
export function periodText(period: CgmPeriod, clock: Clock): string {
  const { start, end } = periodEnds(period, clock);
  const shown = (when: string) => (when.length === 10 ? when : when.slice(0, 16).replace('T', ' '));
  return `${shown(start)} – ${shown(end)}`;
}

/** An instant as `2026-03-15 09:30 UTC`. */
export const instantText = (at: number): string => `${new Date(at).toISOString().slice(0, 16).replace('T', ' ')} UTC`;

const WEEKDAYS = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'] as const;

/** A calendar date (`YYYY-MM-DD`, already checked) as `Mon 03-02`: a day's label in the grid. */
export function dayLabel(date: string, midnightUtc: number): string {
  return `${WEEKDAYS[new Date(midnightUtc).getUTCDay()]!} ${date.slice(5)}`;
}
