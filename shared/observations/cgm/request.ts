/**
 * A request for a patient's CGM summary in typed values (docs/cgm.md#the-operation-patientidcgm-summary):
 * what the FHIR operation parses its parameters into (params.ts) and what the assistants' tool gives
 * directly, with the one rule that turns its period into instants.
 *
 * - `start` and `end` are FHIR dates or dateTimes; each covers its whole precision (`end:
 *   2026-03-14` ends after that day). A dateTime carries its own offset. A date (or a month, a
 *   year) is a calendar day of the `timeZone` when one is named (an IANA zone: its midnights, daylight
 *   saving included), else of UTC.
 * - Left out: `end` is now (its millisecond included), `start` 14 days before `end`: the consensus's
 *   reporting period.
 * - The period is at most `MAX_CGM_DAYS` long and ends after it starts.
 */
import { invalidQuery } from '../../failures';
import { dateRange, MAX_TIME, MIN_TIME } from '../../fhir/search/dates';
import { DEFAULT_TARGET_SET, TARGET_SETS, type Target, type TargetSetName } from '../../cgm/thresholds';
import type { GlucoseUnit } from '../../cgm/units';
import { localMidnight, UTC_CLOCK, zoneClock, type Clock } from '../../cgm/zones';
import { MS_PER_DAY } from '../../omh/datetime';
import type { BoundedPeriod } from '../period';

/** The reporting period when none is asked: the consensus's 14 days. */
export const DEFAULT_CGM_DAYS = 14;
/** The longest period asked at once: a year. */
export const MAX_CGM_DAYS = 366;

export interface CgmRequest {
  /** `Patient/<id>`. */
  subject: string;
  /** FHIR dates or dateTimes; defaults above. */
  start?: string;
  end?: string;
  /** An IANA time zone: the calendar a date of `start` and `end` is read on, and the ends written on. */
  timeZone?: string;
  /** The unit of the glucose figures; mg/dL when not given. */
  unit?: GlucoseUnit;
  /** The consensus targets to judge the figures by; `standard` when not given. */
  targets?: TargetSetName;
}

/** A request's period in instants, and the clock its days are on. */
export interface ResolvedPeriod {
  period: BoundedPeriod;
  clock: Clock;
}

const DATE_ONLY = /^\d{4}(-\d{2}(-\d{2})?)?$/;

/** The request's period (failures name the parameter: `start`, `end`, `timeZone`). */
export function resolvePeriod(request: Pick<CgmRequest, 'start' | 'end' | 'timeZone'>, now: number): ResolvedPeriod {
  const clock = request.timeZone === undefined ? UTC_CLOCK : zoneClock(request.timeZone);
  if (!clock) throw invalidQuery(`timeZone is not a time zone this service knows: ${request.timeZone} (an IANA name, e.g. Europe/Paris).`, 'timeZone');
  const range = (text: string, name: 'start' | 'end') => {
    const found = dateRange(text);
    if (!found || found.lo <= MIN_TIME || found.hi >= MAX_TIME) throw invalidQuery(`${name} is not a date or a dateTime with a time zone: ${text} (e.g. 2026-03-01 or 2026-03-01T00:00:00-08:00).`, name);
    return DATE_ONLY.test(text) ? { lo: localMidnight(found.lo, clock), hi: localMidnight(found.hi, clock) } : found;
  };
  const to = request.end === undefined ? now + 1 : range(request.end, 'end').hi;
  const from = request.start === undefined ? to - DEFAULT_CGM_DAYS * MS_PER_DAY : range(request.start, 'start').lo;
  if (to <= from) throw invalidQuery('The period must end after it starts.', 'end');
  if (to - from > MAX_CGM_DAYS * MS_PER_DAY) throw invalidQuery(`A CGM summary covers at most ${MAX_CGM_DAYS} days.`, 'start');
  return { period: { from, to }, clock };
}

/** The targets a request names. */
export const targetsOf = (request: Pick<CgmRequest, 'targets'>): readonly Target[] => TARGET_SETS.get(request.targets ?? DEFAULT_TARGET_SET)!;
