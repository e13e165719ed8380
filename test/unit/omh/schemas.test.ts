/**
 * Body schemas, checked against the facts of the payload schemas (docs/payloads.md), written
 * out here independently of the implementation so that a wrong list in the code fails a test.
 */
import { describe, expect, it } from 'vitest';
import { PAYLOAD_SCHEMAS, parseSchemaCode, schemaForCode } from '../../../shared/omh/schemas/index';
import type { JsonObject } from '../../../shared/json';
import { issuesOf } from '../../../shared/omh/schemas/validate';
import { EXAMPLE_BODIES } from '../../../shared/omh/samples';

const DURATION = ['ps', 'ns', 'us', 'ms', 'sec', 'min', 'h', 'd', 'wk', 'Mo', 'yr'];
const MASS = ['fg', 'pg', 'ng', 'ug', 'mg', 'g', 'kg', 'Metric Ton', 'gr', 'oz', 'lb', 'Ton'];
const LENGTH = ['fm', 'pm', 'nm', 'um', 'mm', 'cm', 'm', 'km', 'in', 'ft', 'yd', 'mi'];
const DS17 = [
  'average', 'count', 'maximum', 'median', 'minimum', 'standard deviation', 'sum', 'variance', '20th percentile',
  '80th percentile', 'lower quartile', 'upper quartile', 'quartile deviation', '1st quintile', '2nd quintile',
  '3rd quintile', '4th quintile',
];
const DS7 = ['average', 'maximum', 'minimum', 'standard deviation', 'variance', 'sum', 'median'];
const TRPA = ['at rest', 'active', 'before exercise', 'after exercise', 'during exercise'];
const TRS = ['before sleeping', 'during sleep', 'on waking'];
const INTENSITY = ['light', 'moderate', 'vigorous'];

interface Facts {
  required: string[];
  units: Record<string, string[]>;
  enums: Record<string, string[]>;
}

