/**
 * A bulk export over HTTP against the local gateway and npm start's stores (DynamoDB Local, s3rver)
 * and its worker, as a pipeline runs it: kick-off, polling that honours Retry-After, the manifest,
 * every file followed through its 307 to s3rver's pre-signed address, the counts equal to what
 * searches return. Then the worker stopped half-way (its queue lost with the process) and a new
 * one started: the job finishes, every file whole, nothing twice.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Gateway } from '../../local/gateway';
import { loadWorker } from '../../local/handlers';
import { startLocalExportWorker, type LocalExportWorker } from '../../local/export-worker';
import { resetConfig } from '../../shared/config';
import { startTestGateway } from '../support/gateway';
import { batchOf, observation, observationWorld, type ObservationWorld } from '../support/observations';
import { makePatient, makeStudy } from '../support/directory';
import { bearer, fileLines, pollStatus, type Manifest } from '../support/export';
import type { Patient } from '../../shared/directory/model';

let gateway: Gateway;
let world: ObservationWorld;
let worker: LocalExportWorker | undefined;
const PATIENTS = 4;
const READINGS = 25;

beforeAll(async () => {
  process.env.EXPORT_PATIENTS_PER_PART = '1';
  process.env.EXPORT_RETRY_AFTER_SECONDS = '1';
  resetConfig();
  gateway = await startTestGateway({ asSite: true });
  world = await observationWorld({ codes: ['omh:heart-rate:2.0'] });
  const others: Patient[] = [];
  for (let i = 1; i < PATIENTS; i++) others.push(await makePatient({ organizations: [world.organization] }));
  await makeStudy({ organization: world.organization, codes: ['omh:heart-rate:2.0'], patients: others, consent: true, dataSources: [world.device] });
  for (const patient of [world.patient, ...others]) {
    const readings = Array.from({ length: READINGS }, (_, i) => observation({ patient: patient as ObservationWorld['patient'], device: world.device }, { at: Date.UTC(2025, 6, 1, 0, i), form: 'date_time' }));
    const res = await fetch(`${gateway.url}/FHIR/R5/`, { method: 'POST', headers: bearer(world.practitioner.token, { 'content-type': 'application/fhir+json' }), body: JSON.stringify(batchOf(readings)) });
    expect(res.status).toBe(200);
  }
});
afterAll(async () => {
  await worker?.stop();
  await gateway.close();
  delete process.env.EXPORT_PATIENTS_PER_PART;
  delete process.env.EXPORT_RETRY_AFTER_SECONDS;
  resetConfig();
});

async function searchCount(token: string): Promise<number> {
  const res = await fetch(`${gateway.url}/FHIR/R5/Observation?_summary=count`, { headers: bearer(token) });
  return ((await res.json()) as { total: number }).total;
}

describe('an export over HTTP', () => {
  it('runs from kick-off to downloaded files, with the counts a search gives', async () => {
    worker = startLocalExportWorker(await loadWorker());
    const kicked = await fetch(`${gateway.url}/FHIR/R5/$export?_type=Patient,Observation`, { headers: bearer(world.practitioner.token, { prefer: 'respond-async', accept: 'application/fhir+json' }) });
    expect(kicked.status).toBe(202);
    const status = kicked.headers.get('content-location')!;
    expect(status.startsWith(`${gateway.url}/FHIR/R5/$export-status/`)).toBe(true);
    const done = await pollStatus(status, world.practitioner.token);
    expect(done.status).toBe(200);
    const manifest = (await done.json()) as Manifest;
    expect((await fileLines(manifest, 'Patient', world.practitioner.token)).length).toBe(PATIENTS);
    const readings = await fileLines(manifest, 'Observation', world.practitioner.token);
    expect(readings.length).toBe(await searchCount(world.practitioner.token));
    expect(readings.length).toBe(PATIENTS * READINGS);
    // Without the token the service refuses to redirect.
    expect((await fetch(manifest.output[0]!.url, { redirect: 'manual' })).status).toBe(401);
    await worker.stop();
    worker = undefined;
  });

  it('finishes after its worker stopped half-way and a new one started: files whole, nothing twice', async () => {
    worker = startLocalExportWorker(await loadWorker(), { concurrency: 1 });
    const kicked = await fetch(`${gateway.url}/FHIR/R5/$export?_type=Observation`, { headers: bearer(world.practitioner.token, { prefer: 'respond-async' }) });
    expect(kicked.status).toBe(202);
    // The process stops: what runs finishes, what waits in its queue is lost with it.
    await worker.stop();
    const status = kicked.headers.get('content-location')!;
    expect((await fetch(status, { headers: bearer(world.practitioner.token) })).status).toBe(202);
    // A restart: the new worker's first sweep hands out the parts that were not done.
    worker = startLocalExportWorker(await loadWorker());
    const done = await pollStatus(status, world.practitioner.token);
    expect(done.status).toBe(200);
    const readings = await fileLines((await done.json()) as Manifest, 'Observation', world.practitioner.token);
    expect(readings.length).toBe(PATIENTS * READINGS);
    expect(new Set(readings.map((r) => r.id)).size).toBe(readings.length);
  });
});
