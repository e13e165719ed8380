/**
 * Strict RFC 3339 date-times and calendar dates, as the payload schemas use them, parsed once into
 * instants. One parser serves both validation (is it a real date-time?) and effective-time lifting
 * (which instant is it?), so the two can never disagree.
 */

export const MS_PER_MINUTE = 60_000;
export const MS_PER_DAY = 86_400_000;

/** A parsed date-time: the instant (epoch ms, UTC) and the offset the writer used, in minutes. */
export interface ParsedDateTime {
  ms: number;
  offsetMinutes: number;
}

/** RFC 3339 §5.6 `date-time`: full-date "T" full-time, offset required, `t`/`z` allowed. */
const DATE_TIME =
  /^([0-9]{4})-([0-9]{2})-([0-9]{2})[Tt]([0-9]{2}):([0-9]{2}):([0-9]{2})(?:\.([0-9]+))?(?:([Zz])|([+-])([0-9]{2}):([0-9]{2}))$/;

/** The `date` pattern of the time-interval schema (`^[0-9]{4}-[0-9]{2}-[0-9]{2}$`). */
const FULL_DATE = /^([0-9]{4})-([0-9]{2})-([0-9]{2})$/;

const DAYS_IN_MONTH = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

function isLeapYear(year: number): boolean {
  return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
}

/** Days in `month` (1-12) of `year`. */
export function daysInMonth(year: number, month: number): number {
  return month === 2 && isLeapYear(year) ? 29 : DAYS_IN_MONTH[month - 1]!;
}

/**
 * Epoch ms of midnight UTC on a calendar day (month 1-12). Unlike `Date.UTC`, years 0-99 are
 * taken literally, not as 1900-1999.
 */
export function utcMidnight(year: number, month: number, day: number): number {
  if (year >= 100) return Date.UTC(year, month - 1, day);
  const d = new Date(0);
  d.setUTCFullYear(year, month - 1, day);
  return d.getTime();
}

/**
 * Parses an RFC 3339 date-time with a mandatory offset. Returns a reason string for anything else:
 * a wrong shape (no offset, a space or no separator, a date alone) or an impossible value
 * (2025-02-30, 24:00, offset +25:00). A leap second (`:60`) is accepted only where one can
 * occur, at 23:59 UTC, and read as the first instant of the next day. Fractions beyond
 * milliseconds are truncated.
 */
export function parseDateTime(text: string): ParsedDateTime | string {
  const m = DATE_TIME.exec(text);
  if (!m) return 'must be an RFC 3339 date-time with an offset, e.g. 2025-03-01T07:58:00Z or 2025-03-01T07:58:00-05:00';
  const year = +m[1]!, month = +m[2]!, day = +m[3]!, hour = +m[4]!, minute = +m[5]!, second = +m[6]!;
  const dateProblem = calendarProblem(year, month, day);
  if (dateProblem) return dateProblem;
  if (hour > 23 || minute > 59 || second > 60) return `has an impossible time of day ${m[4]}:${m[5]}:${m[6]}`;
  const offsetHours = m[10] === undefined ? 0 : +m[10];
  const offsetMins = m[11] === undefined ? 0 : +m[11];
  if (offsetHours > 23 || offsetMins > 59) return `has an impossible offset ${m[9]}${m[10]}:${m[11]}`;
  const offsetMinutes = (m[9] === '-' ? -1 : 1) * (offsetHours * 60 + offsetMins);
  const millis = m[7] === undefined ? 0 : Number(m[7].slice(0, 3).padEnd(3, '0'));
  const wallClock = utcMidnight(year, month, day) + ((hour * 60 + minute) * 60 + second) * 1000 + millis;
  const ms = wallClock - offsetMinutes * MS_PER_MINUTE;
  if (second === 60 && (((ms % MS_PER_DAY) + MS_PER_DAY) % MS_PER_DAY) !== millis) return 'has a leap second at a time other than 23:59:60 UTC';
  return { ms, offsetMinutes };
}

/** Parses a `YYYY-MM-DD` calendar date to midnight UTC, or returns why it is not one. */
export function parseFullDate(text: string): number | string {
  const m = FULL_DATE.exec(text);
  if (!m) return 'must be a date in the form YYYY-MM-DD';
  const [year, month, day] = [Number(m[1]), Number(m[2]), Number(m[3])];
  return calendarProblem(year, month, day) ?? utcMidnight(year, month, day);
}

function calendarProblem(year: number, month: number, day: number): string | undefined {
  if (month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month)) {
    const pad = (n: number, w: number) => String(n).padStart(w, '0');
    return `names a day that does not exist (${pad(year, 4)}-${pad(month, 2)}-${pad(day, 2)})`;
  }
  return undefined;
}

/** First and last instants FHIR can write as a `dateTime`/`instant` (years 0001-9999). */
export const FIRST_INSTANT = utcMidnight(1, 1, 1);
export const LAST_INSTANT = utcMidnight(10000, 1, 1) - 1;

/**
 * An instant as ISO 8601 in UTC with a `Z`: whole seconds always, milliseconds only when they are
 * not zero (`2025-03-01T12:58:00Z`, `2025-03-01T12:58:00.250Z`).
 */
export function isoInstant(ms: number): string {
  const day = Math.floor(ms / MS_PER_DAY);
  // Readings come in time order, many a day: the date is written once a day, the time of day by hand
  // (a Date and its text cost about 1 µs, most of what rendering a reading's times costs).
  if (day !== lastDay.day || !Number.isInteger(ms)) {
    const iso = new Date(ms).toISOString();
    if (Number.isInteger(ms)) lastDay = { day, date: iso.slice(0, iso.indexOf('T') + 1) };
    return iso.endsWith('.000Z') ? `${iso.slice(0, -5)}Z` : iso;
  }
  const inDay = ms - day * MS_PER_DAY;
  const millis = inDay % 1000;
  const seconds = Math.floor(inDay / 1000);
  const time = `${two(Math.floor(seconds / 3600))}:${two(Math.floor(seconds / 60) % 60)}:${two(seconds % 60)}`;
  return millis === 0 ? `${lastDay.date}${time}Z` : `${lastDay.date}${time}.${String(millis).padStart(3, '0')}Z`;
}

/** The last day `isoInstant` wrote, and its date with the `T`. */
let lastDay = { day: Number.NaN, date: '' };
const two = (n: number) => (n < 10 ? `0${n}` : String(n));