const FACTS: Record<string, Facts> = {
  'omh:blood-pressure:4.0': {
    required: ['systolic_blood_pressure', 'diastolic_blood_pressure', 'effective_time_frame'],
    units: { systolic_blood_pressure: ['mmHg'], diastolic_blood_pressure: ['mmHg'] },
    enums: {
      body_posture: ['sitting', 'lying down', 'standing', 'semi-recumbent'],
      measurement_location: [
        'left ankle', 'right ankle', 'left hip', 'right hip', 'left thigh', 'right thigh', 'left thorax',
        'middle left thorax', 'left upper arm', 'right upper arm', 'left wrist', 'right wrist',
      ],
      descriptive_statistic: DS17,
      temporal_relationship_to_physical_activity: TRPA,
    },
  },
  'omh:blood-glucose:4.0': {
    required: ['blood_glucose', 'effective_time_frame'],
    units: { blood_glucose: ['mg/dL', 'mmol/L'] },
    enums: {
      specimen_source: ['breath', 'capillary blood', 'interstitial fluid', 'saliva', 'sweat', 'tears', 'urine'],
      temporal_relationship_to_meal: [
        'fasting', 'not fasting', 'before meal', 'after meal', 'before breakfast', 'after breakfast', 'before lunch',
        'after lunch', 'before dinner', 'after dinner', '2 hours postprandial', 'with meal', 'with food',
      ],
      temporal_relationship_to_sleep: TRS,
      descriptive_statistic: DS17,
    },
  },
  'omh:body-temperature:4.0': {
    required: ['body_temperature', 'effective_time_frame'],
    units: { body_temperature: ['K', 'F', 'C'] },
    enums: {
      measurement_location: [
        'axillary', 'finger', 'forehead', 'oral', 'rectal', 'temporal artery', 'toe', 'tympanic', 'wrist', 'vagina',
      ],
      temporal_relationship_to_sleep: TRS,
      descriptive_statistic: DS17,
    },
  },
  'omh:body-weight:3.0': {
    required: ['body_weight', 'effective_time_frame'],
    units: { body_weight: MASS },
    enums: { descriptive_statistic: DS17 },
  },
  'omh:heart-rate:2.0': {
    required: ['heart_rate', 'effective_time_frame'],
    units: { heart_rate: ['beats/min'] },
    enums: { descriptive_statistic: DS17, temporal_relationship_to_physical_activity: TRPA, temporal_relationship_to_sleep: TRS },
  },
  'omh:oxygen-saturation:2.0': {
    required: ['oxygen_saturation', 'effective_time_frame'],
    units: { oxygen_saturation: ['%'], supplemental_oxygen_flow_rate: ['L/min'] },
    enums: {
      system: ['peripheral capillary'],
      oxygen_therapy_mode_of_administration: ['nasal cannula'],
      measurement_method: ['pulse oximetry'],
      descriptive_statistic: DS17,
    },
  },
  'omh:respiratory-rate:2.0': {
    required: ['respiratory_rate', 'effective_time_frame'],
    units: { respiratory_rate: ['breaths/min'] },
    enums: { descriptive_statistic: DS17, temporal_relationship_to_physical_activity: TRPA },
  },
  'omh:rr-interval:1.0': {
    required: ['rr_interval'],
    units: { rr_interval: ['ms'] },
    enums: { descriptive_statistic: DS17, temporal_relationship_to_physical_activity: TRPA },
  },
  'omh:physical-activity:1.2': {
    required: ['activity_name'],
    units: { distance: LENGTH, kcal_burned: ['kcal'] },
    enums: { reported_activity_intensity: INTENSITY },
  },
  'omh:step-count:3.0': {
    required: ['step_count', 'effective_time_frame'],
    units: { step_count: ['steps'] },
    enums: { descriptive_statistic: DS7 },
  },
  'omh:sleep-episode:1.1': {
    required: ['effective_time_frame'],
    units: {
      latency_to_sleep_onset: DURATION,
      latency_to_arising: DURATION,
      total_sleep_time: DURATION,
      wake_after_sleep_onset: DURATION,
      sleep_maintenance_efficiency_percentage: ['%'],
    },
    enums: {},
  },
  'omh:sleep-duration:2.0': {
    required: ['sleep_duration', 'effective_time_frame'],
    units: { sleep_duration: ['sec', 'min', 'h'] },
    enums: { descriptive_statistic: DS17 },
  },
  'omh:forced-vital-capacity:1.0': {
    required: ['forced_vital_capacity', 'effective_time_frame'],
    units: { forced_vital_capacity: ['L'] },
    enums: {
      measurement_quality: ['acceptable', 'usable', 'rejected'],
      descriptive_statistic: DS17,
      temporal_relationship_to_physical_activity: TRPA,
    },
  },
  'omh:forced-expiratory-volume-1-second:1.0': {
    required: ['forced_expiratory_volume_1_second', 'effective_time_frame'],
    units: { forced_expiratory_volume_1_second: ['L'] },
    enums: {
      measurement_quality: ['acceptable', 'usable', 'rejected'],
      descriptive_statistic: DS17,
      temporal_relationship_to_physical_activity: TRPA,
    },
  },
  'ieee:sleep-stage-summary:1.0': {
    required: ['sleep_stage_summary', 'effective_time_frame', 'sleep_stage_summary.total_sleep_time'],
    units: {
      'sleep_stage_summary.total_sleep_time': DURATION,
      'sleep_stage_summary.sleep_efficiency_percentage': ['%'],
      'sleep_stage_summary.rem_sleep_percentage': ['%'],
      'sleep_stage_summary.light_sleep_percentage': ['%'],
      'sleep_stage_summary.deep_sleep_percentage': ['%'],
      'sleep_stage_summary.awake_percentage': ['%'],
      'sleep_stage_summary.latency_to_sleep_onset': DURATION,
      'sleep_stage_summary.latency_to_arising': DURATION,
      'sleep_stage_summary.rem_sleep_duration': DURATION,
      'sleep_stage_summary.light_sleep_duration': DURATION,
      'sleep_stage_summary.deep_sleep_duration': DURATION,
      'sleep_stage_summary.awake_duration': DURATION,
    },
    enums: {
      'sleep_stage_episodes.0.sleep_stage_state': ['REM_sleep', 'Light_sleep', 'Deep_sleep', 'Unknown_sleep', 'Awake'],
      'sleep_stage_summary.descriptive_statistic': DS17,
    },
  },
  'omh:total-sleep-time:1.0': {
    required: ['total_sleep_time', 'effective_time_frame'],
    units: { total_sleep_time: DURATION },
    enums: { descriptive_statistic: DS17 },
  },
  'ieee:physical-activity:1.0': {
    required: ['activity_name', 'effective_time_frame'],
    units: {
      distance: LENGTH,
      cumulative_elevation_gain: LENGTH,
      duration: DURATION,
      duration_light_activity: DURATION,
      duration_moderate_activity: DURATION,
      duration_vigorous_activity: DURATION,
      average_speed: ['m/s', 'km/h'],
      kcal_burned: ['kcal'],
    },
    enums: { reported_activity_intensity: INTENSITY, descriptive_statistic: DS17 },
  },
  'ieee:sleep-episode:1.0': {
    required: ['effective_time_frame'],
    units: {
      latency_to_sleep_onset: DURATION,
      latency_to_arising: DURATION,
      total_sleep_time: DURATION,
      light_sleep_duration: DURATION,
      deep_sleep_duration: DURATION,
      rem_sleep_duration: DURATION,
      wake_after_sleep_onset: DURATION,
      sleep_efficiency_percentage: ['%'],
    },
    enums: {},
  },
  'ieee:time-in-bed:1.0': {
    required: ['time_in_bed', 'effective_time_frame'],
    units: { time_in_bed: DURATION },
    enums: { descriptive_statistic: DS17 },
  },
  'ieee:food-entry:0.1': {
    required: ['food_name', 'food_amount', 'effective_time_frame'],
    units: Object.fromEntries([
      ...['protein', 'carbohydrate', 'fat', 'saturated_fat', 'cholesterol', 'sodium', 'potassium', 'fiber', 'sugar'].map(
        (m) => [m, MASS],
      ),
      ['calories', ['kcal']],
    ]),
    enums: { meal: ['breakfast', 'lunch', 'dinner', 'snack'] },
  },
};

