/**
 * What the AGP report is drawn from (docs/cgm.md#the-report): the period's summary (its metrics,
 * targets, sufficiency and profile: metrics.ts), the readings of each day as a curve by time of
 * day, and how to show them.
 */
import { parseFullDate } from '../../omh/datetime';
import type { CgmSummary } from '../metrics';
import type { GlucoseUnit } from '../units';
import type { Clock } from '../zones';

/** A reading on a day's curve: the minute of the day on its own clock (0 <= m < 1440) and its value in mg/dL. */
export type DayPoint = readonly [minuteOfDay: number, mgdl: number];

/** One day of the period: its date on the readings' clock and its readings by time of day. */
export interface DailyProfile {
  /** `YYYY-MM-DD`. */
  date: string;
  points: readonly DayPoint[];
}

export interface AgpReportInput {
  summary: CgmSummary;
  /** The period's days, in any order; the report draws the last DAYS_SHOWN of them. */
  days: readonly DailyProfile[];
}

export interface AgpReportOptions {
  /** The name the report is for, as the clinician reads it. */
  patientName: string;
  /** The unit of every glucose figure and axis; mg/dL when not given. */
  unit?: GlucoseUnit;
  /** The clock the period is written on; UTC when not given. */
  periodClock?: Clock;
  /** When the report was made (epoch ms): printed on it, and its PDF's creation and modification dates. */
  generatedAt: number;
}

/** Days drawn in the grid of daily profiles: two weeks, the consensus's shortest sufficient period. */
export const DAYS_SHOWN = 14;

/** A day ready to draw: its date checked and its midnight (UTC) known, its points in time-of-day order. */
export interface ShownDay {
  date: string;
  midnightUtc: number;
  points: DayPoint[];
}

/** The last DAYS_SHOWN days by date, each checked: a date that is none or a point off the day is the caller's error. */
export function daysToShow(days: readonly DailyProfile[]): { shown: ShownDay[]; of: number } {
  const checked = days.map((day): ShownDay => {
    const midnightUtc = parseFullDate(day.date);
    if (typeof midnightUtc === 'string') throw new RangeError(`a daily profile's date ${midnightUtc}`);
    for (const [minute, mgdl] of day.points) {
      if (!(minute >= 0 && minute < 1440 && Number.isFinite(mgdl))) throw new RangeError(`not a point of a day's curve: [${minute}, ${mgdl}]`);
    }
    return { date: day.date, midnightUtc, points: [...day.points].sort((a, b) => a[0] - b[0]) };
  });
  checked.sort((a, b) => a.midnightUtc - b.midnightUtc);
  return { shown: checked.slice(-DAYS_SHOWN), of: checked.length };
}
