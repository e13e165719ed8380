/**
 * Valid sample payloads of every supported code, for tests, the demo seed and benchmarks. Each
 * is modelled on the code's example body (`EXAMPLE_BODIES`), moved to a chosen instant and
 * written with a chosen effective-time form.
 */
import { randomUUID } from 'node:crypto';
import { isoInstant, MS_PER_DAY, MS_PER_MINUTE, parseDateTime } from './datetime';
import { liftEffectiveTime } from './effective-time';
import type { OmhPayload } from './check';
import { PAYLOAD_SCHEMAS, schemaForCode } from './schemas/index';
import { isObject, type JsonObject } from '../json';
import { issuesOf } from './schemas/validate';

/** One example body per supported code; each passes its schema as written. */
export const EXAMPLE_BODIES: Readonly<Record<string, JsonObject>> = {
  'omh:blood-pressure:4.0': {
    systolic_blood_pressure: { value: 122, unit: 'mmHg' },
    diastolic_blood_pressure: { value: 78, unit: 'mmHg' },
    effective_time_frame: { date_time: '2025-03-01T07:58:00-05:00' },
    body_posture: 'sitting',
    measurement_location: 'left upper arm',
    descriptive_statistic: 'average',
    temporal_relationship_to_physical_activity: 'at rest',
  },
  'omh:blood-glucose:4.0': {
    blood_glucose: { value: 5.9, unit: 'mmol/L' },
    effective_time_frame: { date_time: '2025-03-01T06:30:00Z' },
    specimen_source: 'capillary blood',
    temporal_relationship_to_meal: 'fasting',
    temporal_relationship_to_sleep: 'on waking',
  },
  'omh:body-temperature:4.0': {
    body_temperature: { value: 37.1, unit: 'C' },
    effective_time_frame: { date_time: '2025-03-01T21:15:00+01:00' },
    measurement_location: 'oral',
    temporal_relationship_to_sleep: 'before sleeping',
  },
  'omh:body-weight:3.0': {
    body_weight: { value: 72.4, unit: 'kg' },
    effective_time_frame: { date_time: '2025-03-02T07:00:00Z' },
  },
  'omh:heart-rate:2.0': {
    heart_rate: { value: 58, unit: 'beats/min' },
    effective_time_frame: { time_interval: { date: '2025-03-02', part_of_day: 'night' } },
    descriptive_statistic: 'minimum',
    temporal_relationship_to_sleep: 'during sleep',
    temporal_relationship_to_physical_activity: 'at rest',
  },
  'omh:oxygen-saturation:2.0': {
    oxygen_saturation: { value: 96, unit: '%' },
    effective_time_frame: { date_time: '2025-03-02T03:10:00Z' },
    system: 'peripheral capillary',
    measurement_method: 'pulse oximetry',
    supplemental_oxygen_flow_rate: { value: 2, unit: 'L/min' },
    oxygen_therapy_mode_of_administration: 'nasal cannula',
  },
  'omh:respiratory-rate:2.0': {
    respiratory_rate: { value: 14, unit: 'breaths/min' },
    effective_time_frame: { time_interval: { start_date_time: '2025-03-02T01:00:00Z', duration: { value: 6, unit: 'h' } } },
    descriptive_statistic: 'average',
  },
  'omh:rr-interval:1.0': { rr_interval: { value: 845, unit: 'ms' } },
  'omh:physical-activity:1.2': {
    activity_name: 'walking',
    effective_time_frame: {
      time_interval: { start_date_time: '2025-03-02T17:00:00Z', end_date_time: '2025-03-02T17:45:00Z' },
    },
    distance: { value: 3.6, unit: 'km' },
    kcal_burned: { value: 190, unit: 'kcal' },
    reported_activity_intensity: 'moderate',
    met_value: 3.5,
  },
  'omh:step-count:3.0': {
    step_count: { value: 8421, unit: 'steps' },
    effective_time_frame: {
      time_interval: { start_date_time: '2025-03-02T00:00:00Z', end_date_time: '2025-03-03T00:00:00Z' },
    },
    descriptive_statistic: 'sum',
    descriptive_statistic_denominator: 'd',
  },
  'omh:sleep-episode:1.1': {
    effective_time_frame: {
      time_interval: { start_date_time: '2025-03-02T23:10:00-08:00', end_date_time: '2025-03-03T06:40:00-08:00' },
    },
    latency_to_sleep_onset: { value: 12, unit: 'min' },
    total_sleep_time: { value: 410, unit: 'min' },
    number_of_awakenings: 3,
    is_main_sleep: true,
    sleep_maintenance_efficiency_percentage: { value: 91, unit: '%' },
  },
  'omh:sleep-duration:2.0': {
    sleep_duration: { value: 6.8, unit: 'h' },
    effective_time_frame: {
      time_interval: { end_date_time: '2025-03-03T06:40:00-08:00', duration: { value: 7.5, unit: 'h' } },
    },
  },
  'omh:forced-vital-capacity:1.0': {
    forced_vital_capacity: { value: 4.35, unit: 'L' },
    effective_time_frame: { date_time: '2025-03-03T09:00:00Z' },
    measurement_quality: 'acceptable',
    descriptive_statistic: 'maximum',
  },
  'omh:forced-expiratory-volume-1-second:1.0': {
    forced_expiratory_volume_1_second: { value: 3.4, unit: 'L' },
    effective_time_frame: { date_time: '2025-03-03T09:00:00Z' },
    measurement_quality: 'usable',
    temporal_relationship_to_physical_activity: 'at rest',
  },
  'ieee:sleep-stage-summary:1.0': {
    sleep_stage_summary: {
      total_sleep_time: { value: 412, unit: 'min' },
      rem_sleep_duration: { value: 95, unit: 'min' },
      deep_sleep_duration: { value: 70, unit: 'min' },
      light_sleep_duration: { value: 247, unit: 'min' },
      number_of_awakenings: 2,
      sleep_efficiency_percentage: { value: 90, unit: '%' },
    },
    sleep_stage_episodes: [
      {
        sleep_stage_state: 'Deep_sleep',
        sleep_stage_time_frame: {
          time_interval: { start_date_time: '2025-03-02T23:30:00Z', duration: { value: 40, unit: 'min' } },
        },
      },
    ],
    effective_time_frame: {
      time_interval: { start_date_time: '2025-03-02T23:10:00Z', end_date_time: '2025-03-03T06:40:00Z' },
    },
    is_main_sleep: true,
  },
  'omh:total-sleep-time:1.0': {
    total_sleep_time: { value: 405, unit: 'min' },
    effective_time_frame: {
      time_interval: { start_date_time: '2025-03-02T23:00:00Z', end_date_time: '2025-03-03T07:00:00Z' },
    },
  },
  'ieee:physical-activity:1.0': {
    activity_name: 'cycling',
    effective_time_frame: {
      time_interval: { start_date_time: '2025-03-04T18:00:00Z', duration: { value: 30, unit: 'min' } },
    },
    base_movement_quantity: { value: 5400, unit: 'steps' },
    distance: { value: 9.5, unit: 'km' },
    average_speed: { value: 19, unit: 'km/h' },
    kcal_burned: { value: 260, unit: 'kcal' },
  },
  'ieee:sleep-episode:1.0': {
    effective_time_frame: {
      time_interval: { start_date_time: '2025-03-02T23:10:00Z', end_date_time: '2025-03-03T06:40:00Z' },
    },
    total_sleep_time: { value: 410, unit: 'min' },
    sleep_efficiency_percentage: { value: 91, unit: '%' },
    is_main_sleep: true,
  },
  'ieee:time-in-bed:1.0': {
    time_in_bed: { value: 480, unit: 'min' },
    effective_time_frame: {
      time_interval: { start_date_time: '2025-03-02T23:00:00Z', end_date_time: '2025-03-03T07:00:00Z' },
    },
  },
  'ieee:food-entry:0.1': {
    food_name: 'oatmeal',
    food_amount: { value: 250, unit: 'g' },
    meal: 'breakfast',
    calories: { value: 180, unit: 'kcal' },
    effective_time_frame: { full_date: '2025-03-04' },
  },
};