const CODES = Object.keys(FACTS);

const copy = <T>(value: T): T => structuredClone(value);
const example = (code: string): JsonObject => copy(EXAMPLE_BODIES[code]!);

/** `body` with `path` (dotted, array indices as numbers) set to `value`, or removed for undefined. */
function withMember(body: JsonObject, path: string, value: unknown): JsonObject {
  const keys = path.split('.');
  let at: Record<string, unknown> = body;
  for (const key of keys.slice(0, -1)) {
    at[key] ??= {};
    at = at[key] as Record<string, unknown>;
  }
  const last = keys[keys.length - 1]!;
  if (value === undefined) delete at[last];
  else at[last] = value;
  return body;
}

function issues(code: string, body: unknown) {
  const schema = schemaForCode(code);
  if (!schema) throw new Error(`no schema for ${code}`);
  return issuesOf(schema.body, body, 'body');
}

const passes = (code: string, body: unknown) => expect(issues(code, body)).toEqual([]);
/** Expects an issue at `path` (dotted; numeric segments are array indices, written `[n]` by the validators). */
const failsAt = (code: string, body: unknown, dotted: string, message?: RegExp) => {
  const path = dotted.replace(/\.([0-9]+)(?=\.|$)/g, '[$1]');
  const found = issues(code, body);
  expect(found.map((i) => i.path)).toContain(path);
  if (message) expect(found.find((i) => i.path === path)?.message).toMatch(message);
};

describe('the schema registry', () => {
  it('has a schema for every code of the reference notes, and no other', () => {
    expect(PAYLOAD_SCHEMAS.map((s) => s.code).sort()).toEqual([...CODES].sort());
  });

  it('looks codes up exactly; unknown codes and namespaces have none', () => {
    expect(schemaForCode('omh:heart-rate:2.0')?.display).toBe('Heart Rate');
    expect(schemaForCode('ieee:sleep-episode:1.0')).toMatchObject({ namespace: 'ieee', name: 'sleep-episode', version: '1.0' });
    for (const code of ['omh:heart-rate:1.0', 'omh:heart-rate', 'OMH:heart-rate:2.0', 'fhir:heart-rate:2.0', 'QuestionnaireResponse', '']) {
      expect(schemaForCode(code)).toBeUndefined();
    }
    expect(parseSchemaCode('omh:forced-expiratory-volume-1-second:1.0')).toEqual({
      namespace: 'omh',
      name: 'forced-expiratory-volume-1-second',
      version: '1.0',
    });
    expect(parseSchemaCode('x:heart-rate:2.0')).toBeUndefined();
  });
});

