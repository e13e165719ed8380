/**
 * Building blocks shared by the payload schemas: unit-value pairs, the two time frames (Open
 * mHealth with four interval forms, IEEE 1752 with three) and their interval-only variants.
 */
import type { JsonObject } from '../../json';
import { dateTime, fullDate } from './formats';
import {
  enumOf, exactlyOneKeySet, fail, number, object, opt, req, string,
  type ObjectRule, type Validator,
} from './validate';
import { DURATION_UNITS, PARTS_OF_DAY } from './vocabulary';

/** `{value: number, unit}`, both required; `unit` one of `units`, or any string when omitted. */
export function unitValue(units?: readonly string[]): Validator {
  const validate = object({ value: req(number), unit: req(units ? enumOf(units) : string) });
  validate.unitValue = { units };
  return validate;
}

/** A duration-unit-value, optionally narrowed to some of the duration units. */
export const durationUnitValue = (units: readonly string[] = DURATION_UNITS): Validator => unitValue(units);

const START_END = ['start_date_time', 'end_date_time'];
const START_DURATION = ['start_date_time', 'duration'];
const END_DURATION = ['end_date_time', 'duration'];
const DATE_PART_OF_DAY = ['date', 'part_of_day'];

const intervalMembers = {
  start_date_time: opt(dateTime),
  end_date_time: opt(dateTime),
  duration: opt(durationUnitValue()),
};

/** Open mHealth time interval: start+end, start+duration, end+duration or date+part_of_day. */
const omhInterval = object(
  { ...intervalMembers, date: opt(fullDate), part_of_day: opt(enumOf(PARTS_OF_DAY)) },
  exactlyOneKeySet([START_END, START_DURATION, END_DURATION, DATE_PART_OF_DAY]),
);

/** IEEE 1752 time interval: start+end, start+duration or end+duration (no date+part_of_day). */
const ieeeInterval = object(
  intervalMembers,
  exactlyOneKeySet([START_END, START_DURATION, END_DURATION], (v) =>
    Object.hasOwn(v, 'date') && Object.hasOwn(v, 'part_of_day')
      ? 'date + part_of_day is not allowed by this schema (IEEE 1752 time interval); use start_date_time + end_date_time, start_date_time + duration or end_date_time + duration'
      : 'must have exactly one of start_date_time + end_date_time, start_date_time + duration, end_date_time + duration',
  ),
);

const dateTimeOrInterval = exactlyOneKeySet([['date_time'], ['time_interval']]);

/** The schema adds `required: [time_interval]` on top of the time frame. */
const intervalOnly: ObjectRule = (v: JsonObject, path, issues) => {
  if (Object.hasOwn(v, 'time_interval')) return dateTimeOrInterval(v, path, issues);
  const why = Object.hasOwn(v, 'date_time') ? 'is required: this schema takes a time interval, not a single date_time' : 'is required';
  fail(issues, `${path}.time_interval`, why, 'required');
};

function timeFrame(interval: Validator, onlyIntervals: boolean): Validator {
  const validate = object({ date_time: opt(dateTime), time_interval: opt(interval) }, onlyIntervals ? intervalOnly : dateTimeOrInterval);
  validate.timeFrame = true;
  return validate;
}

/** Open mHealth time frame 1.x: a date_time or any of the four interval forms. */
export const OMH_TIME_FRAME = timeFrame(omhInterval, false);
/** Open mHealth time frame restricted to intervals (TI-only). */
export const OMH_TIME_INTERVAL = timeFrame(omhInterval, true);
/** IEEE 1752 time frame 1.0: a date_time or the three start/end/duration interval forms. */
export const IEEE_TIME_FRAME = timeFrame(ieeeInterval, false);
/** IEEE 1752 time frame restricted to intervals (TI-only). */
export const IEEE_TIME_INTERVAL = timeFrame(ieeeInterval, true);
