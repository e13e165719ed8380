import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { build } from 'esbuild';
import { afterEach, describe, expect, it } from 'vitest';
import {
  compileQuantities, DOCS_END, DOCS_START, PAYLOADS_DOC, QUANTITIES_JSON, withQuantitiesSection,
} from '../../../scripts/omh-quantities';
import { resetConfig } from '../../../shared/config';
import {
  canonicalOf, canonicalOfAny, codedSpecimen, codingOf, followsSpecimen, liftQuantities, memberCodingOf, observationCodingOf, observationCodings, SCHEMA_QUANTITIES,
  schemaQuantities, specimenOf, ucumOf, UCUM_SYSTEM, type CanonicalUnit,
} from '../../../shared/omh/quantities';
import { STANDARD_CODES, type CodedMember, type SchemaCodes } from '../../../shared/omh/quantities/standard-codes';
import { isValidUcum } from '../../../shared/omh/quantities/ucum-library';
import { OMH_UCUM_UNITS } from '../../../shared/omh/quantities/ucum-units';
import { EXAMPLE_BODIES } from '../../../shared/omh/samples';
import { unitValue } from '../../../shared/omh/schemas/blocks';
import { PAYLOAD_SCHEMAS } from '../../../shared/omh/schemas/index';
import { issuesOf, object, opt, type Validator } from '../../../shared/omh/schemas/validate';

const toCanonical = (value: number, form: CanonicalUnit) => value * form.factor + form.offset;
const fromCanonical = (value: number, form: CanonicalUnit) => (value - form.offset) / form.factor;
const inputs = { schemas: PAYLOAD_SCHEMAS, codes: STANDARD_CODES, units: OMH_UCUM_UNITS };

