/** The IEEE 1752 header 1.0, which every payload's `header` must satisfy. */
import { durationUnitValue, unitValue } from './blocks';
import { dateTime, iri, uuid } from './formats';
import { arrayOf, enumOf, exactlyOneOf, number, object, opt, req, string } from './validate';
import { DURATION_UNITS } from './vocabulary';

/** `time_window`: a duration, or a duration range with both bounds in one duration unit. */
const timeWindow = exactlyOneOf({
  'a duration {value, unit}': durationUnitValue(),
  'a duration range {low_value, high_value, unit}': object({
    low_value: req(number),
    high_value: req(number),
    unit: req(enumOf(DURATION_UNITS)),
  }),
});

/** Frequency: a rate in Hz, or a number of times per time window. */
const frequency = exactlyOneOf({
  '{value, unit: Hz}': unitValue(['Hz']),
  '{number_of_times, time_window}': object({ number_of_times: req(number), time_window: req(timeWindow) }),
});

export const HEADER = object({
  uuid: req(uuid),
  schema_id: req(object({ namespace: req(string), name: req(string), version: req(string) })),
  source_creation_date_time: req(dateTime),
  modality: opt(enumOf(['sensed', 'self-reported'])),
  acquisition_rate: opt(frequency),
  external_datasheets: opt(arrayOf(object({ datasheet_reference: req(iri), datasheet_type: opt(string) }))),
});

/** A header that passed {@link HEADER}; other members may be present. */
export interface OmhHeader {
  uuid: string;
  schema_id: { namespace: string; name: string; version: string };
  source_creation_date_time: string;
  modality?: 'sensed' | 'self-reported';
  [member: string]: unknown;
}
