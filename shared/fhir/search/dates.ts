/**
 * FHIR dates as time ranges. A value covers the whole span its precision names: `2013` is the year
 * 2013, `2013-01-14` that day, `2013-01-14T10:00:00Z` that second. Ranges are half-open
 * `[lo, hi)` in epoch milliseconds, offsets normalised to UTC. A value without an offset (a date,
 * or a search value written without one) is anchored in UTC: the service has no local time zone
 * of its own, and UTC days are what the rest of the service (the native store) compares by.
 */

/** Half-open `[lo, hi)` in epoch milliseconds. */
export interface TimeRange {
  lo: number;
  hi: number;
}

/** The ends of an open range (a Period without start or end): JavaScript Date's own limits. */
export const MIN_TIME = -8.64e15;
export const MAX_TIME = 8.64e15;

const DATE_TIME =
  /^(\d{4})(?:-(\d{2})(?:-(\d{2})(?:T(\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?(Z|[+-]\d{2}:\d{2})?)?)?)?$/;

/** 400 Gregorian years, exactly: the calendar repeats after them. */
const FOUR_CENTURIES_MS = 146_097 * 86_400_000;

/**
 * Milliseconds since the epoch of a UTC calendar time (fields may overflow, as in Date.UTC).
 * Date.UTC reads years 0-99 as 1900-1999; those are computed 400 years on and shifted back.
 */
function utc(year: number, month: number, day: number, hour = 0, minute = 0, second = 0, ms = 0): number {
  if (year >= 100) return Date.UTC(year, month, day, hour, minute, second, ms);
  return Date.UTC(year + 400, month, day, hour, minute, second, ms) - FOUR_CENTURIES_MS;
}

function daysIn(year: number, month: number): number {
  return new Date(utc(year, month + 1, 0)).getUTCDate();
}

/**
 * The range a date, dateTime or instant covers, or undefined when the text is not one (a wrong
 * format or an impossible calendar date). Minutes without seconds are accepted, as search values
 * may be written that way.
 */
export function dateRange(text: string): TimeRange | undefined {
  const m = DATE_TIME.exec(text);
  if (!m) return undefined;
  const year = Number(m[1]);
  if (m[2] === undefined) return { lo: utc(year, 0, 1), hi: utc(year + 1, 0, 1) };
  const month = Number(m[2]) - 1;
  if (month < 0 || month > 11) return undefined;
  if (m[3] === undefined) return { lo: utc(year, month, 1), hi: utc(year, month + 1, 1) };
  const day = Number(m[3]);
  if (day < 1 || day > daysIn(year, month)) return undefined;
  if (m[4] === undefined) return { lo: utc(year, month, day), hi: utc(year, month, day + 1) };
  const [hour, minute, second] = [Number(m[4]), Number(m[5]), m[6] === undefined ? 0 : Number(m[6])];
  if (hour > 23 || minute > 59 || second > 60) return undefined;
  const fraction = m[7] ?? '';
  const ms = fraction ? Math.floor(Number(`0.${fraction}`) * 1000) : 0;
  const offset = zoneOffsetMs(m[8]);
  if (offset === undefined) return undefined;
  // A leap second exists only as 23:59:60 UTC (as uploads accept it); it is read as the second before.
  const leap = second === 60;
  const lo = utc(year, month, day, hour, minute, leap ? 59 : second, ms) - offset;
  if (leap && (lo - ms + 1000) % 86_400_000 !== 0) return undefined;
  return { lo, hi: lo + precisionMs(m[6] !== undefined, fraction.length) };
}

/** Width of the last written unit: a minute, a second, or the last fraction digit (at least 1 ms). */
function precisionMs(hasSeconds: boolean, fractionDigits: number): number {
  if (!hasSeconds) return 60_000;
  if (fractionDigits === 0) return 1000;
  return fractionDigits >= 3 ? 1 : 10 ** (3 - fractionDigits);
}

function zoneOffsetMs(zone: string | undefined): number | undefined {
  if (!zone || zone === 'Z') return 0;
  const hours = Number(zone.slice(1, 3));
  const minutes = Number(zone.slice(4, 6));
  if (hours > 14 || minutes > 59) return undefined;
  return (zone[0] === '-' ? -1 : 1) * (hours * 60 + minutes) * 60_000;
}

/** A Period's range: from its start's beginning to its end's end, open where either is absent. */
export function periodRange(start: string | undefined, end: string | undefined): TimeRange | undefined {
  const lo = start === undefined ? MIN_TIME : dateRange(start)?.lo;
  const hi = end === undefined ? MAX_TIME : dateRange(end)?.hi;
  if (lo === undefined || hi === undefined || (start === undefined && end === undefined)) return undefined;
  return { lo, hi: Math.max(hi, lo) };
}