describe('the generated table of quantities', () => {
  it('is current: shared/omh/generated/quantities.json and the table in docs/payloads.md are what npm run omh:quantities writes', () => {
    const { json, docs } = compileQuantities();
    expect(readFileSync(QUANTITIES_JSON, 'utf8')).toBe(json);
    const document = readFileSync(PAYLOADS_DOC, 'utf8');
    expect(document).toContain(DOCS_START);
    expect(document).toContain(DOCS_END);
    expect(withQuantitiesSection(document, docs)).toBe(document);
  });

  it('is complete: a unit-value of a schema missing from the table fails, naming it', () => {
    const codes = STANDARD_CODES.map((entry): SchemaCodes =>
      entry.code === 'omh:oxygen-saturation:2.0' ? { ...entry, members: entry.members.slice(0, 1) } : entry,
    );
    expect(() => compileQuantities({ ...inputs, codes })).toThrow(/omh:oxygen-saturation:2.0: unit-value supplemental_oxygen_flow_rate is missing/);
  });

  it('is complete: a member a schema gains fails until the table lists it', () => {
    const heartRate = PAYLOAD_SCHEMAS.find((schema) => schema.code === 'omh:heart-rate:2.0')!;
    const grown = { ...heartRate, body: object({ ...Object.fromEntries(heartRate.body.declared!), peak: opt(unitValue(['beats/min'])) }) };
    const schemas = PAYLOAD_SCHEMAS.map((schema) => (schema === heartRate ? grown : schema));
    expect(() => compileQuantities({ ...inputs, schemas })).toThrow(/omh:heart-rate:2.0: unit-value peak is missing/);
  });

  it('is complete: a table entry naming a member no schema has fails, and so does a schema with no entry', () => {
    const codes = STANDARD_CODES.map((entry): SchemaCodes =>
      entry.code === 'omh:heart-rate:2.0' ? { ...entry, members: [...entry.members, { path: 'resting_heart_rate', coding: 'own' }] } : entry,
    );
    expect(() => compileQuantities({ ...inputs, codes })).toThrow(/the table names resting_heart_rate, which is no unit-value/);
    const fewer = STANDARD_CODES.filter((entry) => entry.code !== 'ieee:time-in-bed:1.0');
    expect(() => compileQuantities({ ...inputs, codes: fewer })).toThrow(/ieee:time-in-bed:1.0: no entry/);
  });

  it('fails on an allowed unit with no UCUM code, and on a UCUM code the library does not know', () => {
    const units = OMH_UCUM_UNITS.filter(([omh]) => omh !== 'mmHg');
    expect(() => compileQuantities({ ...inputs, units })).toThrow(/systolic_blood_pressure: unit mmHg has no UCUM code/);
    const wrong = OMH_UCUM_UNITS.map(([omh, ucum]) => [omh, omh === 'lb' ? '[lb]' : ucum] as const);
    expect(() => compileQuantities({ ...inputs, units: wrong })).toThrow(/\[lb\]: not a UCUM code/);
  });

  it('covers every supported schema, in the code table order', () => {
    expect(SCHEMA_QUANTITIES.map((schema) => schema.code)).toEqual(PAYLOAD_SCHEMAS.map((schema) => schema.code));
    for (const schema of SCHEMA_QUANTITIES) {
      expect(schema.members.length).toBeGreaterThan(0);
      expect(schemaQuantities(schema.code)).toBe(schema);
    }
    expect(schemaQuantities('omh:nope:1.0')).toBeUndefined();
  });

  it('codes each observation with its standard code and names its principal value', () => {
    const heartRate = schemaQuantities('omh:heart-rate:2.0')!;
    expect(heartRate.coding).toEqual({ system: 'http://loinc.org', code: '8867-4', display: 'Heart rate' });
    expect(heartRate.principal).toBe(0);
    expect(heartRate.members[0]!.coding).toEqual(heartRate.coding);
    const pressure = schemaQuantities('omh:blood-pressure:4.0')!;
    expect(pressure.coding?.code).toBe('85354-9');
    expect(pressure.principal).toBeUndefined();
    expect(pressure.members.map((m) => [m.path, m.coding.code, m.units])).toEqual([
      ['systolic_blood_pressure', '8480-6', ['mmHg']],
      ['diastolic_blood_pressure', '8462-4', ['mmHg']],
    ]);
    expect(schemaQuantities('omh:step-count:3.0')!.coding?.code).toBe('55423-8');
    expect(schemaQuantities('omh:body-weight:3.0')!.coding?.code).toBe('29463-7');
    expect(schemaQuantities('omh:sleep-duration:2.0')!.coding?.code).toBe('93832-4');
    const summary = schemaQuantities('ieee:sleep-stage-summary:1.0')!;
    expect(summary.members[0]).toMatchObject({ path: 'sleep_stage_summary.total_sleep_time', coding: { code: '93832-4' } });
  });

  it('gives the food amount both unit lists, and the free-text members no list', () => {
    const food = schemaQuantities('ieee:food-entry:0.1')!;
    expect(food.members[0]!.units).toEqual(expect.arrayContaining(['g', 'lb', 'mL', 'fl oz', 'Cup']));
    const activity = schemaQuantities('ieee:physical-activity:1.0')!;
    expect(activity.members.filter((m) => m.units === undefined).map((m) => m.path)).toEqual(['base_movement_quantity', 'average_cadence']);
  });
});

