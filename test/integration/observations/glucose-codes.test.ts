/**
 * A blood glucose is coded by what was measured (docs/payloads.md#the-values-inside-a-payload):
 * the unit's dimension picks mass or substance concentration, `specimen_source` the specimen
 * (capillary blood: the glucometer codes, interstitial fluid: the CGM codes, none or another: the
 * blood codes). Each reading shows its code in `Observation.code` and in its component, on upload,
 * read and search; a search by any of the codes finds exactly the readings that show it, in a page
 * and in a count, and `$stats` answers each code's readings apart; a reading stored before values
 * were lifted is coded from its payload.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { OMH_SYSTEM } from '../../../shared/fhir/constants';
import { checkPayload } from '../../../shared/omh/check';
import { codeByCoding } from '../../../shared/observations/code-table-cache';
import { storeObservations } from '../../../shared/observations/write';
import { call } from '../../support/invoke';
import { matchIds, observation, observationWorld, search, upload, type ObservationWorld } from '../../support/observations';

let world: ObservationWorld;
const DAY = Date.UTC(2026, 10, 9);
const GLUCOSE = 'omh:blood-glucose:4.0';
const LOINC = 'http://loinc.org';
/** Reading ids by name, and each upload's answer. */
const ids = new Map<string, string>();
const uploaded = new Map<string, Record<string, any>>();

const glucose = (value: number, unit: string, specimen: string | undefined, minute: number) =>
  observation(world, { code: GLUCOSE, at: DAY + minute * 60_000, form: 'date_time', members: { blood_glucose: { value, unit }, specimen_source: specimen } });

const READINGS: Array<[name: string, make: () => Record<string, unknown>]> = [
  ['capillary mmol/L', () => glucose(5.9, 'mmol/L', 'capillary blood', 0)],
  ['capillary mg/dL', () => glucose(106, 'mg/dL', 'capillary blood', 1)],
  ['interstitial mg/dL', () => glucose(120, 'mg/dL', 'interstitial fluid', 2)],
  ['interstitial mmol/L', () => glucose(6.7, 'mmol/L', 'interstitial fluid', 3)],
  ['no specimen mg/dL', () => glucose(99, 'mg/dL', undefined, 4)],
  ['no specimen mmol/L', () => glucose(5.5, 'mmol/L', undefined, 5)],
  ['saliva mg/dL', () => glucose(90, 'mg/dL', 'saliva', 6)],
  ['heart rate', () => observation(world, { code: 'omh:heart-rate:2.0', at: DAY + 7 * 60_000, form: 'date_time' })],
];

/** What each reading must show: its LOINC code (Observation.code.coding[1], and the display of its component). */
const EXPECTED: Record<string, [code: string, display: string]> = {
  'capillary mmol/L': ['14743-9', 'Glucose [Moles/volume] in Capillary blood by Glucometer'],
  'capillary mg/dL': ['41653-7', 'Glucose [Mass/volume] in Capillary blood by Glucometer'],
  'interstitial mg/dL': ['99504-3', 'Glucose [Mass/volume] in Interstitial fluid'],
  'interstitial mmol/L': ['105272-9', 'Glucose [Moles/volume] in Interstitial fluid'],
  'no specimen mg/dL': ['2339-0', 'Glucose [Mass/volume] in Blood'],
  'no specimen mmol/L': ['15074-8', 'Glucose [Moles/volume] in Blood'],
  'saliva mg/dL': ['2339-0', 'Glucose [Mass/volume] in Blood'],
  'stored before lifting, interstitial mmol/L': ['105272-9', 'Glucose [Moles/volume] in Interstitial fluid'],
};

/** The names of the readings a search finds, sorted. */
async function found(query: string): Promise<string[]> {
  const res = await search(world.patient.token, `patient=${world.patient.id}&${query}`);
  expect(res.status, JSON.stringify(res.json)).toBe(200);
  const names = new Map([...ids].map(([name, id]) => [id, name]));
  return matchIds(res).map((id) => names.get(id) ?? `unknown ${id}`).sort();
}

/** The total a count of the search answers. */
async function counted(query: string): Promise<number> {
  const res = await search(world.patient.token, `patient=${world.patient.id}&${query}&_summary=count`);
  expect(res.status, JSON.stringify(res.json)).toBe(200);
  return res.json.total;
}

