/**
 * Lifts a payload's `body.effective_time_frame` into instants (epoch ms, UTC) for the index, and
 * renders them as FHIR `effectiveDateTime` / `effectivePeriod`. The forms are tried in this order:
 * `date_time`; an interval's start + end, start + duration, end + duration, date + part_of_day;
 * and the food entry's `full_date` (the whole UTC day). Anything else lifts to nothing.
 *
 * Durations: fixed units (ps .. wk) may be fractional and are applied as whole milliseconds
 * (rounded); calendar units `Mo` and `yr` take the integer part of the value and move the
 * calendar in the writer's own offset, clamping the day to the end of the month
 * (Jan 31 + 1 Mo = Feb 28 or 29).
 */
import {
  daysInMonth, FIRST_INSTANT, isoInstant, LAST_INSTANT, MS_PER_DAY, MS_PER_MINUTE, parseDateTime,
  parseFullDate, utcMidnight, type ParsedDateTime,
} from './datetime';
import { isObject, type JsonObject } from '../json';
import type { DurationUnit, PartOfDay } from './schemas/vocabulary';

export interface EffectiveTime {
  /** `dateTime` for a single `date_time`, `period` for every interval form. */
  kind: 'dateTime' | 'period';
  /** Epoch ms; equal to `end` for a `dateTime`. */
  start: number;
  end: number;
}

const MS_PER_HOUR = 60 * MS_PER_MINUTE;

const FIXED_UNIT_MS: Record<Exclude<DurationUnit, 'Mo' | 'yr'>, number> = {
  ps: 1e-9,
  ns: 1e-6,
  us: 1e-3,
  ms: 1,
  sec: 1000,
  min: MS_PER_MINUTE,
  h: MS_PER_HOUR,
  d: MS_PER_DAY,
  wk: 7 * MS_PER_DAY,
};

const CALENDAR_UNIT_MONTHS: Record<'Mo' | 'yr', number> = { Mo: 1, yr: 12 };

/** UTC windows of the parts of a day: [start hour, end hour). */
const PART_OF_DAY_HOURS: Record<PartOfDay, [number, number]> = {
  night: [0, 6],
  morning: [6, 12],
  afternoon: [12, 18],
  evening: [18, 24],
};

const dateTimeOf = (value: unknown): ParsedDateTime | undefined => {
  if (typeof value !== 'string') return undefined;
  const parsed = parseDateTime(value);
  return typeof parsed === 'string' ? undefined : parsed;
};

const period = (start: number, end: number): EffectiveTime => ({ kind: 'period', start, end });

/** The effective time of a payload body, or undefined when it has no time frame it can read. */
export function liftEffectiveTime(body: unknown): EffectiveTime | undefined {
  const frame = isObject(body) ? body.effective_time_frame : undefined;
  if (!isObject(frame)) return undefined;
  if (Object.hasOwn(frame, 'date_time')) {
    const at = dateTimeOf(frame.date_time);
    return at && { kind: 'dateTime', start: at.ms, end: at.ms };
  }
  if (isObject(frame.time_interval)) return liftInterval(frame.time_interval);
  if (typeof frame.full_date === 'string') {
    const day = parseFullDate(frame.full_date);
    return typeof day === 'number' ? period(day, day + MS_PER_DAY) : undefined;
  }
  return undefined;
}

/**
 * The UTC offset (minutes) of the clock a payload's effective start was written on: its
 * `date_time`'s, an interval's `start_date_time`'s (or, for an end and a duration, the
 * `end_date_time`'s: the writer's clock). The UTC windows of a date and part of day and of a
 * `full_date` are on no clock but UTC: 0. Undefined when there is no effective time to read, as
 * `liftEffectiveTime` finds none.
 */
export function startOffsetOf(body: unknown): number | undefined {
  if (liftEffectiveTime(body) === undefined) return undefined;
  const frame = (body as JsonObject).effective_time_frame as JsonObject;
  const interval = isObject(frame.time_interval) ? frame.time_interval : undefined;
  const written = Object.hasOwn(frame, 'date_time') ? dateTimeOf(frame.date_time) : interval && (dateTimeOf(interval.start_date_time) ?? dateTimeOf(interval.end_date_time));
  return written?.offsetMinutes ?? 0;
}