describe('codings that follow what was measured (blood glucose)', () => {
  const glucose = schemaQuantities('omh:blood-glucose:4.0')!;
  const code = (unit: string | undefined, specimen?: string) => memberCodingOf(glucose, 0, unit, specimen).code;

  it('picks the code by the unit\'s dimension and the specimen: capillary blood, interstitial fluid, else blood', () => {
    expect(glucose.codedAsPrincipal).toBe(true);
    expect(glucose.specimen).toBe('specimen_source');
    expect([code('mg/dL', 'capillary blood'), code('mmol/L', 'capillary blood')]).toEqual(['41653-7', '14743-9']);
    expect([code('mg/dL', 'interstitial fluid'), code('mmol/L', 'interstitial fluid')]).toEqual(['99504-3', '105272-9']);
    expect([code('mg/dL'), code('mmol/L')]).toEqual(['2339-0', '15074-8']);
    expect([code('mg/dL', 'saliva'), code('mmol/L', 'urine')]).toEqual(['2339-0', '15074-8']);
    // By dimension, not by the label: the canonical unit itself (a statistic's unit group) picks the same.
    expect([code('m-3.g', 'capillary blood'), code('m-3'), code('m-3', 'interstitial fluid')]).toEqual(['41653-7', '15074-8', '105272-9']);
    // A unit of neither dimension, or none known: the member's coding.
    expect([code(undefined, 'capillary blood'), code('kg'), code('strides')]).toEqual(['2339-0', '2339-0', '2339-0']);
  });

  it('codes the observation as its principal value, and every other schema as before', () => {
    const values = [{ member: 0, value: 6.7, unit: 'mmol/L' }];
    expect(observationCodingOf(glucose, values, 'interstitial fluid')).toEqual({ system: 'http://loinc.org', code: '105272-9', display: 'Glucose [Moles/volume] in Interstitial fluid' });
    expect(observationCodingOf(glucose, [], 'interstitial fluid')?.code).toBe('2339-0');
    const heartRate = schemaQuantities('omh:heart-rate:2.0')!;
    expect(observationCodingOf(heartRate, [{ member: 0, value: 60, unit: 'beats/min' }], undefined)).toEqual(heartRate.coding);
    expect(observationCodingOf(schemaQuantities('omh:blood-pressure:4.0')!, [], undefined)?.code).toBe('85354-9');
    expect(observationCodings(glucose).map((c) => c.code)).toEqual(['2339-0', '15074-8', '41653-7', '14743-9', '99504-3', '105272-9']);
    expect(observationCodings(heartRate)).toEqual([heartRate.coding]);
    expect(SCHEMA_QUANTITIES.filter(followsSpecimen).map((s) => s.code)).toEqual(['omh:blood-glucose:4.0']);
  });

  it('answers the coding of a member by schema code, unit and specimen (for the statistics of a unit group)', () => {
    expect(codingOf('omh:blood-glucose:4.0', 0, 'm-3')?.code).toBe('15074-8');
    expect(codingOf('omh:blood-glucose:4.0', 0, 'm-3.g', 'capillary blood')?.code).toBe('41653-7');
    expect(codingOf('omh:blood-pressure:4.0', 1, 'm-1.s-2.g')?.code).toBe('8462-4');
    expect(codingOf('omh:blood-glucose:4.0', 3, 'mg/dL')).toBeUndefined();
    expect(codingOf('omh:nope:1.0', 0, 'mg/dL')).toBeUndefined();
  });

  it('keeps a specimen for a value group only where the coding in its unit depends on it', () => {
    expect(codedSpecimen(glucose, 0, 'm-3', 'capillary blood')).toBe('capillary blood');
    expect(codedSpecimen(glucose, 0, 'm-3.g', 'interstitial fluid')).toBe('interstitial fluid');
    expect(codedSpecimen(glucose, 0, 'mg/dL', 'interstitial fluid')).toBe('interstitial fluid');
    // Coded as no specimen: kept as none, so these and the readings naming none are one group.
    expect(codedSpecimen(glucose, 0, 'm-3.g', 'saliva')).toBeUndefined();
    expect(codedSpecimen(glucose, 0, 'm-3.g', undefined)).toBeUndefined();
    expect(codedSpecimen(glucose, 0, 'mg', 'capillary blood')).toBeUndefined();
    expect(codedSpecimen(schemaQuantities('omh:heart-rate:2.0')!, 0, 's-1', 'capillary blood')).toBeUndefined();
  });

  it('reads the specimen from a body, only a text at the schema\'s specimen member', () => {
    expect(specimenOf(glucose, { specimen_source: 'interstitial fluid' })).toBe('interstitial fluid');
    expect(specimenOf(glucose, { specimen_source: 3 })).toBeUndefined();
    expect(specimenOf(glucose, Object.create({ specimen_source: 'tears' }))).toBeUndefined();
    expect(specimenOf(glucose, null)).toBeUndefined();
    expect(specimenOf(schemaQuantities('omh:heart-rate:2.0')!, { specimen_source: 'tears' })).toBeUndefined();
  });

  it('the generator refuses variants it cannot tell apart, leave a unit uncoded, name no specimen value, or have no property', () => {
    const withVariants = (variants: NonNullable<CodedMember['variants']>) =>
      STANDARD_CODES.map((entry): SchemaCodes => (entry.code === 'omh:blood-glucose:4.0' ? { ...entry, members: [{ ...entry.members[0]!, variants }] } : entry));
    const [blood, capillary] = STANDARD_CODES.find((e) => e.code === 'omh:blood-glucose:4.0')!.members[0]!.variants!;
    expect(() => compileQuantities({ ...inputs, codes: withVariants([blood!, { specimen: 'capillary blood', codings: capillary!.codings.slice(0, 1) }]) })).toThrow(
      /no coding of capillary blood measures mmol\/L \(m-3\)/,
    );
    expect(() => compileQuantities({ ...inputs, codes: withVariants([blood!, { specimen: 'capillary blood', codings: [capillary!.codings[0]!, capillary!.codings[0]!] }]) })).toThrow(
      /two codings of capillary blood measure m-3.g/,
    );
    expect(() => compileQuantities({ ...inputs, codes: withVariants([blood!, { ...capillary!, specimen: 'lacrimal fluid' }]) })).toThrow(/lacrimal fluid is no value of specimen_source/);
    expect(() => compileQuantities({ ...inputs, codes: withVariants([capillary!]) })).toThrow(/its variants have no set for readings without a specimen/);
    const unknown = { system: 'http://loinc.org', code: '2345-7', display: 'Glucose [Mass/volume] in Serum or Plasma' };
    expect(() => compileQuantities({ ...inputs, codes: withVariants([{ specimen: undefined, codings: [unknown, blood!.codings[1]!] }]) })).toThrow(/2345-7 has no quantitative property/);
  });
});