/** The standard coding and the component of a rendered glucose reading. */
function codesShown(resource: Record<string, any>): { standard: Record<string, string>; component: Record<string, string> } {
  expect(resource.code.coding).toHaveLength(2);
  expect(resource.code.coding[0]).toMatchObject({ system: OMH_SYSTEM, code: GLUCOSE });
  expect(resource.component).toHaveLength(1);
  return { standard: resource.code.coding[1], component: resource.component[0].code.coding[0] };
}

function expectCoded(name: string, resource: Record<string, any>) {
  const [code, display] = EXPECTED[name]!;
  const { standard, component } = codesShown(resource);
  expect(standard, name).toEqual({ system: LOINC, code, display });
  // The value is the reading's own: its component is coded by its member, with the display of the code it stands for (obs-7).
  expect(component, name).toEqual({ system: expect.stringMatching(/\/omh-member$/), code: 'blood_glucose', display });
}

beforeAll(async () => {
  world = await observationWorld();
  const res = await upload(world.patient.token, READINGS.map(([, make]) => make()));
  expect(res.status).toBe(200);
  res.json.entry.forEach((e: { response: { status: string }; resource: Record<string, any> }, i: number) => {
    expect(e.response.status).toBe('201 Created');
    ids.set(READINGS[i]![0], e.resource.id);
    uploaded.set(READINGS[i]![0], e.resource);
  });
  // A reading stored before values were lifted: its row keeps the payload alone.
  const old = glucose(6.1, 'mmol/L', 'interstitial fluid', 8) as { valueAttachment: unknown };
  const payload = checkPayload(GLUCOSE, old.valueAttachment);
  if (!payload.ok) throw new Error('the sample payload is valid');
  const code = (await codeByCoding(OMH_SYSTEM, GLUCOSE))!;
  const [outcome] = await storeObservations([
    { patientId: world.patient.id, codeId: code.id, deviceId: world.device.id, status: 'final', identifiers: [], data: (old.valueAttachment as { data: string }).data, uuid: payload.uuid, effective: payload.effective },
  ]);
  if (outcome?.kind !== 'created') throw new Error(`not stored: ${outcome?.kind}`);
  expect(outcome.observation.values).toBeUndefined();
  ids.set('stored before lifting, interstitial mmol/L', String(outcome.observation.id));
});

describe('a blood glucose shows the LOINC code of its property and specimen', () => {
  it.each(Object.keys(EXPECTED))('%s: in the upload answer, on read and in a search page', async (name) => {
    if (uploaded.has(name)) expectCoded(name, uploaded.get(name)!);
    const read = await call('GET', `/FHIR/R5/Observation/${ids.get(name)}`, { token: world.patient.token });
    expect(read.status).toBe(200);
    expectCoded(name, read.json);
    const page = await search(world.patient.token, `_id=${ids.get(name)}`);
    expectCoded(name, page.json.entry[0].resource);
  });

  it('keeps the unit as uploaded in the component, with its UCUM code', () => {
    expect(uploaded.get('capillary mmol/L')!.component[0].valueQuantity).toEqual({ value: 5.9, unit: 'mmol/L', system: 'http://unitsofmeasure.org', code: 'mmol/L' });
    expect(uploaded.get('interstitial mg/dL')!.component[0].valueQuantity).toEqual({ value: 120, unit: 'mg/dL', system: 'http://unitsofmeasure.org', code: 'mg/dL' });
  });

  it('leaves every other code as it was: a heart rate is 8867-4', () => {
    expect(uploaded.get('heart rate')!.code.coding[1]).toEqual({ system: LOINC, code: '8867-4', display: 'Heart rate' });
  });
});

