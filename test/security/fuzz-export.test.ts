/**
 * Fuzzing bulk export: kick-offs at the three levels with query strings of any shape (the export's
 * parameters with hostile, malformed and well-formed values, `_typeFilter` searches inside them,
 * lenient and strict handling), POST kick-offs with mutated Parameters bodies, and status and file
 * URLs with made-up or edited job ids and file names. Every answer is well formed and never a 5xx;
 * every kick-off that was accepted runs to a complete manifest.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { Study } from '../../shared/directory/model';
import { condition, postAuxiliary } from '../support/auxiliary';
import { makeDataSource, makeFhirSource, makeStudy } from '../support/directory';
import { kickOff, parameters, pathOf, runExportWork, statusOf } from '../support/export';
import { CaseCount, expectWellFormed, fuzz, fuzzTimeout } from '../support/fuzz';
import { hostileKey, hostileText, mutationsOf } from '../support/fuzz-inputs';
import { call } from '../support/invoke';
import { observation, observationWorld, upload, type ObservationWorld } from '../support/observations';

let world: ObservationWorld;
let study: Study;
const cases = new CaseCount('export');
/** A finished job of the practitioner's: its status URL and a file URL, to edit. */
let finishedJob: { status: string; file: string };

beforeAll(async () => {
  world = await observationWorld();
  study = await makeStudy({ organization: world.organization, codes: ['omh:heart-rate:2.0'], patients: [world.patient], consent: true, dataSources: [world.device] });
  const readings = Array.from({ length: 4 }, (_, i) => observation(world, { at: Date.UTC(2025, 0, 1 + i), form: i % 2 ? 'date_time' : 'start_end' }));
  expect((await upload(world.patient.token, readings)).status).toBe(200);
  const source = await makeFhirSource({ patient: world.patient, dataSource: await makeDataSource({ type: 'patient_app' }) });
  await postAuxiliary('Condition', condition(), world.patient.token, source.id);
  const kicked = await kickOff(world.practitioner.token, '/FHIR/R5/$export');
  await runExportWork();
  const manifest = (await statusOf(world.practitioner.token, kicked)).json;
  finishedJob = { status: pathOf(kicked.headers['content-location']!), file: pathOf(manifest.output[0].url) };
});
afterAll(() => console.log(cases.line()));

const QUICK = 20;
vi.setConfig({ testTimeout: fuzzTimeout(QUICK * 3) });

const PARAMS = ['_outputFormat', '_since', '_type', '_typeFilter', 'patient', '_elements', 'includeAssociatedData', '_count'];
const TYPES = ['Patient', 'Group', 'Device', 'Observation', 'Condition', 'Practitioner', 'Nope', ''];
const FILTERS = ['Observation?code=omh:heart-rate:2.0', 'Observation?date=ge2025-01-02', 'Observation?date=2025-01', 'Observation?status=final', 'Condition?clinical-status=active', 'Observation?_id=1', 'Observation?code:not=x', 'Observation?', 'Observation', 'Condition?code:text=diab'];

const value = fc.oneof(
  { weight: 3, arbitrary: hostileText },
  { weight: 2, arbitrary: fc.constantFrom('application/fhir+ndjson', 'ndjson', 'application/ndjson', 'text/csv', '2025-01-01T00:00:00Z', '2025-01-01', '9999-12-31T23:59:59+14:00', 'Patient/1', '1') },
  { weight: 2, arbitrary: fc.array(fc.constantFrom(...TYPES), { maxLength: 4 }).map((t) => t.join(',')) },
  { weight: 2, arbitrary: fc.constantFrom(...FILTERS) },
);

const query = fc.array(
  fc.tuple(fc.oneof({ weight: 4, arbitrary: fc.constantFrom(...PARAMS) }, { weight: 1, arbitrary: hostileKey }), value, fc.boolean()).map(([n, v, encoded]) => (encoded ? `${encodeURIComponent(n)}=${encodeURIComponent(v)}` : `${n}=${v}`)),
  { maxLength: 5 },
);