/** The ways a payload can state its effective time. */
export const EFFECTIVE_FORMS = [
  'date_time',
  'start_end',
  'start_duration',
  'end_duration',
  'date_part_of_day',
  'full_date',
] as const;
export type EffectiveForm = (typeof EFFECTIVE_FORMS)[number];

/** The form an effective time frame is written in, or undefined for none. */
export function formOf(frame: unknown): EffectiveForm | undefined {
  if (!isObject(frame)) return undefined;
  if (Object.hasOwn(frame, 'date_time')) return 'date_time';
  if (Object.hasOwn(frame, 'full_date')) return 'full_date';
  const interval = frame.time_interval;
  if (!isObject(interval)) return undefined;
  const has = (key: string) => Object.hasOwn(interval, key);
  if (has('start_date_time')) return has('end_date_time') ? 'start_end' : 'start_duration';
  if (has('end_date_time')) return 'end_duration';
  return has('date') ? 'date_part_of_day' : undefined;
}

/** The UTC parts of a day, by quarter (00-06, 06-12, 12-18, 18-24). */
const PART_OF_DAY_BY_QUARTER = ['night', 'morning', 'afternoon', 'evening'];

/**
 * A time frame of `form` starting at `at` (epoch ms) and lasting `spanMinutes`; the date forms
 * name the UTC day (and part of it) that contains `at`.
 */