describe.each(CODES)('%s', (code) => {
  const facts = FACTS[code]!;

  it('accepts its example body', () => passes(code, example(code)));

  it('accepts unknown members at the top and inside members', () => {
    const body = example(code);
    body.vendor_extension = { anything: [1, 'two'] };
    for (const member of Object.keys(facts.units)) withMember(body, member, { value: 1, unit: facts.units[member]![0], note: 'x' });
    passes(code, body);
  });

  it.each(facts.required)('requires %s', (member) => {
    failsAt(code, withMember(example(code), member, undefined), `body.${member}`, /is required/);
  });

  it('requires nothing else', () => {
    const body = example(code);
    for (const member of Object.keys(body)) if (!facts.required.includes(member)) delete body[member];
    passes(code, body);
  });

  it('must be an object', () => {
    for (const bad of [[], 'x', 1, null]) failsAt(code, bad, 'body', /must be an object/);
  });

  for (const [member, units] of Object.entries(facts.units)) {
    it(`${member}: accepts exactly the units ${units.join(', ')}`, () => {
      for (const unit of units) passes(code, withMember(example(code), member, { value: 1.5, unit }));
      for (const unit of ['', 'bogus', units[0]!.toUpperCase() === units[0] ? units[0]!.toLowerCase() : units[0]!.toUpperCase()]) {
        if (units.includes(unit)) continue;
        failsAt(code, withMember(example(code), member, { value: 1, unit }), `body.${member}.unit`, /must be one of/);
      }
    });

    it(`${member}: needs a numeric value and a unit`, () => {
      failsAt(code, withMember(example(code), member, { value: '1', unit: units[0] }), `body.${member}.value`, /number/);
      failsAt(code, withMember(example(code), member, { value: null, unit: units[0] }), `body.${member}.value`, /number/);
      failsAt(code, withMember(example(code), member, { unit: units[0] }), `body.${member}.value`, /is required/);
      failsAt(code, withMember(example(code), member, { value: 1 }), `body.${member}.unit`, /is required/);
      failsAt(code, withMember(example(code), member, 1), `body.${member}`, /object/);
    });
  }

  for (const [member, values] of Object.entries(facts.enums)) {
    it(`${member}: accepts exactly ${values.length} values`, () => {
      for (const value of values) passes(code, withMember(example(code), member, value));
      for (const bad of [values[0]!.toUpperCase(), ` ${values[0]}`, 'nth percentile', 1, null]) {
        failsAt(code, withMember(example(code), member, bad), `body.${member}`, /must be one of/);
      }
    });
  }
});

