/**
 * The assistants' tools (docs/mcp.md), driven through the SDK's own Client over its in-memory
 * transport, on the in-memory twins: as a patient and as a practitioner, on readings whose answers
 * are known (values above 120, statistics, the latest readings), with pages that continue by
 * cursor, the schema resources, the isolation of another organization (its ids answer as unknown
 * ones) and hostile arguments (always a tool error result).
 */
import { Client, InMemoryTransport, type CallToolResult } from '@modelcontextprotocol/client';
import { beforeAll, describe, expect, it } from 'vitest';
import { callerFromToken } from '../../../shared/auth/authenticate';
import type { Patient, Study } from '../../../shared/directory/model';
import type { CgmReading } from '../../../shared/cgm/digest';
import { summariseReadings } from '../../../shared/cgm/metrics';
import { MGDL_PER_MMOLL } from '../../../shared/cgm/units';
import { createMcpServer, TOOLS } from '../../../shared/mcp/server';
import { glucoseMembers } from '../../support/cgm';
import { condition, postAuxiliary } from '../../support/auxiliary';
import { makeDataSource, makeFhirSource, makeOrganization, makePatient, makePractitioner, makeStudy, type WithToken } from '../../support/directory';
import { observation, TABLE_CODES, upload, type ObservationWorld } from '../../support/observations';

const DAY = 86_400_000;
/** Monday 5 January 2026, 08:00 UTC. */
const T = Date.UTC(2026, 0, 5, 8);
const UNKNOWN_ID = 987_654_321;

interface Side {
  world: ObservationWorld;
  study: Study;
}
let a: Side;
let b: Side;
let touched: number[][];
/** Failures the tools did not expect (told to the caller as one fixed sentence): none. */
const unexpected: unknown[] = [];

async function side(): Promise<Side> {
  const organization = await makeOrganization();
  const practitioner = await makePractitioner({ organizations: [organization] });
  const patient = (await makePatient({ organizations: [organization], login: true, birthDate: '1980-02-03' })) as Patient & WithToken;
  const device = await makeDataSource({ codes: TABLE_CODES });
  const study = await makeStudy({ organization, codes: TABLE_CODES, patients: [patient], consent: true, dataSources: [device] });
  return { world: { organization, practitioner, patient, device }, study };
}

const HEART_RATES: Array<[day: number, value: number]> = [
  [0, 70],
  [0, 130],
  [1, 125],
  [1, 80],
  [2, 90],
];

