/**
 * Every bad kick-off is a 4xx OperationOutcome that starts nothing: a parameter this export does
 * not have or cannot apply (unless `Prefer: handling=lenient`), a bad value, no `Prefer:
 * respond-async`, another organization's study, a patient out of reach, more running jobs than
 * allowed. And the job's URLs answer only the caller that started it.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { makeDataSource, makeOrganization, makePatient, makePractitioner, makeStudy, type WithToken } from '../../support/directory';
import { observation, upload } from '../../support/observations';
import { download, finished, kickOff, parameters, pathOf, runExportWork, statusOf } from '../../support/export';
import { call } from '../../support/invoke';
import { everyStoredRow, twinsInUse } from '../../support/store';
import { tokenFor } from '../../support/directory';
import type { Organization, Patient, Practitioner, Study } from '../../../shared/directory/model';
import { resetConfig } from '../../../shared/config';

let org: Organization;
let doctor: Practitioner & WithToken;
let colleague: Practitioner & WithToken;
let outsider: Practitioner & WithToken;
let alice: Patient & WithToken;
let bob: Patient & WithToken;
let study: Study;
let otherStudy: Study;

beforeAll(async () => {
  org = await makeOrganization();
  const other = await makeOrganization();
  doctor = await makePractitioner({ organizations: [org] });
  colleague = await makePractitioner({ organizations: [org] });
  outsider = await makePractitioner({ organizations: [other] });
  alice = (await makePatient({ organizations: [org], login: true })) as Patient & WithToken;
  bob = (await makePatient({ organizations: [org], login: true })) as Patient & WithToken;
  const device = await makeDataSource({ codes: ['omh:heart-rate:2.0'] });
  study = await makeStudy({ organization: org, codes: ['omh:heart-rate:2.0'], patients: [alice, bob], consent: true, dataSources: [device] });
  otherStudy = await makeStudy({ organization: other, codes: ['omh:heart-rate:2.0'] });
  expect((await upload(alice.token, [observation({ patient: alice, device })])).status).toBe(200);
});

/** A refused kick-off: its status, an OperationOutcome, and nothing stored or queued. */
async function refused(token: string | undefined, url: string, options: Parameters<typeof kickOff>[2] = {}) {
  const before = await everyStoredRow();
  const res = await kickOff(token, url, options);
  expect(res.json?.resourceType, `${url} -> ${res.status} ${res.text}`).toBe('OperationOutcome');
  expect(res.headers['content-location']).toBeUndefined();
  expect(await everyStoredRow()).toEqual(before);
  return res;
}