describe('negative cases', () => {
  const partOfDay = { time_interval: { date: '2025-03-02', part_of_day: 'morning' } };
  const dateTime = { date_time: '2025-03-02T07:00:00Z' };
  const withFrame = (code: string, frame: unknown) => withMember(example(code), 'effective_time_frame', copy(frame));

  it.each([
    'omh:blood-pressure:4.0', 'omh:blood-glucose:4.0', 'omh:body-temperature:4.0', 'omh:body-weight:3.0',
    'omh:forced-vital-capacity:1.0', 'omh:forced-expiratory-volume-1-second:1.0', 'ieee:sleep-stage-summary:1.0',
    'ieee:physical-activity:1.0', 'ieee:sleep-episode:1.0', 'ieee:time-in-bed:1.0',
  ])('%s (IEEE time frame) rejects date + part_of_day', (code) => {
    failsAt(code, withFrame(code, partOfDay), 'body.effective_time_frame.time_interval', /date \+ part_of_day is not allowed/);
  });

  it.each([
    'omh:heart-rate:2.0', 'omh:oxygen-saturation:2.0', 'omh:respiratory-rate:2.0', 'omh:rr-interval:1.0',
    'omh:physical-activity:1.2', 'omh:step-count:3.0', 'omh:sleep-episode:1.1', 'omh:sleep-duration:2.0',
    'omh:total-sleep-time:1.0',
  ])('%s (OMH time frame) accepts date + part_of_day', (code) => {
    passes(code, withFrame(code, partOfDay));
  });

  it.each([
    'omh:step-count:3.0', 'omh:sleep-episode:1.1', 'omh:sleep-duration:2.0', 'ieee:sleep-stage-summary:1.0',
    'omh:total-sleep-time:1.0', 'ieee:physical-activity:1.0', 'ieee:sleep-episode:1.0', 'ieee:time-in-bed:1.0',
  ])('%s (interval only) rejects a date_time', (code) => {
    failsAt(code, withFrame(code, dateTime), 'body.effective_time_frame.time_interval', /time interval, not a single date_time/);
    failsAt(code, withFrame(code, {}), 'body.effective_time_frame.time_interval', /^is required$/);
  });

  it.each(CODES)('%s rejects start+end+duration, date_time with time_interval, and {}', (code) => {
    const interval = {
      start_date_time: '2025-03-02T07:00:00Z',
      end_date_time: '2025-03-02T08:00:00Z',
      duration: { value: 1, unit: 'h' },
    };
    failsAt(code, withFrame(code, { time_interval: interval }), 'body.effective_time_frame.time_interval', /exactly one/);
    const both = { date_time: '2025-03-02T07:00:00Z', time_interval: { start_date_time: '2025-03-02T07:00:00Z', end_date_time: '2025-03-02T08:00:00Z' } };
    expect(issues(code, withFrame(code, both)).length).toBeGreaterThan(0);
    expect(issues(code, withFrame(code, {})).length).toBeGreaterThan(0);
  });

  it('start + end + date + part_of_day fails the Open mHealth time frame', () => {
    const frame = { time_interval: { start_date_time: '2025-03-02T07:00:00Z', end_date_time: '2025-03-02T08:00:00Z', date: '2025-03-02', part_of_day: 'morning' } };
    failsAt('omh:heart-rate:2.0', withFrame('omh:heart-rate:2.0', frame), 'body.effective_time_frame.time_interval', /exactly one/);
  });

  it('descriptive_statistic count: step-count (1.0 list) fails, heart-rate passes', () => {
    failsAt('omh:step-count:3.0', withMember(example('omh:step-count:3.0'), 'descriptive_statistic', 'count'), 'body.descriptive_statistic');
    passes('omh:heart-rate:2.0', withMember(example('omh:heart-rate:2.0'), 'descriptive_statistic', 'count'));
  });

  it('heart_rate as a string or in bpm fails; -5 and extra members pass', () => {
    const hr = 'omh:heart-rate:2.0';
    failsAt(hr, withMember(example(hr), 'heart_rate', { value: '58', unit: 'beats/min' }), 'body.heart_rate.value', /must be a number/);
    failsAt(hr, withMember(example(hr), 'heart_rate', { value: 58, unit: 'bpm' }), 'body.heart_rate.unit', /must be one of beats\/min$/);
    passes(hr, withMember(example(hr), 'heart_rate', { value: -5, unit: 'beats/min', device_note: 'x' }));
  });

  it.each([
    ['omh:rr-interval:1.0', 'rr_interval', 'sec'],
    ['omh:sleep-duration:2.0', 'sleep_duration', 'd'],
    ['omh:body-weight:3.0', 'body_weight', 'lbs'],
    ['omh:body-temperature:4.0', 'body_temperature', '°C'],
    ['omh:blood-glucose:4.0', 'blood_glucose', 'MGDL'],
    ['omh:forced-vital-capacity:1.0', 'forced_vital_capacity', 'mL'],
  ])('%s: %s in %s fails', (code, member, unit) => {
    failsAt(code, withMember(example(code), member, { value: 1, unit }), `body.${member}.unit`, /must be one of/);
  });

  it('body_weight in lb passes', () => passes('omh:body-weight:3.0', withMember(example('omh:body-weight:3.0'), 'body_weight', { value: 160, unit: 'lb' })));

  it('integer members: 2 (also written 2.0) passes, 2.5 and "2" fail', () => {
    for (const [code, member] of [
      ['omh:sleep-episode:1.1', 'number_of_awakenings'],
      ['ieee:sleep-episode:1.0', 'number_of_awakenings'],
      ['ieee:sleep-stage-summary:1.0', 'sleep_stage_summary.rem_sleep_episode_count'],
    ] as const) {
      passes(code, withMember(example(code), member, JSON.parse('2.0')));
      failsAt(code, withMember(example(code), member, 2.5), `body.${member}`, /integer/);
      failsAt(code, withMember(example(code), member, '2'), `body.${member}`, /integer/);
    }
  });

  it('booleans are JSON booleans', () => {
    failsAt('omh:sleep-episode:1.1', withMember(example('omh:sleep-episode:1.1'), 'is_main_sleep', 'true'), 'body.is_main_sleep', /true or false/);
  });

  it('physical-activity 1.2 passes without a time frame (and with an empty name)', () => {
    const body = withMember(example('omh:physical-activity:1.2'), 'effective_time_frame', undefined);
    passes('omh:physical-activity:1.2', withMember(body, 'activity_name', ''));
    failsAt('omh:physical-activity:1.2', withMember(body, 'met_value', '3.5'), 'body.met_value', /number/);
  });

  it('sleep_stage_state rem fails; a summary without total_sleep_time fails', () => {
    const code = 'ieee:sleep-stage-summary:1.0';
    failsAt(code, withMember(example(code), 'sleep_stage_episodes.0.sleep_stage_state', 'rem'), 'body.sleep_stage_episodes[0].sleep_stage_state');
    failsAt(code, withMember(example(code), 'sleep_stage_summary.total_sleep_time', undefined), 'body.sleep_stage_summary.total_sleep_time', /is required/);
    failsAt(code, withMember(example(code), 'sleep_stage_episodes.0.sleep_stage_time_frame', dateTime), 'body.sleep_stage_episodes[0].sleep_stage_time_frame.time_interval');
    failsAt(code, withMember(example(code), 'sleep_stage_episodes', {}), 'body.sleep_stage_episodes', /array/);
  });

  it.each(['omh:heart-rate:2.0', 'omh:blood-pressure:4.0'])('%s: an impossible or offset-less date_time fails', (code) => {
    failsAt(code, withFrame(code, { date_time: '2025-02-30T10:00:00Z' }), 'body.effective_time_frame.date_time', /does not exist/);
    failsAt(code, withFrame(code, { date_time: '2025-03-01T10:00:00' }), 'body.effective_time_frame.date_time', /offset/);
    failsAt(code, withFrame(code, { date_time: 1740823200000 }), 'body.effective_time_frame.date_time', /string/);
    const interval = { time_interval: { start_date_time: '2025-04-31T10:00:00Z', duration: { value: 1, unit: 'h' } } };
    failsAt(code, withFrame(code, interval), 'body.effective_time_frame.time_interval.start_date_time', /does not exist/);
  });

  it('an impossible date with part_of_day fails; an unknown part of day fails', () => {
    const hr = 'omh:heart-rate:2.0';
    failsAt(hr, withFrame(hr, { time_interval: { date: '2025-02-30', part_of_day: 'night' } }), 'body.effective_time_frame.time_interval.date', /does not exist/);
    failsAt(hr, withFrame(hr, { time_interval: { date: '2025-02-03', part_of_day: 'noon' } }), 'body.effective_time_frame.time_interval.part_of_day', /must be one of/);
  });

  it('a duration with an unknown unit fails', () => {
    const code = 'omh:respiratory-rate:2.0';
    const frame = { time_interval: { start_date_time: '2025-03-02T01:00:00Z', duration: { value: 6, unit: 'hours' } } };
    failsAt(code, withFrame(code, frame), 'body.effective_time_frame.time_interval.duration.unit', /must be one of ps, ns, us, ms, sec, min, h, d, wk, Mo, yr/);
  });
});