export function sampleTimeFrame(form: EffectiveForm, at: number, spanMinutes = 15): JsonObject {
  const start = isoInstant(at);
  const end = isoInstant(at + spanMinutes * MS_PER_MINUTE);
  const duration = { value: spanMinutes, unit: 'min' };
  const day = start.slice(0, 10);
  switch (form) {
    case 'date_time':
      return { date_time: start };
    case 'start_end':
      return { time_interval: { start_date_time: start, end_date_time: end } };
    case 'start_duration':
      return { time_interval: { start_date_time: start, duration } };
    case 'end_duration':
      return { time_interval: { end_date_time: end, duration } };
    case 'date_part_of_day':
      return { time_interval: { date: day, part_of_day: PART_OF_DAY_BY_QUARTER[Math.floor((((at % MS_PER_DAY) + MS_PER_DAY) % MS_PER_DAY) / (MS_PER_DAY / 4))] } };
    case 'full_date':
      return { full_date: day };
  }
}

export interface SampleOptions {
  /** `header.uuid`; a random one by default. */
  uuid?: string;
  /** Start of the reading (epoch ms or a Date); the example's own start by default. */
  at?: number | Date;
  /** How to write the effective time; the example's own form (or `date_time`) by default. */
  form?: EffectiveForm;
  /** Length of interval forms; the example's own span, or 15 minutes, by default. */
  spanMinutes?: number;
  /**
   * Body members set over the example's (`{ heart_rate: { value: 134, unit: 'beats/min' } }`), after
   * the time frame; a member set to `undefined` is left out (a CGM reading has no meal relation).
   */
  members?: Readonly<Record<string, unknown>>;
}

function exampleBody(code: string): JsonObject {
  const body = Object.hasOwn(EXAMPLE_BODIES, code) ? EXAMPLE_BODIES[code] : undefined;
  if (!body) throw new Error(`no sample for ${code}`);
  return body;
}

/** A sample body of `code`, moved to `at` and written in `form`. */
export function sampleBody(code: string, options: SampleOptions = {}): JsonObject {
  const example = exampleBody(code);
  const lifted = liftEffectiveTime(example);
  const exampleSpan = lifted ? (lifted.end - lifted.start) / MS_PER_MINUTE : 0;
  const at = options.at === undefined ? (lifted?.start ?? Date.UTC(2025, 2, 1, 8)) : Number(options.at);
  const body = moveDateTimes(example, lifted ? at - lifted.start : 0) as JsonObject;
  const form = options.form ?? formOf(example.effective_time_frame) ?? 'date_time';
  body.effective_time_frame = sampleTimeFrame(form, at, options.spanMinutes ?? (exampleSpan || 15));
  for (const [name, value] of Object.entries(options.members ?? {})) {
    if (value === undefined) delete body[name];
    else body[name] = value;
  }
  return body;
}

/** A deep copy of `value` with every `…date_time` member moved by `deltaMs` (written in UTC). */
function moveDateTimes(value: unknown, deltaMs: number, key = ''): unknown {
  if (Array.isArray(value)) return value.map((item) => moveDateTimes(item, deltaMs));
  if (isObject(value)) {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, moveDateTimes(v, deltaMs, k)]));
  }
  if (key.endsWith('date_time') && typeof value === 'string') {
    const parsed = parseDateTime(value);
    if (typeof parsed !== 'string') return isoInstant(parsed.ms + deltaMs);
  }
  return value;
}

/** A valid payload of `code`: IEEE 1752 header naming the code's schema, and a sample body. */
export function samplePayload(code: string, options: SampleOptions = {}): OmhPayload {
  const schema = schemaForCode(code);
  if (!schema) throw new Error(`no schema for ${code}`);
  const body = sampleBody(code, options);
  const effective = liftEffectiveTime(body);
  return {
    header: {
      uuid: options.uuid ?? randomUUID(),
      schema_id: { namespace: schema.namespace, name: schema.name, version: schema.version },
      // When the reading was made: the end of its time frame, but never later than now.
      source_creation_date_time: isoInstant(effective ? Math.min(effective.end, Date.now()) : Date.now()),
      modality: 'sensed',
    },
    body,
  };
}

/** Base64 of a payload's JSON, as `valueAttachment.data` carries it. */
export function encodePayload(payload: unknown): string {
  return Buffer.from(JSON.stringify(payload), 'utf8').toString('base64');
}

/** The `valueAttachment` of an Observation carrying a sample payload of `code`. */
export function sampleAttachment(code: string, options: SampleOptions = {}): { contentType: string; data: string } {
  return { contentType: 'application/json', data: encodePayload(samplePayload(code, options)) };
}

const formsByCode = new Map<string, EffectiveForm[]>();

/** The effective-time forms the schema of `code` accepts (found by validating a sample of each). */
export function formsFor(code: string): readonly EffectiveForm[] {
  let forms = formsByCode.get(code);
  if (!forms) {
    const { body } = schemaForCode(code) ?? {};
    forms = body ? EFFECTIVE_FORMS.filter((form) => issuesOf(body, sampleBody(code, { form }), 'body').length === 0) : [];
    formsByCode.set(code, forms);
  }
  return forms;
}

/** Every supported code, in code-table order. */
export const SAMPLE_CODES: readonly string[] = PAYLOAD_SCHEMAS.map((schema) => schema.code);