describe('a kick-off that starts nothing', () => {
  it.each([
    ['an unknown parameter', '/FHIR/R5/$export?_elements=id'],
    ['includeAssociatedData', '/FHIR/R5/$export?includeAssociatedData=LatestProvenanceResources'],
    ['another output format', '/FHIR/R5/$export?_outputFormat=application/fhir%2Bjson'],
    ['a CSV output format', '/FHIR/R5/$export?_outputFormat=text/csv'],
    ['_outputFormat twice', '/FHIR/R5/$export?_outputFormat=ndjson&_outputFormat=ndjson'],
    ['_since without a time zone', '/FHIR/R5/$export?_since=2025-01-01T00:00:00'],
    ['_since as a date', '/FHIR/R5/$export?_since=2025-01-01'],
    ['_since that is no instant', '/FHIR/R5/$export?_since=yesterday'],
    ['_since of an impossible day', '/FHIR/R5/$export?_since=2025-02-31T00:00:00Z'],
    ['_since twice', '/FHIR/R5/$export?_since=2025-01-01T00:00:00Z&_since=2025-01-02T00:00:00Z'],
    ['a _type that is not exported', '/FHIR/R5/$export?_type=Practitioner'],
    ['a _type that does not exist', '/FHIR/R5/$export?_type=Nonsense'],
    ['an empty _type', '/FHIR/R5/$export?_type=,'],
    ['a _typeFilter on a type left out', `/FHIR/R5/$export?_type=Patient&_typeFilter=${encodeURIComponent('Observation?code=omh:heart-rate:2.0')}`],
    ['a _typeFilter with an unknown parameter', `/FHIR/R5/$export?_typeFilter=${encodeURIComponent('Observation?nonsense=1')}`],
    ['a _typeFilter with a malformed date', `/FHIR/R5/$export?_typeFilter=${encodeURIComponent('Observation?date=notadate')}`],
    ['a _typeFilter naming patients', `/FHIR/R5/$export?_typeFilter=${encodeURIComponent('Observation?patient=1')}`],
    ['a _typeFilter with _sort', `/FHIR/R5/$export?_typeFilter=${encodeURIComponent('Observation?_sort=date')}`],
    ['a _typeFilter on Patient', `/FHIR/R5/$export?_typeFilter=${encodeURIComponent('Patient?name=x')}`],
    ['patient in a GET', '/FHIR/R5/Patient/$export?patient=Patient/1'],
  ])('%s: 400', async (_what, url) => {
    expect((await refused(doctor.token, url)).status).toBe(400);
  });

  it('without Prefer: respond-async: 400 saying so', async () => {
    const res = await refused(doctor.token, '/FHIR/R5/$export', { headers: { prefer: 'return=minimal' } });
    expect(res.status).toBe(400);
    expect(res.json.issue[0].diagnostics).toMatch(/Prefer: respond-async/);
  });

  it.each([
    ['a body that is no Parameters', { resourceType: 'Patient' }],
    ['a list', [1, 2]],
    ['parameter that is no list', { resourceType: 'Parameters', parameter: { name: '_type' } }],
    ['a parameter without a name', { resourceType: 'Parameters', parameter: [{ valueString: 'x' }] }],
    ['a parameter without a value', { resourceType: 'Parameters', parameter: [{ name: '_type' }] }],
    ['a patient that is no reference', parameters(['patient', 'Observation/1'])],
    ['a patient reference that is no id', parameters(['patient', 'Patient/abc'])],
    ['a constructor parameter', { resourceType: 'Parameters', parameter: [{ name: 'constructor', valueString: 'x' }] }],
    ['a __proto__ parameter', JSON.parse('{"resourceType":"Parameters","parameter":[{"name":"__proto__","valueString":"x"}]}')],
    ['{"constructor":1}', { constructor: 1 }],
  ])('POST with %s: 400', async (_what, body) => {
    expect((await refused(doctor.token, '/FHIR/R5/Patient/$export', { body })).status).toBe(400);
  });

  it('POST with a query string: 400', async () => {
    expect((await refused(doctor.token, '/FHIR/R5/$export?_type=Patient', { body: parameters(['_type', 'Patient']) })).status).toBe(400);
  });

  it('POST with JSON nested 10,000 deep: 400', async () => {
    const deep = `${'['.repeat(10_000)}${']'.repeat(10_000)}`;
    const res = await refused(doctor.token, '/FHIR/R5/$export', { body: deep, headers: { 'content-type': 'application/fhir+json' } });
    expect(res.status).toBe(400);
  });

  it("another organization's study: 404, as a study that does not exist", async () => {
    expect((await refused(doctor.token, `/FHIR/R5/Group/${otherStudy.id}/$export`)).status).toBe(404);
    expect((await refused(doctor.token, '/FHIR/R5/Group/999999/$export')).status).toBe(404);
    expect((await refused(doctor.token, '/FHIR/R5/Group/abc/$export')).status).toBe(404);
    // A patient not enrolled in it does not see it either.
    const carol = (await makePatient({ organizations: [org], login: true })) as Patient & WithToken;
    expect((await refused(carol.token, `/FHIR/R5/Group/${study.id}/$export`)).status).toBe(404);
  });

  it("a practitioner naming another organization's patient: 403", async () => {
    expect((await refused(outsider.token, '/FHIR/R5/Patient/$export', { body: parameters(['patient', `Patient/${alice.id}`]) })).status).toBe(403);
  });

  it('without a token or with a forged one: 401', async () => {
    expect((await refused(undefined, '/FHIR/R5/$export')).status).toBe(401);
    expect((await refused(`${doctor.token.slice(0, -4)}AAAA`, '/FHIR/R5/$export')).status).toBe(401);
  });

  it('under Prefer: handling=lenient, what cannot be applied is left out and the export runs', async () => {
    const url = `/FHIR/R5/$export?_type=Patient,Practitioner&_elements=id&_typeFilter=${encodeURIComponent('Patient?name=x')}`;
    const kicked = await kickOff(doctor.token, url, { headers: { prefer: 'respond-async, handling=lenient' } });
    expect(kicked.status).toBe(202);
    await runExportWork();
    const manifest = await finished(doctor.token, kicked);
    expect(manifest.output.map((f) => f.type)).toEqual(['Patient']);
    expect(decodeURIComponent(manifest.request)).toBe(decodeURIComponent(`http://localhost:8000${url}`));
  });

  it('beyond the running jobs a caller may have: 429 with Retry-After, until one finishes', async () => {
    process.env.EXPORT_MAX_JOBS = '2';
    resetConfig();
    try {
      for (let i = 0; i < 2; i++) expect((await kickOff(colleague.token, '/FHIR/R5/$export?_type=Patient')).status).toBe(202);
      const third = await refused(colleague.token, '/FHIR/R5/$export?_type=Patient');
      expect(third.status).toBe(429);
      expect(Number(third.headers['retry-after'])).toBeGreaterThan(0);
      // Another caller is not held up by it.
      expect((await kickOff(bob.token, '/FHIR/R5/$export?_type=Patient')).status).toBe(202);
      await runExportWork();
      expect((await kickOff(colleague.token, '/FHIR/R5/$export?_type=Patient')).status).toBe(202);
      await runExportWork();
    } finally {
      delete process.env.EXPORT_MAX_JOBS;
      resetConfig();
    }
  });
});