describe('searching by a glucose code finds the readings that show it', () => {
  it.each([
    ['99504-3', ['interstitial mg/dL']],
    ['105272-9', ['interstitial mmol/L', 'stored before lifting, interstitial mmol/L']],
    ['41653-7', ['capillary mg/dL']],
    ['14743-9', ['capillary mmol/L']],
    ['2339-0', ['no specimen mg/dL', 'saliva mg/dL']],
    ['15074-8', ['no specimen mmol/L']],
  ])('code=http://loinc.org|%s, in a page and in a count', async (code, expected) => {
    expect(await found(`code=${LOINC}|${code}`)).toEqual(expected);
    expect(await found(`code=${code}`)).toEqual(expected);
    expect(await counted(`code=${LOINC}|${code}`)).toBe(expected.length);
    const total = await search(world.patient.token, `patient=${world.patient.id}&code=${LOINC}|${code}&_total=accurate&_count=1`);
    expect(total.json.total).toBe(expected.length);
  });

  const glucoseReadings = Object.keys(EXPECTED).sort();

  it('OR-ed codes, the schema code, a code with :not, and dates with a code', async () => {
    expect(await found(`code=${LOINC}|99504-3,${LOINC}|105272-9`)).toEqual(['interstitial mg/dL', 'interstitial mmol/L', 'stored before lifting, interstitial mmol/L']);
    expect(await found(`code=${GLUCOSE}`)).toEqual(glucoseReadings);
    expect(await found(`code=${LOINC}|`)).toEqual([...glucoseReadings, 'heart rate'].sort());
    const notInterstitialMass = [...glucoseReadings.filter((name) => name !== 'interstitial mg/dL'), 'heart rate'].sort();
    expect(await found(`code:not=${LOINC}|99504-3`)).toEqual(notInterstitialMass);
    expect(await counted(`code:not=${LOINC}|99504-3`)).toBe(notInterstitialMass.length);
    expect(await found(`code=${GLUCOSE}&code=${LOINC}|41653-7`)).toEqual(['capillary mg/dL']);
    expect(await found(`code=${LOINC}|2339-0&date=ge${new Date(DAY + 5 * 60_000).toISOString()}`)).toEqual(['saliva mg/dL']);
    expect(await counted(`code=${LOINC}|2339-0&date=2026-11-09`)).toBe(2);
  });

  it('the value searches test the code each reading shows', async () => {
    expect(await found(`code-value-quantity=${LOINC}|99504-3$gt100`)).toEqual(['interstitial mg/dL']);
    expect(await found(`combo-code-value-quantity=${LOINC}|14743-9$gt5`)).toEqual(['capillary mmol/L']);
    expect(await found(`combo-code=${LOINC}|15074-8`)).toEqual(['no specimen mmol/L']);
    expect(await counted(`combo-code=${LOINC}|15074-8`)).toBe(1);
    // Converted between mass and substance concentration: no (UCUM's dimensions differ); 5.9 mmol/L is not 106 mg/dL here.
    expect(await found(`code=${GLUCOSE}&value-quantity=gt100|http://unitsofmeasure.org|mg/dL`)).toEqual(['capillary mg/dL', 'interstitial mg/dL']);
    expect(await found(`code=${GLUCOSE}&component-code-value-quantity=blood_glucose$lt6`)).toEqual(['capillary mmol/L', 'no specimen mmol/L']);
    // The reading's own code names its value whatever its standard code (what the assistants' search_readings_by_value sends).
    expect(await found(`code=${GLUCOSE}&combo-code-value-quantity=${GLUCOSE}$gt100`)).toEqual(['capillary mg/dL', 'interstitial mg/dL']);
  });

  it('$lastn by a glucose code answers the newest reading that shows it', async () => {
    const res = await call('GET', `/FHIR/R5/Observation/$lastn?patient=${world.patient.id}&code=${LOINC}|41653-7,${LOINC}|14743-9`, { token: world.patient.token });
    expect(res.status).toBe(200);
    expect(matchIds(res)).toEqual([ids.get('capillary mg/dL')]);
    const isf = await call('GET', `/FHIR/R5/Observation/$lastn?patient=${world.patient.id}&code=${LOINC}|105272-9&max=5`, { token: world.patient.token });
    expect(matchIds(isf)).toEqual([ids.get('stored before lifting, interstitial mmol/L'), ids.get('interstitial mmol/L')]);
  });

  it('a re-posted reading read back with its code is taken: any standard coding of the schema may follow the code', async () => {
    const again = { ...READINGS[3]![1](), code: uploaded.get('interstitial mmol/L')!.code };
    const res = await upload(world.patient.token, [again]);
    expect(res.json.entry[0].response.status).toBe('201 Created');
    expectCoded('interstitial mmol/L', res.json.entry[0].resource);
    const wrong = { ...READINGS[3]![1](), code: { coding: [uploaded.get('interstitial mmol/L')!.code.coding[0], { system: LOINC, code: '8867-4' }] } };
    const refused = await upload(world.patient.token, [wrong]);
    expect(refused.json.entry[0].response.status).toBe('400 Bad Request');
    ids.set('re-posted interstitial mmol/L', res.json.entry[0].resource.id);
  });
});