function liftInterval(interval: JsonObject): EffectiveTime | undefined {
  const start = dateTimeOf(interval.start_date_time);
  const end = dateTimeOf(interval.end_date_time);
  if (start && end) return period(start.ms, end.ms);
  const duration = interval.duration;
  if (start && duration !== undefined) {
    const shifted = shift(start, duration, 1);
    return shifted === undefined ? undefined : period(start.ms, shifted);
  }
  if (end && duration !== undefined) {
    const shifted = shift(end, duration, -1);
    return shifted === undefined ? undefined : period(shifted, end.ms);
  }
  const partOfDay = interval.part_of_day;
  if (typeof interval.date === 'string' && typeof partOfDay === 'string' && Object.hasOwn(PART_OF_DAY_HOURS, partOfDay)) {
    const day = parseFullDate(interval.date);
    const [fromHour, toHour] = PART_OF_DAY_HOURS[partOfDay as PartOfDay];
    return typeof day === 'string' ? undefined : period(day + fromHour * MS_PER_HOUR, day + toHour * MS_PER_HOUR);
  }
  return undefined;
}

/** `from` moved by `duration` forwards (+1) or backwards (-1); undefined for a duration it cannot read. */
function shift(from: ParsedDateTime, duration: unknown, direction: 1 | -1): number | undefined {
  if (!isObject(duration) || typeof duration.value !== 'number' || typeof duration.unit !== 'string') return undefined;
  const { value, unit } = duration;
  if (Object.hasOwn(FIXED_UNIT_MS, unit)) {
    return from.ms + direction * Math.round(value * FIXED_UNIT_MS[unit as keyof typeof FIXED_UNIT_MS]);
  }
  if (Object.hasOwn(CALENDAR_UNIT_MONTHS, unit)) {
    const months = Math.trunc(value) * CALENDAR_UNIT_MONTHS[unit as keyof typeof CALENDAR_UNIT_MONTHS];
    return addCalendarMonths(from, direction * months);
  }
  return undefined;
}

/** Adds months on the writer's wall clock (its own offset), clamping the day to the month's end. */
function addCalendarMonths(from: ParsedDateTime, months: number): number {
  const offsetMs = from.offsetMinutes * MS_PER_MINUTE;
  const wall = new Date(from.ms + offsetMs);
  const monthIndex = wall.getUTCMonth() + months;
  const year = wall.getUTCFullYear() + Math.floor(monthIndex / 12);
  const month = (((monthIndex % 12) + 12) % 12) + 1;
  const day = Math.min(wall.getUTCDate(), daysInMonth(year, month));
  const timeOfDay = (((from.ms + offsetMs) % MS_PER_DAY) + MS_PER_DAY) % MS_PER_DAY;
  return utcMidnight(year, month, day) + timeOfDay - offsetMs;
}

/**
 * Why a lifted time cannot be stored and rendered as valid FHIR, or undefined when it can: an
 * instant outside the years 0001-9999, or a period that ends before it starts (FHIR per-1).
 */
export function effectiveTimeProblem(effective: EffectiveTime): string | undefined {
  const inRange = (ms: number) => Number.isFinite(ms) && ms >= FIRST_INSTANT && ms <= LAST_INSTANT;
  if (!inRange(effective.start) || !inRange(effective.end)) return 'lies outside the years 0001-9999';
  if (effective.end < effective.start) {
    return `ends (${isoInstant(effective.end)}) before it starts (${isoInstant(effective.start)})`;
  }
  return undefined;
}

export type FhirEffective =
  | { effectiveDateTime: string }
  | { effectivePeriod: { start: string; end: string } }
  | Record<string, never>;

/** The Observation's `effective[x]` for a lifted time; nothing (`{}`) when there is none. */
export function fhirEffective(effective: EffectiveTime | undefined): FhirEffective {
  if (!effective) return {};
  if (effective.kind === 'dateTime') return { effectiveDateTime: isoInstant(effective.start) };
  return { effectivePeriod: { start: isoInstant(effective.start), end: isoInstant(effective.end) } };
}
