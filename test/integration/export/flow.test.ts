/**
 * A bulk export end to end on the twins: kick-off, polling, the manifest, downloads through the
 * 307, and what each level exports: the counts equal what searches return, a Group export leaves
 * out the patients and codes its study does not cover, `_since`, `_type`, `_typeFilter`, the three
 * `_outputFormat` spellings, a practitioner's and a patient's scope.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { makeDataSource, makeFhirSource, makeOrganization, makePatient, makePractitioner, makeStudy } from '../../support/directory';
import { condition, postAuxiliary } from '../../support/auxiliary';
import { allPages, observation, upload, type ObservationWorld } from '../../support/observations';
import { samplePayload } from '../../../shared/omh/samples';
import { download, downloadAll, finished, kickOff, parameters, runExportWork, statusOf, type Manifest } from '../../support/export';
import type { Organization, Patient, Practitioner, Study, DataSource } from '../../../shared/directory/model';
import type { WithToken } from '../../support/directory';
import { resetConfig } from '../../../shared/config';

const HR = 'omh:heart-rate:2.0';
const STEPS = 'omh:step-count:3.0';
const SLEEP = 'omh:sleep-duration:2.0';
const RR = 'omh:rr-interval:1.0';

let org: Organization;
let doctor: Practitioner & WithToken;
let alice: Patient & WithToken;
let bob: Patient & WithToken;
let carol: Patient & WithToken;
let study: Study;
let device: DataSource;
let conditionId: string;

const hour = (n: number) => Date.UTC(2025, 2, 1, n);

beforeAll(async () => {
  org = await makeOrganization();
  doctor = await makePractitioner({ organizations: [org] });
  alice = (await makePatient({ organizations: [org], login: true })) as Patient & WithToken;
  bob = (await makePatient({ organizations: [org], login: true })) as Patient & WithToken;
  carol = (await makePatient({ organizations: [org], login: true })) as Patient & WithToken;
  device = await makeDataSource({ codes: [HR, STEPS, SLEEP, RR] });
  // Everyone consents to all four codes (in a study of all four); the exported study asks for two.
  await makeStudy({ organization: org, codes: [HR, STEPS, SLEEP, RR], patients: [alice, bob, carol], consent: true, dataSources: [device] });
  study = await makeStudy({ organization: org, codes: [HR, STEPS], patients: [alice, bob], consent: true, dataSources: [device] });
  for (const [patient, n] of [[alice, 5], [bob, 3], [carol, 2]] as const) {
    const w: Pick<ObservationWorld, 'patient' | 'device'> = { patient, device };
    const readings = [
      ...Array.from({ length: n }, (_, i) => observation(w, { code: HR, at: hour(i), form: 'date_time' })),
      observation(w, { code: STEPS, at: hour(10), form: 'start_end', spanMinutes: 60 }),
      observation(w, { code: SLEEP, at: hour(20), form: 'start_end', spanMinutes: 300 }),
    ];
    expect((await upload(patient.token, readings)).status).toBe(200);
  }
  // A reading without an effective time (kept apart in the store's order: read all the same).
  const rr = samplePayload(RR) as { body: Record<string, unknown> };
  delete rr.body.effective_time_frame;
  const undated = { ...observation({ patient: alice, device }, { code: RR }), valueAttachment: { contentType: 'application/json', data: Buffer.from(JSON.stringify(rr)).toString('base64') } };
  expect((await upload(alice.token, [undated])).json.entry[0].response.status).toBe('201 Created');
  const source = await makeFhirSource({ patient: alice, dataSource: await makeDataSource({ type: 'patient_app' }) });
  const created = await postAuxiliary('Condition', condition(), alice.token, source.id);
  expect(created.status).toBe(201);
  conditionId = created.json.id;
});

async function exported(token: string, url: string, body?: unknown): Promise<Manifest> {
  const kicked = await kickOff(token, url, body === undefined ? {} : { body });
  expect(kicked.status, kicked.text).toBe(202);
  await runExportWork();
  return finished(token, kicked);
}

const counts = (m: Manifest) => {
  const out: Record<string, number> = {};
  for (const f of m.output) out[f.type] = (out[f.type] ?? 0) + f.count;
  return out;
};

async function searchTotal(token: string, query: string): Promise<number> {
  const pages = await allPages(token, query);
  return pages.reduce((n, p) => n + (p.json.entry?.filter((e: any) => e.search?.mode !== 'outcome').length ?? 0), 0);
}

describe('the CapabilityStatement', () => {
  it("instantiates the Bulk Data server's and lists export at the system level, on Patient and on Group", async () => {
    const { call } = await import('../../support/invoke');
    const cs = (await call('GET', '/FHIR/R5/metadata')).json;
    expect(cs.instantiates).toEqual(['http://hl7.org/fhir/uv/bulkdata/CapabilityStatement/bulk-data']);
    expect(cs.rest[0].operation).toEqual([expect.objectContaining({ name: 'export', definition: 'http://hl7.org/fhir/uv/bulkdata/OperationDefinition/export' })]);
    // Export's entries on each type (the types' other operations are not this suite's).
    const byType = (type: string) => (cs.rest[0].resource.find((r: any) => r.type === type).operation ?? []).filter((op: any) => op.name === 'export');
    expect(byType('Patient')).toEqual([expect.objectContaining({ name: 'export', definition: 'http://hl7.org/fhir/uv/bulkdata/OperationDefinition/patient-export' })]);
    expect(byType('Group')).toEqual([expect.objectContaining({ name: 'export', definition: 'http://hl7.org/fhir/uv/bulkdata/OperationDefinition/group-export' })]);
    expect(byType('Observation')).toEqual([]);
  });
});

describe('kick-off and status', () => {
  it('answers 202 with an absolute Content-Location and no body, then 202 with progress, then the manifest', async () => {
    const kicked = await kickOff(doctor.token, `/FHIR/R5/Group/${study.id}/$export`);
    expect(kicked.status).toBe(202);
    expect(kicked.text).toBe('');
    expect(kicked.headers['content-location']).toMatch(/^http:\/\/localhost:8000\/FHIR\/R5\/\$export-status\/[A-Za-z0-9_-]{22}$/);
    const polled = await statusOf(doctor.token, kicked);
    expect(polled.status).toBe(202);
    expect(polled.headers['x-progress']).toBe('patients 0 of 2');
    // A job just started is asked about again in a second (retryAfterOf: test/unit/export/status.test.ts).
    expect(polled.headers['retry-after']).toBe('1');
    // Polling again at once, well before Retry-After: 429.
    const tooSoon = await statusOf(doctor.token, kicked);
    expect(tooSoon.status).toBe(429);
    expect(tooSoon.headers['retry-after']).toBeDefined();
    expect(tooSoon.json.resourceType).toBe('OperationOutcome');

    await runExportWork();
    const done = await statusOf(doctor.token, kicked);
    expect(done.status).toBe(200);
    expect(done.headers['content-type']).toMatch(/^application\/json/);
    expect(Date.parse(done.headers['expires']!)).toBeGreaterThan(Date.now());
    const manifest = done.json as Manifest;
    expect(manifest.requiresAccessToken).toBe(true);
    expect(manifest.request).toBe(`http://localhost:8000/FHIR/R5/Group/${study.id}/$export`);
    expect(Date.parse(manifest.transactionTime)).toBeLessThanOrEqual(Date.now());
    expect(manifest.error).toEqual([]);
    for (const file of manifest.output) {
      const got = await download(doctor.token, file.url);
      expect(got.redirect.headers['location']).toBeDefined();
      expect(got.contentType).toBe('application/fhir+ndjson');
      expect(got.lines.length).toBe(file.count);
      expect(new Set(got.lines.map((l) => l.resourceType))).toEqual(new Set([file.type]));
    }
  });
});

describe('what a Group export holds', () => {
  it("the study's patients only, of their readings the study's codes only, its Group and its data sources", async () => {
    const manifest = await exported(doctor.token, `/FHIR/R5/Group/${study.id}/$export`);
    const patients = await downloadAll(doctor.token, manifest, 'Patient');
    expect(patients.map((p) => p.id).sort()).toEqual([String(alice.id), String(bob.id)].sort());
    const readings = await downloadAll(doctor.token, manifest, 'Observation');
    const ofStudy = readings.filter((r) => r.meta.source.endsWith('native') || r.valueAttachment);
    expect(new Set(ofStudy.map((r) => r.code.coding[0].code))).toEqual(new Set([HR, STEPS]));
    expect(readings.every((r) => r.subject.reference !== `Patient/${carol.id}`)).toBe(true);
    // Exactly what the study filter of a search returns.
    expect(ofStudy.length).toBe(await searchTotal(doctor.token, `patient._has:Group:member:_id=${study.id}&_count=100`));
    expect((await downloadAll(doctor.token, manifest, 'Group')).map((g) => g.id)).toEqual([String(study.id)]);
    expect((await downloadAll(doctor.token, manifest, 'Device')).map((d) => d.id)).toEqual([String(device.id)]);
    expect((await downloadAll(doctor.token, manifest, 'Condition')).map((c) => c.id)).toEqual([conditionId]);
  });

  it('the readings exactly as a read returns them, the Base64 payload untouched', async () => {
    const manifest = await exported(doctor.token, `/FHIR/R5/Group/${study.id}/$export?_type=Observation`);
    const [first] = await downloadAll(doctor.token, manifest, 'Observation');
    const { call } = await import('../../support/invoke');
    const read = await call('GET', `/FHIR/R5/Observation/${first.id}`, { token: doctor.token });
    expect(first).toEqual(read.json);
  });
});

describe('counts equal what searches return', () => {
  it('a practitioner exports every patient of their organizations', async () => {
    const manifest = await exported(doctor.token, '/FHIR/R5/$export');
    const c = counts(manifest);
    expect(c.Patient).toBe(3);
    expect(c.Observation).toBe(await searchTotal(doctor.token, '_count=100'));
    expect(c.Observation).toBe(5 + 3 + 2 + 6 + 1);
  });

  it('a patient exports their own data only', async () => {
    const manifest = await exported(alice.token, '/FHIR/R5/Patient/$export');
    expect((await downloadAll(alice.token, manifest, 'Patient')).map((p) => p.id)).toEqual([String(alice.id)]);
    const readings = await downloadAll(alice.token, manifest, 'Observation');
    expect(readings.length).toBe(await searchTotal(alice.token, '_count=100'));
    expect(readings.every((r) => r.subject.reference === `Patient/${alice.id}`)).toBe(true);
  });
});

describe('parameters', () => {
  it('_type narrows to the types named', async () => {
    const manifest = await exported(doctor.token, '/FHIR/R5/Patient/$export?_type=Patient,Condition');
    expect(Object.keys(counts(manifest)).sort()).toEqual(['Condition', 'Patient']);
  });

  it('_typeFilter applies Observation searches by code and date through the search kernel', async () => {
    const byCode = await exported(doctor.token, `/FHIR/R5/$export?_type=Observation&_typeFilter=${encodeURIComponent(`Observation?code=${HR}`)}`);
    expect(counts(byCode).Observation).toBe(await searchTotal(doctor.token, `code=${HR}&_count=100`));
    const window = `date=ge${new Date(hour(1)).toISOString()}&date=lt${new Date(hour(4)).toISOString()}`;
    const byDate = await exported(doctor.token, `/FHIR/R5/$export?_type=Observation&_typeFilter=${encodeURIComponent(`Observation?${window}`)}`);
    expect(counts(byDate).Observation).toBe(await searchTotal(doctor.token, `${window}&_count=100`));
    // Two filters: either matches, and a reading both match comes once.
    const either = await exported(
      doctor.token,
      `/FHIR/R5/$export?_type=Observation&_typeFilter=${encodeURIComponent(`Observation?code=${HR}`)}&_typeFilter=${encodeURIComponent(`Observation?${window}`)}`,
    );
    expect(counts(either).Observation).toBe(counts(byCode).Observation);
  });

  it('_since exports only what changed after it; a resource written after the kick-off waits for the next export', async () => {
    const before = await exported(doctor.token, '/FHIR/R5/$export?_type=Observation');
    const late = observation({ patient: alice, device }, { code: HR, at: hour(30), form: 'date_time' });
    expect((await upload(alice.token, [late])).status).toBe(200);
    expect(counts(before).Observation).toBe(17);
    const since = await exported(doctor.token, `/FHIR/R5/$export?_type=Observation&_since=${encodeURIComponent(before.transactionTime)}`);
    expect(counts(since).Observation).toBe(1);
  });

  it.each(['application/fhir+ndjson', 'application/ndjson', 'ndjson'])('_outputFormat=%s is accepted', async (format) => {
    const kicked = await kickOff(doctor.token, `/FHIR/R5/$export?_type=Patient&_outputFormat=${encodeURIComponent(format)}`);
    expect(kicked.status).toBe(202);
    await runExportWork();
    expect(counts(await finished(doctor.token, kicked)).Patient).toBe(3);
  });

  it('splits a type into several files at the size setting, each whole and named in the manifest', async () => {
    process.env.EXPORT_FILE_MAX_BYTES = '4000';
    resetConfig();
    try {
      const manifest = await exported(doctor.token, '/FHIR/R5/$export?_type=Observation');
      const files = manifest.output.filter((f) => f.type === 'Observation');
      expect(files.length).toBeGreaterThan(3);
      let total = 0;
      for (const file of files) {
        const got = await download(doctor.token, file.url);
        expect(got.lines).toHaveLength(file.count);
        total += file.count;
      }
      expect(total).toBe(counts(await exported(doctor.token, '/FHIR/R5/$export?_type=Observation')).Observation);
    } finally {
      delete process.env.EXPORT_FILE_MAX_BYTES;
      resetConfig();
    }
  });

  it('POST with a Parameters body, patient narrowing to some of the caller patients', async () => {
    const manifest = await exported(doctor.token, '/FHIR/R5/Patient/$export', parameters(['_type', 'Patient,Observation'], ['patient', `Patient/${bob.id}`]));
    expect((await downloadAll(doctor.token, manifest, 'Patient')).map((p) => p.id)).toEqual([String(bob.id)]);
    expect(counts(manifest).Observation).toBe(5);
  });
});