describe('$stats of a blood glucose', () => {
  type StatisticsObservation = { code: { coding: Array<{ system: string; code: string; display: string }> }; component: Array<{ code: { coding: Array<{ system: string; code: string }> }; valueQuantity: { value: number; unit?: string } }> };

  /** The statistics Observations `$stats` answers, by the LOINC code of each: its statistics by their observation-statistics code. */
  async function statsByLoinc(query: string): Promise<Map<string, Record<string, number | string>>> {
    const res = await call('GET', `/FHIR/R5/Observation/$stats?subject=Patient/${world.patient.id}&${query}&statistic=count,minimum,maximum`, { token: world.patient.token });
    expect(res.status, JSON.stringify(res.json)).toBe(200);
    const observations = (res.json.parameter as Array<{ resource: StatisticsObservation }>).map((p) => p.resource);
    return new Map(
      observations.map((o) => {
        // Coded as the readings are: the omh coding, then the LOINC code of the group's unit and specimen, with its display.
        expect(o.code.coding[0]).toMatchObject({ system: OMH_SYSTEM, code: GLUCOSE });
        const loinc = o.code.coding[1]!;
        expect(loinc.system).toBe(LOINC);
        const statistics: Record<string, number | string> = {};
        for (const c of o.component) {
          expect(c.code.coding[0]!.system).toBe('http://hl7.org/fhir/observation-statistics');
          statistics[c.code.coding[0]!.code] = c.valueQuantity.value;
          if (c.code.coding[0]!.code === 'maximum') statistics.unit = c.valueQuantity.unit!;
        }
        return [`${loinc.code} ${loinc.display}`, statistics];
      }),
    );
  }

  /** Every glucose reading of the day, by the code each shows (interstitial mmol/L three times: once lifted from its payload, once re-posted). */
  const EVERY = new Map<string, Record<string, number | string>>([
    ['15074-8 Glucose [Moles/volume] in Blood', { count: 1, minimum: 5.5, maximum: 5.5, unit: 'mmol/L' }],
    ['14743-9 Glucose [Moles/volume] in Capillary blood by Glucometer', { count: 1, minimum: 5.9, maximum: 5.9, unit: 'mmol/L' }],
    ['105272-9 Glucose [Moles/volume] in Interstitial fluid', { count: 3, minimum: 6.1, maximum: 6.7, unit: 'mmol/L' }],
    ['2339-0 Glucose [Mass/volume] in Blood', { count: 2, minimum: 90, maximum: 99, unit: 'mg/dL' }],
    ['41653-7 Glucose [Mass/volume] in Capillary blood by Glucometer', { count: 1, minimum: 106, maximum: 106, unit: 'mg/dL' }],
    ['99504-3 Glucose [Mass/volume] in Interstitial fluid', { count: 1, minimum: 120, maximum: 120, unit: 'mg/dL' }],
  ]);
  const only = (...codes: string[]) => new Map([...EVERY].filter(([key]) => codes.includes(key.split(' ')[0]!)));

  it('answers one Observation per unit kind and specimen, each coded by them, from the day summaries and from the rows', async () => {
    const fromSummaries = await statsByLoinc(`code=${GLUCOSE}&period=2026-11-09/2026-11-10`);
    expect(fromSummaries).toEqual(EVERY);
    // In a stable order: by unit, then specimen (none first).
    expect([...fromSummaries.keys()]).toEqual([...EVERY.keys()]);
    // A partial day is read from its rows: the same groups.
    expect(await statsByLoinc(`code=${GLUCOSE}&period=2026-11-09T00:00:00Z/2026-11-09T12:00:00Z`)).toEqual(EVERY);
  });

  it("a specimen's code names the readings shown with it, as a search by it finds them", async () => {
    expect(await statsByLoinc(`coding=${LOINC}|99504-3&period=2026-11-09/2026-11-10`)).toEqual(only('99504-3'));
    expect(await statsByLoinc(`system=${LOINC}&code=105272-9,14743-9&period=2026-11-09/2026-11-10`)).toEqual(only('14743-9', '105272-9'));
    expect(await statsByLoinc(`coding=${LOINC}|2339-0&period=2026-11-09T00:00:00Z/2026-11-09T12:00:00Z`)).toEqual(only('2339-0'));
    // Nothing found: a count of 0, coded as asked.
    expect(await statsByLoinc(`coding=${LOINC}|99504-3&coding=${LOINC}|14743-9&period=2026-11-11/2026-11-12`)).toEqual(
      new Map([
        ['14743-9 Glucose [Moles/volume] in Capillary blood by Glucometer', { count: 0 }],
        ['99504-3 Glucose [Mass/volume] in Interstitial fluid', { count: 0 }],
      ]),
    );
    // With the code itself, every reading.
    expect(await statsByLoinc(`coding=${LOINC}|41653-7&code=${GLUCOSE}&period=2026-11-09/2026-11-10`)).toEqual(EVERY);
  });
});