describe('members without a standard code', () => {
  afterEach(() => {
    delete process.env.SERVICE_NAMESPACE;
    resetConfig();
  });

  it('are coded in the service own system under its namespace, with the member path as code', () => {
    process.env.SERVICE_NAMESPACE = 'https://fhir.example.org/ns';
    resetConfig();
    const interval = schemaQuantities('omh:rr-interval:1.0')!;
    expect(interval.coding).toBeUndefined();
    expect(interval.principal).toBe(0);
    expect({ ...interval.members[0]!.coding }).toEqual({
      system: 'https://fhir.example.org/ns/omh-member', code: 'rr_interval', display: 'RR interval',
    });
    process.env.SERVICE_NAMESPACE = 'https://other.example.org';
    resetConfig();
    expect(interval.members[0]!.coding.system).toBe('https://other.example.org/omh-member');
  });
});

describe('liftQuantities', () => {
  /** The lifted members of every example body, by member path. */
  const expected: Record<string, [path: string, value: number, unit: string][]> = {
    'omh:blood-glucose:4.0': [['blood_glucose', 5.9, 'mmol/L']],
    'omh:blood-pressure:4.0': [['systolic_blood_pressure', 122, 'mmHg'], ['diastolic_blood_pressure', 78, 'mmHg']],
    'omh:body-temperature:4.0': [['body_temperature', 37.1, 'C']],
    'omh:heart-rate:2.0': [['heart_rate', 58, 'beats/min']],
    'omh:oxygen-saturation:2.0': [['oxygen_saturation', 96, '%'], ['supplemental_oxygen_flow_rate', 2, 'L/min']],
    'omh:respiratory-rate:2.0': [['respiratory_rate', 14, 'breaths/min']],
    'omh:rr-interval:1.0': [['rr_interval', 845, 'ms']],
    'omh:body-weight:3.0': [['body_weight', 72.4, 'kg']],
    'omh:forced-vital-capacity:1.0': [['forced_vital_capacity', 4.35, 'L']],
    'omh:forced-expiratory-volume-1-second:1.0': [['forced_expiratory_volume_1_second', 3.4, 'L']],
    'omh:physical-activity:1.2': [['distance', 3.6, 'km'], ['kcal_burned', 190, 'kcal']],
    'omh:step-count:3.0': [['step_count', 8421, 'steps']],
    'ieee:sleep-stage-summary:1.0': [
      ['sleep_stage_summary.total_sleep_time', 412, 'min'],
      ['sleep_stage_summary.sleep_efficiency_percentage', 90, '%'],
      ['sleep_stage_summary.rem_sleep_duration', 95, 'min'],
      ['sleep_stage_summary.light_sleep_duration', 247, 'min'],
      ['sleep_stage_summary.deep_sleep_duration', 70, 'min'],
    ],
    'omh:sleep-episode:1.1': [['latency_to_sleep_onset', 12, 'min'], ['total_sleep_time', 410, 'min'], ['sleep_maintenance_efficiency_percentage', 91, '%']],
    'omh:sleep-duration:2.0': [['sleep_duration', 6.8, 'h']],
    'ieee:physical-activity:1.0': [
      ['base_movement_quantity', 5400, 'steps'], ['distance', 9.5, 'km'], ['average_speed', 19, 'km/h'], ['kcal_burned', 260, 'kcal'],
    ],
    'ieee:sleep-episode:1.0': [['total_sleep_time', 410, 'min'], ['sleep_efficiency_percentage', 91, '%']],
    'ieee:time-in-bed:1.0': [['time_in_bed', 480, 'min']],
    'omh:total-sleep-time:1.0': [['total_sleep_time', 405, 'min']],
    'ieee:food-entry:0.1': [['food_amount', 250, 'g'], ['calories', 180, 'kcal']],
  };

  it.each(PAYLOAD_SCHEMAS.map((schema) => schema.code))('lifts the values of the %s example, not its time frame', (code) => {
    const body = EXAMPLE_BODIES[code];
    expect(issuesOf(PAYLOAD_SCHEMAS.find((schema) => schema.code === code)!.body as Validator, body, 'body')).toEqual([]);
    const members = schemaQuantities(code)!.members;
    const lifted = liftQuantities(code, body).map(({ member, value, unit }) => [members[member]!.path, value, unit]);
    expect(lifted).toEqual(expected[code]);
  });

  it('leaves out what is not a {value, unit} pair, and answers nothing for an unknown code or a body that is no object', () => {
    expect(liftQuantities('ieee:food-entry:0.1', { food_amount: { value: 2 }, calories: { value: 5, unit: 'kcal' } })).toEqual([{ member: 10, value: 5, unit: 'kcal' }]);
    expect(liftQuantities('omh:heart-rate:2.0', { heart_rate: { value: '58', unit: 'beats/min' } })).toEqual([]);
    expect(liftQuantities('omh:nope:1.0', EXAMPLE_BODIES['omh:heart-rate:2.0'])).toEqual([]);
    expect(liftQuantities('omh:heart-rate:2.0', null)).toEqual([]);
    expect(liftQuantities('ieee:sleep-stage-summary:1.0', { sleep_stage_summary: [] })).toEqual([]);
  });
});