describe("a job's URLs", () => {
  it('answer only the caller that started it: anyone else gets 404, whatever they try, and nothing changes', async () => {
    const kicked = await kickOff(doctor.token, `/FHIR/R5/Group/${study.id}/$export`);
    await runExportWork();
    const manifest = await finished(doctor.token, kicked);
    const status = pathOf(kicked.headers['content-location']!);
    const file = pathOf(manifest.output[0]!.url);
    const before = await everyStoredRow();
    for (const token of [colleague.token, outsider.token, alice.token]) {
      for (const [method, path] of [['GET', status], ['DELETE', status], ['GET', file]] as const) {
        const res = await call(method, path, { token });
        expect(res.status, `${method} ${path}`).toBe(404);
        expect(res.json.resourceType).toBe('OperationOutcome');
        expect(res.headers['location']).toBeUndefined();
      }
    }
    for (const [method, path] of [['GET', status], ['DELETE', status], ['GET', file]] as const) expect((await call(method, path)).status).toBe(401);
    expect(await everyStoredRow()).toEqual(before);
    // The same account through another token still owns it.
    expect((await call('GET', file, { token: await tokenFor(doctor) })).status).toBe(307);
  });

  it('an edited job id or file name is a 404 that reveals nothing', async () => {
    const kicked = await kickOff(doctor.token, '/FHIR/R5/$export?_type=Patient');
    await runExportWork();
    const manifest = await finished(doctor.token, kicked);
    const status = pathOf(kicked.headers['content-location']!);
    const jobId = status.split('/').pop()!;
    const edited = `${jobId.slice(0, -1)}${jobId.endsWith('A') ? 'B' : 'A'}`;
    for (const path of [
      status.replace(jobId, edited),
      status.replace(jobId, `${jobId}x`),
      status.replace(jobId, '..%2F..%2Fetc'),
      pathOf(manifest.output[0]!.url).replace('.ndjson', '.json'),
      pathOf(manifest.output[0]!.url).replace(/\/[^/]+$/, '/1-Patient-99.ndjson'),
      pathOf(manifest.output[0]!.url).replace(/\/[^/]+$/, '/..%2F..%2Fsecret'),
    ]) {
      const res = await call('GET', path, { token: doctor.token });
      expect(res.status, path).toBe(404);
    }
  });

  it('answers from the configured site URL whatever Host the request carried', async () => {
    const kicked = await kickOff(doctor.token, '/FHIR/R5/$export?_type=Patient', { headers: { host: 'evil.example', 'x-forwarded-host': 'evil.example' } });
    expect(kicked.status).toBe(202);
    expect(kicked.headers['content-location']).toMatch(/^http:\/\/localhost:8000\//);
    await runExportWork();
    const manifest = await finished(doctor.token, kicked);
    expect(JSON.stringify(manifest)).not.toContain('evil.example');
  });
});

describe('cancel', () => {
  it('a finished job: 202, its files removed, every later request 404', async () => {
    const kicked = await kickOff(doctor.token, '/FHIR/R5/$export?_type=Patient,Observation');
    await runExportWork();
    const manifest = await finished(doctor.token, kicked);
    const status = pathOf(kicked.headers['content-location']!);
    const cancelled = await call('DELETE', status, { token: doctor.token });
    expect(cancelled.status).toBe(202);
    expect(cancelled.json.resourceType).toBe('OperationOutcome');
    const jobId = status.split('/').pop()!;
    expect(twinsInUse()!.snapshot().exports.filter((line) => line.startsWith('["objects"') && line.includes(jobId))).toEqual([]);
    for (const [method, path] of [['GET', status], ['DELETE', status], ['GET', pathOf(manifest.output[0]!.url)]] as const) {
      const res = await call(method, path, { token: doctor.token });
      expect(res.status).toBe(404);
      expect(res.json.resourceType).toBe('OperationOutcome');
    }
  });

  it('a running job: 202, its parts stop, nothing is written after, and it no longer counts against the caller', async () => {
    const kicked = await kickOff(alice.token, '/FHIR/R5/$export');
    expect((await call('DELETE', pathOf(kicked.headers['content-location']!), { token: alice.token })).status).toBe(202);
    await runExportWork();
    expect((await statusOf(alice.token, kicked)).status).toBe(404);
    const jobId = kicked.headers['content-location']!.split('/').pop()!;
    expect(twinsInUse()!.snapshot().exports.filter((line) => line.startsWith('["objects"') && line.includes(jobId))).toEqual([]);
  });
});

describe('a download', () => {
  it('redirects with 307 to a short-lived address of a file stored as application/fhir+ndjson; no file byte comes through the service', async () => {
    const kicked = await kickOff(alice.token, '/FHIR/R5/Patient/$export?_type=Observation');
    await runExportWork();
    const manifest = await finished(alice.token, kicked);
    const got = await download(alice.token, manifest.output[0]!.url);
    expect(got.redirect.status).toBe(307);
    expect(got.redirect.text).toBe('');
    expect(got.redirect.headers['cache-control']).toBe('no-store');
    expect(got.contentType).toBe('application/fhir+ndjson');
    expect(got.lines).toHaveLength(1);
  });
});