async function connect(token: string): Promise<Client> {
  const server = createMcpServer(await callerFromToken(token), { onTouched: (ids) => touched.push([...ids]), onError: (_tool, error) => unexpected.push(error) });
  const [serverSide, clientSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  const client = new Client({ name: 'test', version: '1' });
  await client.connect(clientSide);
  return client;
}

async function tool(client: Client, name: string, args: Record<string, unknown>): Promise<CallToolResult> {
  return (await client.callTool({ name, arguments: args })) as CallToolResult;
}

/** The structured content of a successful answer. */
async function ok(client: Client, name: string, args: Record<string, unknown>): Promise<Record<string, any>> {
  const result = await tool(client, name, args);
  expect(result.isError, JSON.stringify(result.content)).toBeFalsy();
  expect((result.content[0] as { text: string }).text.length).toBeGreaterThan(0);
  return result.structuredContent as Record<string, any>;
}

/** The text of a tool error. */
async function refused(client: Client, name: string, args: Record<string, unknown>): Promise<string> {
  const result = await tool(client, name, args);
  expect(result.isError, JSON.stringify(result)).toBe(true);
  expect(result.structuredContent).toBeUndefined();
  return (result.content[0] as { text: string }).text;
}

let asPatient: Client;
let asPractitioner: Client;
let asOtherPractitioner: Client;
let asOtherPatient: Client;

beforeAll(async () => {
  touched = [];
  a = await side();
  b = await side();
  const { world } = a;
  const hr = ([day, value]: [number, number], i: number) =>
    observation(world, { code: 'omh:heart-rate:2.0', at: T + day * DAY + i * 60_000, form: 'date_time', members: { heart_rate: { value, unit: 'beats/min' } } });
  const bp = (day: number, systolic: number, diastolic: number) =>
    observation(world, {
      code: 'omh:blood-pressure:4.0',
      at: T + day * DAY,
      form: 'date_time',
      members: { systolic_blood_pressure: { value: systolic, unit: 'mmHg' }, diastolic_blood_pressure: { value: diastolic, unit: 'mmHg' } },
    });
  const res = await upload(world.patient.token, [...HEART_RATES.map(hr), bp(0, 150, 90), bp(1, 120, 80)]);
  expect(res.json.entry.map((e: { response: { status: string } }) => e.response.status)).toEqual(Array(7).fill('201 Created'));
  const other = await upload(b.world.patient.token, [observation(b.world, { code: 'omh:heart-rate:2.0', at: T, form: 'date_time', members: { heart_rate: { value: 150, unit: 'beats/min' } } })]);
  expect(other.status).toBe(200);

  const app = await makeDataSource({ type: 'patient_app' });
  const source = await makeFhirSource({ patient: world.patient, dataSource: app });
  expect((await postAuxiliary('Condition', condition(), world.patient.token, source.id)).status).toBe(201);

  asPatient = await connect(world.patient.token);
  asPractitioner = await connect(world.practitioner.token);
  asOtherPractitioner = await connect(b.world.practitioner.token);
  asOtherPatient = await connect(b.world.patient.token);
});

describe('tools/list', () => {
  it('shows every tool with a description, an input and an output schema, read-only', async () => {
    for (const client of [asPatient, asPractitioner]) {
      const { tools } = await client.listTools();
      expect(tools.map((t) => t.name)).toEqual(TOOLS.map((t) => t.name));
      for (const t of tools) {
        expect(t.description!.length, t.name).toBeGreaterThan(40);
        expect(t.inputSchema.type).toBe('object');
        expect(t.outputSchema?.type, t.name).toBe('object');
        expect(t.annotations?.readOnlyHint).toBe(true);
      }
    }
  });
});

describe('studies and patients', () => {
  it('list_studies and get_study: the caller\'s studies, the enrolment count for a practitioner only', async () => {
    for (const client of [asPatient, asPractitioner]) {
      const found = await ok(client, 'list_studies', {});
      expect(found.count).toBe(1);
      expect(found.studies[0]).toMatchObject({ id: a.study.id, name: a.study.name, organization: { id: a.world.organization.id } });
    }
    const seen = await ok(asPractitioner, 'get_study', { studyId: a.study.id });
    expect(seen.study.enrolledPatients).toBe(1);
    expect(seen.study.readingTypes.map((t: { code: string }) => t.code)).toEqual(expect.arrayContaining(['omh:heart-rate:2.0', 'omh:blood-pressure:4.0']));
    expect((await ok(asPatient, 'get_study', { studyId: a.study.id })).study.enrolledPatients).toBeNull();
  });

  it('list_study_patients: practitioners only; get_patient: a patient themselves without an id', async () => {
    const listed = await ok(asPractitioner, 'list_study_patients', { studyId: a.study.id });
    expect(listed).toMatchObject({ count: 1, patients: [{ id: a.world.patient.id, birthDate: '1980-02-03' }] });
    expect(await refused(asPatient, 'list_study_patients', { studyId: a.study.id })).toMatch(/Only practitioners/);
    const self = await ok(asPatient, 'get_patient', {});
    expect(self.patient).toMatchObject({ id: a.world.patient.id, nameFamily: a.world.patient.nameFamily, studyIds: [a.study.id] });
    expect(self.patient).not.toHaveProperty('telecomEmail');
    expect((await ok(asPractitioner, 'get_patient', { patientId: a.world.patient.id })).patient.organizations).toEqual([{ id: a.world.organization.id, name: a.world.organization.name }]);
    expect(await refused(asPractitioner, 'get_patient', {})).toMatch(/Name the patient/);
  });
});

describe('readings', () => {
  const id = () => a.world.patient.id;

  it('patient_reading_dates and count_readings (a patient and a study, counted by type)', async () => {
    const dates = await ok(asPractitioner, 'patient_reading_dates', { patientId: id() });
    expect(dates).toMatchObject({ first: new Date(T).toISOString(), last: new Date(T + 2 * DAY + 4 * 60_000).toISOString() });
    const counts = await ok(asPatient, 'count_readings', {});
    expect(counts.total).toBe(7);
    expect(counts.byType).toEqual([
      { type: 'omh:blood-pressure:4.0', display: expect.any(String), count: 2 },
      { type: 'omh:heart-rate:2.0', display: expect.any(String), count: 5 },
    ]);
    const study = await ok(asPractitioner, 'count_readings', { studyId: a.study.id, readingType: 'heart-rate' });
    expect(study).toMatchObject({ studyId: a.study.id, total: 5 });
    expect((await ok(asPractitioner, 'count_readings', { patientId: id(), from: '2026-01-06', to: '2026-01-06' })).total).toBe(3);
  });

  it('search_readings_by_value: heart rates above 120, systolic pressures of at least 140', async () => {
    const high = await ok(asPractitioner, 'search_readings_by_value', { patientId: id(), readingType: 'heart-rate', comparator: 'gt', value: 120 });
    expect(high.total).toBe(2);
    expect(high.readings.map((r: any) => r.values[0].value)).toEqual([125, 130]);
    const week = await ok(asPatient, 'search_readings_by_value', { readingType: 'omh:heart-rate:2.0', comparator: 'gt', value: 120, from: '2026-01-06' });
    expect(week.readings.map((r: any) => r.values[0].value)).toEqual([125]);
    const pressure = await ok(asPractitioner, 'search_readings_by_value', { patientId: id(), readingType: 'blood-pressure', member: 'systolic_blood_pressure', comparator: 'ge', value: 140, unit: 'mm[Hg]' });
    expect(pressure.total).toBe(1);
    expect(pressure.readings[0].values).toEqual([
      { name: 'systolic_blood_pressure', value: 150, unit: 'mmHg' },
      { name: 'diastolic_blood_pressure', value: 90, unit: 'mmHg' },
    ]);
    expect(await refused(asPractitioner, 'search_readings_by_value', { patientId: id(), readingType: 'blood-pressure', comparator: 'ge', value: 140 })).toMatch(/systolic_blood_pressure/);
  });

  it('reading_statistics: the whole period and per day, equal to the known values', async () => {
    const whole = await ok(asPractitioner, 'reading_statistics', { patientId: id(), readingType: 'heart-rate', from: '2026-01-05', to: '2026-01-07' });
    const values = Object.fromEntries(whole.intervals[0].values.map((v: any) => [v.statistic, v.value]));
    expect(values).toEqual({ count: 5, minimum: 70, maximum: 130, average: 99 });
    expect(whole.intervals[0].values.find((v: any) => v.statistic === 'count')).toEqual({ member: 'heart_rate', statistic: 'count', value: 5 });
    // The text reads a count as readings, never as a number with the unit 1.
    const said = await tool(asPractitioner, 'reading_statistics', { patientId: id(), readingType: 'heart-rate', from: '2026-01-05', to: '2026-01-07' });
    expect((said.content[0] as { text: string }).text).toBe(
      `omh:heart-rate:2.0 of patient ${id()}:\n2026-01-05..2026-01-08: heart_rate: 5 readings, minimum 70 beats/min, maximum 130 beats/min, average 99 beats/min`,
    );
    // Blood pressure: each member's statistics, read from its own statistics Observation.
    const pressure = await tool(asPractitioner, 'reading_statistics', { patientId: id(), readingType: 'blood-pressure', from: '2026-01-05', to: '2026-01-07', statistics: ['count', 'maximum'] });
    expect((pressure.structuredContent as any).intervals[0].values).toEqual([
      { member: 'systolic_blood_pressure', statistic: 'count', value: 2 },
      { member: 'systolic_blood_pressure', statistic: 'maximum', value: 150, unit: 'mmHg' },
      { member: 'diastolic_blood_pressure', statistic: 'count', value: 2 },
      { member: 'diastolic_blood_pressure', statistic: 'maximum', value: 90, unit: 'mmHg' },
    ]);
    expect((pressure.content[0] as { text: string }).text).toContain('systolic_blood_pressure: 2 readings, maximum 150 mmHg; diastolic_blood_pressure: 2 readings, maximum 90 mmHg');
    const daily = await ok(asPatient, 'reading_statistics', { readingType: 'heart-rate', from: '2026-01-05', to: '2026-01-07', interval: 'day', statistics: ['average'], pageSize: 2 });
    expect(daily.intervals.map((i: any) => [i.start.slice(0, 10), i.values[0].value])).toEqual([
      ['2026-01-05', 100],
      ['2026-01-06', 102.5],
    ]);
    const rest = await ok(asPatient, 'reading_statistics', { readingType: 'heart-rate', from: '2026-01-05', to: '2026-01-07', interval: 'day', statistics: ['average'], cursor: daily.nextCursor });
    expect(rest.intervals.map((i: any) => i.values[0].value)).toEqual([90]);
    expect(rest.nextCursor).toBeUndefined();
  });

  it('latest_readings and summarize_patient_readings', async () => {
    const latest = await ok(asPractitioner, 'latest_readings', { patientId: id() });
    const byType = Object.fromEntries(latest.readings.map((r: any) => [r.type, r.values]));
    expect(byType['omh:heart-rate:2.0']).toEqual([{ name: 'heart_rate', value: 90, unit: 'beats/min' }]);
    expect(byType['omh:blood-pressure:4.0'][0]).toEqual({ name: 'systolic_blood_pressure', value: 120, unit: 'mmHg' });
    const summary = await ok(asPatient, 'summarize_patient_readings', {});
    const heart = summary.types.find((t: any) => t.type === 'omh:heart-rate:2.0');
    expect(heart).toMatchObject({ count: 5, first: new Date(T).toISOString(), latest: { values: [{ value: 90 }] }, averages: [{ member: 'heart_rate', value: 99, unit: 'beats/min' }] });
    const pressure = summary.types.find((t: any) => t.type === 'omh:blood-pressure:4.0');
    expect(pressure.averages).toEqual([
      { member: 'systolic_blood_pressure', value: 135, unit: 'mmHg' },
      { member: 'diastolic_blood_pressure', value: 85, unit: 'mmHg' },
    ]);
  });

  it('get_readings: bounded pages whose cursor continues to the end, slim or FHIR', async () => {
    const seen: string[] = [];
    let cursor: string | undefined;
    let pages = 0;
    do {
      const page = await ok(asPractitioner, 'get_readings', { patientId: id(), pageSize: 3, ...(cursor ? { cursor } : {}) });
      expect(page.readings.length).toBeLessThanOrEqual(3);
      seen.push(...page.readings.map((r: any) => r.id));
      cursor = page.nextCursor;
      pages += 1;
    } while (cursor && pages < 10);
    expect(pages).toBe(3);
    expect(new Set(seen).size).toBe(7);
    const full = await ok(asPatient, 'get_readings', { readingType: 'blood-pressure', format: 'fhir' });
    expect(full.resources).toHaveLength(2);
    expect(full.resources[0]).toMatchObject({ resourceType: 'Observation', subject: { reference: `Patient/${id()}` } });
    expect(touched.some((ids) => ids.includes(id()))).toBe(true);
  });

  it('clinical_record: the conditions from the auxiliary store', async () => {
    const record = await ok(asPractitioner, 'clinical_record', { patientId: id() });
    const conditions = record.sections.find((s: any) => s.section === 'conditions');
    expect(conditions).toMatchObject({ total: 1, items: [{ text: 'Type 2 diabetes', status: 'active' }] });
    expect(record.sections.map((s: any) => s.section)).toEqual(['conditions', 'medications', 'allergies', 'observations']);
    expect((await ok(asPatient, 'clinical_record', { section: 'allergies' })).sections).toEqual([{ section: 'allergies', resourceType: 'AllergyIntolerance', total: 0, items: [] }]);
  });
});

describe('a glucose sensor', () => {
  it('glucose_summary: the metrics and the profile of a day on a time zone\'s calendar, as the raw readings give them', async () => {
    // A side of its own: the other tests count side A's readings and studies.
    const { world } = await side();
    const { patient } = world;
    // 2026-01-05 in New York (-05:00), every 15 minutes; a reading before and after the day.
    const midnight = Date.parse('2026-01-05T05:00:00Z');
    const raw: CgmReading[] = Array.from({ length: 98 }, (_, i) => ({ at: midnight + (i - 1) * 15 * 60_000, offsetMinutes: -300, mgdl: 50 + ((i * 13) % 230) }));
    const sent = raw.map((r) => observation(world, { code: 'omh:blood-glucose:4.0', members: glucoseMembers(r.at, r.offsetMinutes, r.mgdl, 'mg/dL') }));
    expect((await upload(patient.token, sent)).status).toBe(200);
    const period = { from: midnight, to: midnight + DAY };
    const expected = summariseReadings(raw, { period });

    const answer = await tool(await connect(world.practitioner.token), 'glucose_summary', { patientId: patient.id, from: '2026-01-05', to: '2026-01-05', timeZone: 'America/New_York' });
    expect(answer.isError, JSON.stringify(answer.content)).toBeFalsy();
    const got = answer.structuredContent as Record<string, any>;
    expect(got).toMatchObject({ patientId: patient.id, period: { start: '2026-01-05', end: '2026-01-05', days: 1 }, unit: 'mg/dL', readings: 96, intervalMinutes: 15, sensorActivePercent: 100, daysOfWear: 1, sufficient: false });
    const g = expected.glucose!;
    expect(got.glucose).toMatchObject({ mean: Number(g.meanMgdl.toFixed(1)), cvPercent: Number(g.cvPercent.toFixed(2)), gmiPercent: Number(g.gmiPercent.toFixed(2)), min: g.minMgdl, max: g.maxMgdl });
    expect(got.glucose.ranges).toEqual(Object.fromEntries(Object.entries(g.bands).map(([band, { percent }]) => [band, Number(percent.toFixed(2))])));
    expect(got.glucose.targets.map((t: any) => t.met)).toEqual(g.targets.map((t) => t.met));
    expect(got.notes).toContain('Not sufficient: the period is 1 days, and at least 14 are needed.');
    // One reading a bin, on its own clock: 00:00 New York time is the day's first reading.
    expect(got.profile).toHaveLength(96);
    expect(got.profile[0]).toEqual({ time: '00:00', readings: 1, p5: raw[1]!.mgdl, p25: raw[1]!.mgdl, p50: raw[1]!.mgdl, p75: raw[1]!.mgdl, p95: raw[1]!.mgdl });
    const text = (answer.content[0] as { text: string }).text;
    expect(text).toContain(`Glucose sensor of patient ${patient.id}, 2026-01-05 to 2026-01-05 (1 days), in mg/dL:`);
    expect(text).toContain(`- 96 readings, one every 15 min; sensor active 100%; 1 days of wear; NOT enough data`);
    expect(text).toMatch(/time in ranges \(mg\/dL\): very low \(<54\) [\d.]+%, low \(54-69\)/);
    expect(text.split('\n').filter((line) => /^\d\d:00 /.test(line))).toHaveLength(24);
    // Its statistics name the specimen that sets the sensor's readings apart from a glucometer's.
    const statistics = await tool(await connect(world.practitioner.token), 'reading_statistics', { patientId: patient.id, readingType: 'blood-glucose', from: '2026-01-05', to: '2026-01-05', statistics: ['count'] });
    const onTheDay = raw.filter((r) => r.at < Date.parse('2026-01-06T00:00:00Z')).length;
    expect((statistics.structuredContent as any).intervals[0].values).toEqual([{ member: 'blood_glucose', specimen: 'interstitial fluid', statistic: 'count', value: onTheDay }]);
    expect((statistics.content[0] as { text: string }).text).toContain(`blood_glucose in interstitial fluid: ${onTheDay} readings`);

    // The patient themself, in mmol/L, the older-or-high-risk targets.
    const self = await connect(patient.token);
    const mine = await ok(self, 'glucose_summary', { from: '2026-01-05T05:00:00Z', to: '2026-01-06T04:59:59.999Z', unit: 'mmol/L', targets: 'older-or-high-risk' });
    expect(mine.period).toEqual({ start: '2026-01-05T05:00:00Z', end: '2026-01-06T04:59:59.999Z', days: 1 });
    expect(mine.glucose.mean).toBe(Number((g.meanMgdl / MGDL_PER_MMOLL).toFixed(2)));
    expect(mine.glucose.targets.map((t: any) => t.name)).toEqual(['Time in range (3.9-10.0 mmol/L)', 'Time below 3.9 mmol/L', 'Time above 13.9 mmol/L', 'Coefficient of variation']);
    // No readings in the period: no glucose figures, and the answer says why.
    const none = await ok(self, 'glucose_summary', { from: '2025-01-01', to: '2025-01-14' });
    expect(none).toMatchObject({ readings: 0, glucose: null, sufficient: false, profile: [] });
    expect(none.notes).toContain('Not sufficient: the period holds no glucose readings.');
    expect(touched.some((ids) => ids.includes(patient.id))).toBe(true);
  });
});

describe('schemas', () => {
  it('get_omh_schema, resources/list and resources/read', async () => {
    const { schema } = await ok(asPatient, 'get_omh_schema', { readingType: 'http://loinc.org|8867-4' });
    expect(schema).toMatchObject({ code: 'omh:heart-rate:2.0', uri: 'omh://schema/omh:heart-rate:2.0', category: 'vital-signs', values: [{ path: 'heart_rate', principal: true, units: ['beats/min'] }] });
    expect(schema.members).toEqual(expect.arrayContaining([{ name: 'heart_rate', required: true, kind: 'value with unit' }]));
    expect(await refused(asPatient, 'get_omh_schema', { readingType: 'sleep-episode' })).toMatch(/several reading types/);
    const { resources } = await asPractitioner.listResources();
    expect(resources).toHaveLength(20);
    expect(resources.map((r) => r.uri)).toContain('omh://schema/omh:blood-pressure:4.0');
    const read = await asPractitioner.readResource({ uri: 'omh://schema/omh:blood-pressure:4.0' });
    expect(JSON.parse((read.contents[0] as { text: string }).text)).toMatchObject({ code: 'omh:blood-pressure:4.0', values: [{ path: 'systolic_blood_pressure' }, { path: 'diastolic_blood_pressure' }] });
    await expect(asPractitioner.readResource({ uri: 'omh://schema/omh:nothing:1.0' })).rejects.toThrow(/No schema/);
  });
});

describe('isolation', () => {
  /** Every tool naming a patient, with that patient. */
  const patientCalls = (patientId: number): Array<[string, Record<string, unknown>]> => [
    ['get_patient', { patientId }],
    ['patient_reading_dates', { patientId }],
    ['count_readings', { patientId }],
    ['summarize_patient_readings', { patientId }],
    ['get_readings', { patientId }],
    ['search_readings_by_value', { patientId, readingType: 'heart-rate', comparator: 'gt', value: 0 }],
    ['reading_statistics', { patientId, readingType: 'heart-rate', from: '2026-01-01' }],
    ['latest_readings', { patientId }],
    ['glucose_summary', { patientId }],
    ['clinical_record', { patientId }],
  ];
  const studyCalls = (studyId: number): Array<[string, Record<string, unknown>]> => [
    ['get_study', { studyId }],
    ['list_study_patients', { studyId }],
    ['count_readings', { studyId }],
  ];

  async function sameAsUnknown(client: Client, calls: (id: number) => Array<[string, Record<string, unknown>]>, foreignId: number) {
    const unknown = calls(UNKNOWN_ID);
    const foreign = calls(foreignId);
    for (const [i, [name, args]] of foreign.entries()) {
      const text = await refused(client, name, args);
      const expected = await refused(client, unknown[i]![0], unknown[i]![1]);
      expect(text.replaceAll(String(foreignId), '<id>'), name).toBe(expected.replaceAll(String(UNKNOWN_ID), '<id>'));
    }
  }

  it("another organization's practitioner: the patient and the study answer as unknown ids", async () => {
    await sameAsUnknown(asOtherPractitioner, patientCalls, a.world.patient.id);
    await sameAsUnknown(asOtherPractitioner, studyCalls, a.study.id);
    const theirs = await ok(asOtherPractitioner, 'list_studies', {});
    expect(theirs.studies.map((s: any) => s.id)).toEqual([b.study.id]);
  });

  it('another patient: the patient and the study answer as unknown ids', async () => {
    await sameAsUnknown(asOtherPatient, patientCalls, a.world.patient.id);
    // A patient is refused list_study_patients whatever the study: the other study tools.
    await sameAsUnknown(asOtherPatient, (studyId) => studyCalls(studyId).filter(([name]) => name !== 'list_study_patients'), a.study.id);
    // Their own count is their own: one heart rate.
    expect((await ok(asOtherPatient, 'count_readings', {})).total).toBe(1);
  });
});

describe('hostile arguments', () => {
  it('give a tool error result, never a failure of the exchange', async () => {
    const id = a.world.patient.id;
    const cases: Array<[string, Record<string, unknown>]> = [
      ['get_patient', { patientId: 'one' }],
      ['get_patient', { patientId: -1 }],
      ['get_patient', { patientId: 1.5 }],
      ['get_patient', { patientId: 2 ** 60 }],
      ['get_study', { studyId: null }],
      ['get_readings', { patientId: id, pageSize: 1e9 }],
      ['get_readings', { patientId: id, pageSize: 0 }],
      ['get_readings', { patientId: id, readingType: 'x'.repeat(100_000) }],
      ['get_readings', { patientId: id, cursor: 'not-a-cursor' }],
      ['get_readings', { patientId: id, cursor: 'A'.repeat(5000) }],
      ['get_readings', { patientId: id, cursor: '€' }],
      ['get_readings', { patientId: id, from: '2026-13-45' }],
      ['get_readings', { patientId: id, from: "2026'; DROP" }],
      ['search_readings_by_value', { patientId: id, readingType: 'heart-rate', comparator: 'gt', value: Number.MAX_VALUE }],
      ['search_readings_by_value', { patientId: id, readingType: 'heart-rate', comparator: 'in', value: 1 }],
      ['search_readings_by_value', { patientId: id, readingType: 'heart-rate', comparator: 'gt', value: 1, member: '__proto__' }],
      ['reading_statistics', { patientId: id, readingType: 'heart-rate', from: '1900-01-01' }],
      ['reading_statistics', { patientId: id, readingType: 'heart-rate', from: '2026-01-01', statistics: ['skew'] }],
      ['latest_readings', { patientId: id, max: 1000 }],
      ['glucose_summary', { patientId: id, timeZone: 'Mars/Olympus_Mons' }],
      ['glucose_summary', { patientId: id, timeZone: '../etc' }],
      ['glucose_summary', { patientId: id, unit: 'g/L' }],
      ['glucose_summary', { patientId: id, targets: 'children' }],
      ['glucose_summary', { patientId: id, from: '2020-01-01', to: '2026-01-01' }],
      ['glucose_summary', { patientId: id, from: '2026-01-10', to: '2026-01-01' }],
      ['clinical_record', { patientId: id, cursor: 'abc' }],
      ['get_omh_schema', { readingType: '__proto__' }],
      ['get_omh_schema', { readingType: 'constructor' }],
      ['list_studies', { pageSize: -5 }],
      ['list_studies', { cursor: Buffer.from(JSON.stringify({ t: 'list_studies', s: 'x', at: 99 })).toString('base64url') }],
    ];
    for (const [name, args] of cases) {
      const result = await tool(asPractitioner, name, args);
      expect(result.isError, `${name} ${JSON.stringify(args).slice(0, 80)}`).toBe(true);
      expect((result.content[0] as { text: string }).text).not.toMatch(/at \w+ \(|node_modules|TypeError/);
    }
    // A tool that does not exist is no tool's error but the protocol's (the specification's -32602, as the SDK answers it).
    await expect(tool(asPractitioner, 'no_such_tool', {})).rejects.toMatchObject({ code: -32602, message: expect.stringContaining('no_such_tool not found') });
    // A `__proto__` key of the arguments is a key like any other, dropped as unknown.
    const proto = JSON.parse(`{"patientId": ${id}, "__proto__": {"format": "fhir"}, "constructor": 1}`);
    expect((await ok(asPractitioner, 'get_readings', proto)).readings).toHaveLength(7);
    // Search syntax inside a unit is escaped: a unit, matching nothing, not more parameters.
    expect((await ok(asPractitioner, 'search_readings_by_value', { patientId: id, readingType: 'heart-rate', comparator: 'gt', value: 1, unit: 'kg|x$y,z' })).total).toBe(0);
    // A cursor of another tool, or of other arguments, is refused as such.
    const page = await ok(asPractitioner, 'get_readings', { patientId: id, pageSize: 1 });
    expect(await refused(asPractitioner, 'get_readings', { patientId: id, readingType: 'heart-rate', cursor: page.nextCursor })).toMatch(/another question/);
    expect(await refused(asPractitioner, 'list_studies', { cursor: page.nextCursor })).toMatch(/another question/);
    // The exchange still works, and every refusal said what was wrong.
    expect((await ok(asPractitioner, 'list_studies', {})).count).toBe(1);
    expect(unexpected).toEqual([]);
  });
});
