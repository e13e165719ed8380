/**
 * Where a reading falls on the clock and the calendar (docs/cgm.md#time-zones-and-daylight-saving).
 *
 * A reading's time of day is read on its own clock: its instant shifted by the UTC offset it was
 * written with (`2026-03-08T01:55:00-08:00` is 01:55, `2026-03-08T03:00:00-07:00` is 03:00). No
 * time zone database is consulted: the offset each reading carries is the device's clock at that
 * moment, so a change of daylight-saving time needs no rule. On the day the clocks go forward, the
 * skipped hour's bins get no reading that day; on the day they go back, the repeated hour's bins get
 * both hours' readings. A device that writes UTC (`Z`) puts its profile in UTC.
 *
 * Quarter-hours of UTC time (epoch ms / 15 min) mark when a sensor was active: every UTC offset in
 * use is a whole number of quarter-hours, so a day that starts at any local midnight starts on one.
 */
import { isoInstant, MS_PER_DAY, MS_PER_MINUTE } from '../omh/datetime';

/** Width of a time-of-day bin of the ambulatory glucose profile. */
export const BIN_MINUTES = 15;
/** Bins in a day: 96. */
export const BINS_PER_DAY = 1440 / BIN_MINUTES;

export const QUARTER_MS = 15 * MS_PER_MINUTE;

/** The longest UTC offset a date-time can carry (RFC 3339: two-digit hours and minutes). */
const MAX_OFFSET_MINUTES = 23 * 60 + 59;

export const isOffset = (minutes: number): boolean => Number.isInteger(minutes) && Math.abs(minutes) <= MAX_OFFSET_MINUTES;

/** The minute of the day (0..1439) on the reading's own clock. */
export function localMinuteOfDay(at: number, offsetMinutes: number): number {
  const local = at + offsetMinutes * MS_PER_MINUTE;
  return Math.floor((((local % MS_PER_DAY) + MS_PER_DAY) % MS_PER_DAY) / MS_PER_MINUTE);
}

/** The time-of-day bin (0..95) of a reading, on its own clock. */
export const binOf = (at: number, offsetMinutes: number): number => Math.floor(localMinuteOfDay(at, offsetMinutes) / BIN_MINUTES);

/** The UTC quarter-hour an instant lies in. */
export const quarterOf = (at: number): number => Math.floor(at / QUARTER_MS);

/** `HH:MM` of a minute of the day. */
export const clockOf = (minute: number): string => `${String(Math.floor(minute / 60)).padStart(2, '0')}:${String(minute % 60).padStart(2, '0')}`;

/** An offset as RFC 3339 writes it: `Z`, `-08:00`, `+05:45`. */
const offsetText = (minutes: number): string => (minutes === 0 ? 'Z' : `${minutes < 0 ? '-' : '+'}${clockOf(Math.abs(minutes))}`);

/** An instant as a date-time on a clock `offsetMinutes` from UTC: whole seconds, milliseconds only when not zero. */
export function dateTimeAt(at: number, offsetMinutes: number): string {
  const wall = isoInstant(at + offsetMinutes * MS_PER_MINUTE);
  return `${wall.slice(0, -1)}${offsetText(offsetMinutes)}`;
}

/** The calendar date (`YYYY-MM-DD`) of an instant on a clock `offsetMinutes` from UTC. */
export const dateAt = (at: number, offsetMinutes: number): string => isoInstant(at + offsetMinutes * MS_PER_MINUTE).slice(0, 10);

/** Whether an instant is a midnight on a clock `offsetMinutes` from UTC. */
export const isMidnightAt = (at: number, offsetMinutes: number): boolean => localMinuteOfDay(at, offsetMinutes) === 0 && (at + offsetMinutes * MS_PER_MINUTE) % MS_PER_MINUTE === 0;
