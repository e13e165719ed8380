/**
 * Clocks a period is read and written on (docs/cgm.md#time-zones-and-daylight-saving): a fixed UTC
 * offset, or an IANA time zone (`America/Los_Angeles`) whose offset changes with daylight saving,
 * read from the runtime's own time zone data (`Intl`, the ICU tables Node carries). The profile never
 * needs one: each reading carries its own offset. A zone only says where a patient's calendar days
 * begin and end, for a period asked in dates and for writing its ends.
 */
import { BoundedMap } from '../bounded-map';
import { MS_PER_MINUTE } from '../omh/datetime';

/** A clock: its UTC offset (minutes) at an instant. */
export type Clock = (at: number) => number;

/** A clock at a fixed offset from UTC (0: UTC itself). */
export const fixedClock =
  (offsetMinutes: number): Clock =>
  () =>
    offsetMinutes;

export const UTC_CLOCK: Clock = fixedClock(0);

/** The longest IANA zone name taken (`America/Argentina/ComodRivadavia` is 32). */
const MAX_ZONE_LENGTH = 64;
const ZONE_NAME = /^[A-Za-z][A-Za-z0-9_+-]*(?:\/[A-Za-z0-9_+-]+)*$/;

/** Formatters by zone name, few (a zone is a patient's), bounded since the names come from requests. */
const formatters = new BoundedMap<string, Intl.DateTimeFormat>(256);

function formatterOf(zone: string): Intl.DateTimeFormat | undefined {
  const known = formatters.get(zone);
  if (known) return known;
  if (zone.length > MAX_ZONE_LENGTH || !ZONE_NAME.test(zone)) return undefined;
  try {
    const made = new Intl.DateTimeFormat('en-US', {
      timeZone: zone,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
    });
    formatters.set(zone, made);
    return made;
  } catch {
    return undefined;
  }
}

/** Whether the runtime knows an IANA time zone of this name. */
export const isTimeZone = (zone: string): boolean => formatterOf(zone) !== undefined;

/** The clock of an IANA time zone (its offset at each instant, daylight saving included); undefined for a name the runtime does not know. */
export function zoneClock(zone: string): Clock | undefined {
  const format = formatterOf(zone);
  if (!format) return undefined;
  return (at) => {
    const parts = new Map(format.formatToParts(new Date(at)).map((p) => [p.type, Number(p.value)]));
    const wall = Date.UTC(parts.get('year')!, parts.get('month')! - 1, parts.get('day')!, parts.get('hour')!, parts.get('minute')!, parts.get('second')!);
    // The offsets in use are whole minutes; the instant's own seconds and milliseconds are not the zone's.
    return Math.round((wall - Math.floor(at / 1000) * 1000) / MS_PER_MINUTE);
  };
}

/**
 * The first instant of a calendar day on a clock, the day given by its UTC midnight
 * (`Date.UTC(y, m, d)`): its local midnight, or, where a change of offset skips that midnight, the
 * first instant after the skipped time.
 */
export function localMidnight(utcMidnight: number, clock: Clock): number {
  const first = utcMidnight - clock(utcMidnight) * MS_PER_MINUTE;
  const second = utcMidnight - clock(first) * MS_PER_MINUTE;
  if (second === first || clock(second) * MS_PER_MINUTE === utcMidnight - second) return second;
  // Midnight does not exist on this clock that day (the clocks went forward over it): the change itself.
  return Math.max(first, second);
}