describe('ieee:food-entry:0.1 (exactly-one-of members)', () => {
  const code = 'ieee:food-entry:0.1';
  const amount = (value: unknown) => withMember(example(code), 'food_amount', value);
  const frame = (value: unknown) => withMember(example(code), 'effective_time_frame', value);

  it('food_amount: a mass, a volume, or a bare value', () => {
    passes(code, amount({ value: 250, unit: 'g' }));
    passes(code, amount({ value: 0.25, unit: 'L' }));
    passes(code, amount({ value: 1 }));
    failsAt(code, amount({ value: 1, unit: 'slices' }), 'body.food_amount', /must be exactly one of/);
    failsAt(code, amount({ value: '1' }), 'body.food_amount.value', /number/);
    failsAt(code, amount({ value: 1, extra: true }), 'body.food_amount', /must be exactly one of/);
  });

  it('effective_time_frame: an IEEE time frame or a full_date, not both', () => {
    passes(code, frame({ date_time: '2025-03-04T08:00:00Z' }));
    passes(code, frame({ time_interval: { start_date_time: '2025-03-04T08:00:00Z', duration: { value: 10, unit: 'min' } } }));
    failsAt(code, frame({ full_date: '2025-02-30' }), 'body.effective_time_frame.full_date', /does not exist/);
    failsAt(code, frame({ date_time: '2025-03-04T08:00:00Z', full_date: '2025-03-04' }), 'body.effective_time_frame', /more than one/);
    failsAt(code, frame({ time_interval: { start_date_time: '2025-03-04T08:00:00Z' } }), 'body.effective_time_frame.time_interval', /exactly one of/);
    failsAt(code, frame({}), 'body.effective_time_frame', /must be exactly one of/);
  });
});