const level = fc.constantFrom(() => '/FHIR/R5/$export', () => '/FHIR/R5/Patient/$export', () => `/FHIR/R5/Group/${study.id}/$export`, () => '/fhir/r5/Group/abc/$export');
const prefer = fc.constantFrom('respond-async', 'respond-async, handling=lenient', 'respond-async; handling=strict', 'handling=lenient', '');
const caller = fc.constantFrom(() => world.patient.token, () => world.practitioner.token);

/** An accepted kick-off runs to a manifest; anything else is a well-formed refusal. */
async function answered(res: Awaited<ReturnType<typeof kickOff>>, token: string, what: string): Promise<void> {
  expectWellFormed(res, 'fhir', what);
  if (res.status !== 202) return;
  cases.tried('accepted and run');
  await runExportWork();
  const status = await statusOf(token, res);
  expect(status.status, `${what}: status ${status.text.slice(0, 300)}`).toBe(200);
  expect(Array.isArray(status.json.output), what).toBe(true);
}

describe('kick-offs', () => {
  it('answer any query string well, and an accepted one completes', async () => {
    await fuzz(QUICK, fc.tuple(level, query, prefer, caller), async ([path, pairs, preference, token]) => {
      cases.tried('GET kick-off');
      const url = `${path()}?${pairs.join('&')}`;
      const res = await kickOff(token(), url, { headers: { prefer: preference } });
      await answered(res, token(), `GET ${url} (${preference})`);
    });
  });

  it('answer any Parameters body well, and an accepted one completes', async () => {
    const valid = () => parameters(['_type', 'Patient,Observation'], ['_since', '2024-01-01T00:00:00Z'], ['_typeFilter', 'Observation?code=omh:heart-rate:2.0'], ['patient', `Patient/${world.patient.id}`]);
    await fuzz(QUICK, fc.tuple(level, mutationsOf(valid), caller), async ([path, body, token]) => {
      cases.tried('POST kick-off');
      const res = await kickOff(token(), path(), { body: body ?? null, headers: { 'content-type': 'application/fhir+json' } });
      await answered(res, token(), `POST ${path()} ${JSON.stringify(body).slice(0, 200)}`);
    });
  });
});

describe("a job's URLs", () => {
  it('answer made-up and edited job ids and file names with a well-formed 404 (or the owner\'s own answer)', async () => {
    const jobId = finishedJob.status.split('/').pop()!;
    // An empty id names no job but the `$export-status` path itself (a well-formed 404 or 405).
    const id = fc.oneof(hostileText, fc.constant(jobId), fc.nat().map((n) => jobId.slice(0, n % 23)), fc.string({ minLength: 22, maxLength: 22 })).filter((s) => s.length > 0);
    const file = fc.oneof(hostileText, fc.constantFrom('1-Patient-1.ndjson', '0-Device-1.ndjson', '1-Observation-1.ndjson', '999999-Patient-999999.ndjson', '1-Patient-1.json', '../1-Patient-1.ndjson'));
    await fuzz(QUICK * 3, fc.tuple(id, file, fc.constantFrom('GET status', 'DELETE other', 'GET file'), caller), async ([job, name, what, token]) => {
      cases.tried(what);
      const edited = job !== jobId;
      const path = what === 'GET file' ? `/FHIR/R5/$export-file/${encodeURIComponent(job)}/${encodeURIComponent(name)}` : `/FHIR/R5/$export-status/${encodeURIComponent(job)}`;
      // DELETE only as the patient, who does not own it: the practitioner's job stays for the other cases.
      const res = await call(what === 'DELETE other' ? 'DELETE' : 'GET', path, { token: what === 'DELETE other' ? world.patient.token : token() });
      expectWellFormed(res, 'fhir', `${what} ${path}`);
      if (edited || what === 'DELETE other') expect(res.status, `${what} ${path}`).toBe(404);
    });
    expect((await call('GET', finishedJob.status, { token: world.practitioner.token })).status).toBe(200);
  });
});