describe('units', () => {
  it('every unit a schema allows has a UCUM code the UCUM library knows (free-text members aside)', () => {
    for (const schema of SCHEMA_QUANTITIES) {
      for (const member of schema.members) {
        for (const unit of member.units ?? []) {
          const ucum = ucumOf(unit);
          expect(ucum, `${schema.code} ${member.path} ${unit}`).toBeDefined();
          expect(isValidUcum(ucum!), ucum).toBe(true);
          expect(canonicalOf(ucum!), ucum).toBeDefined();
        }
      }
    }
  });

  it('maps the OMH labels that are not UCUM to UCUM', () => {
    const pairs = ['mmHg', 'C', 'F', 'lb', 'beats/min', 'breaths/min', 'sec', 'steps', 'Mo', 'yr', 'Metric Ton', 'Ton', 'oz', 'gr', 'in', 'mi', 'fl oz'];
    expect(pairs.map((unit) => ucumOf(unit))).toEqual(['mm[Hg]', 'Cel', '[degF]', '[lb_av]', '/min', '/min', 's', '{steps}', 'mo', 'a', 't', '[ston_av]', '[oz_av]', '[gr]', '[in_i]', '[mi_i]', '[foz_us]']);
    expect(ucumOf('kcal')).toBe('kcal');
    expect(ucumOf('%')).toBe('%');
    expect(ucumOf('/min')).toBe('/min');
    expect(ucumOf('strides')).toBeUndefined();
  });

  it('converts 154.3 lb to about 69.99 kg through the canonical forms', () => {
    const pounds = canonicalOf(ucumOf('lb')!)!;
    const kilograms = canonicalOf('kg')!;
    expect(pounds.canonical).toBe('g');
    expect(fromCanonical(toCanonical(154.3, pounds), kilograms)).toBeCloseTo(69.99, 2);
  });

  it('converts 37 Cel to 98.6 [degF] (factor and offset)', () => {
    const celsius = canonicalOf('Cel')!;
    const fahrenheit = canonicalOf('[degF]')!;
    expect(celsius.canonical).toBe('K');
    expect(fahrenheit.canonical).toBe('K');
    expect(toCanonical(37, celsius)).toBeCloseTo(310.15, 9);
    expect(fromCanonical(toCanonical(37, celsius), fahrenheit)).toBeCloseTo(98.6, 6);
    expect(fromCanonical(toCanonical(98.6, fahrenheit), celsius)).toBeCloseTo(37, 6);
    expect(toCanonical(0, canonicalOf('K')!)).toBe(0);
  });

  it('reaches units outside the table through the library, and refuses what has no linear canonical form', async () => {
    expect(canonicalOf('[stone_av]')).toBeUndefined();
    const stone = await canonicalOfAny('[stone_av]');
    expect(stone).toEqual({ canonical: 'g', factor: 6350.29318, offset: 0 });
    expect(await canonicalOfAny('kg')).toBe(canonicalOf('kg'));
    expect(await canonicalOfAny('dB')).toBeUndefined();
    expect(await canonicalOfAny('[arb\'U]')).toBeUndefined();
    expect(await canonicalOfAny('furlongs')).toBeUndefined();
    expect(UCUM_SYSTEM).toBe('http://unitsofmeasure.org');
  });

  it('answers undefined without throwing for hostile unit text', async () => {
    const hostile = ['__proto__', 'constructor', 'toString', 'hasOwnProperty', 'x'.repeat(1000), '', ' ', 'kg\u0000', 'm'.repeat(65), '('.repeat(64)];
    for (const text of hostile) {
      expect(ucumOf(text), text.slice(0, 20)).toBeUndefined();
      expect(canonicalOf(text), text.slice(0, 20)).toBeUndefined();
      expect(await canonicalOfAny(text), text.slice(0, 20)).toBeUndefined();
    }
  });
});

describe('the hot path', () => {
  it('does not load the UCUM library at start: bundled, it is a chunk imported on first use', async () => {
    const outdir = mkdtempSync(join(tmpdir(), 'omh-quantities-'));
    try {
      const result = await build({
        entryPoints: ['shared/omh/quantities.ts'], bundle: true, splitting: true, format: 'esm', platform: 'node',
        outdir, metafile: true, write: false, logLevel: 'silent',
      });
      const entry = Object.entries(result.metafile.outputs).find(([, output]) => output.entryPoint === 'shared/omh/quantities.ts')!;
      const [, output] = entry;
      const staticImports = output.imports.filter((i) => i.kind === 'import-statement');
      const loadedAtStart = [output, ...staticImports.map((i) => result.metafile.outputs[i.path]!)];
      const inputsAtStart = loadedAtStart.flatMap((o) => Object.keys(o.inputs));
      expect(inputsAtStart.some((input) => input.includes('ucum-lhc'))).toBe(false);
      expect(output.imports.some((i) => i.kind === 'dynamic-import')).toBe(true);
      expect(loadedAtStart.reduce((n, o) => n + o.bytes, 0)).toBeLessThan(100_000);
    } finally {
      rmSync(outdir, { recursive: true, force: true });
    }
  });
});
