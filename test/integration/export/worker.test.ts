/**
 * The worker's side of an export on the twins: a worker stopped half-way and resumed (files whole,
 * nothing twice), a part that fails mid-file and is delivered again, a part that fails at every
 * delivery (the job fails), a job without progress marked failed (by its status request and by the
 * sweep), expired jobs swept away, a patient who left the study meanwhile reported in the error
 * file, an owner deactivated meanwhile.
 */
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { makeDataSource, makeOrganization, makePatient, makePractitioner, makeStudy, type WithToken } from '../../support/directory';
import { allPages, observation, upload } from '../../support/observations';
import { downloadAll, finished, kickOff, pathOf, runExportWork, statusOf, type Manifest } from '../../support/export';
import { call } from '../../support/invoke';
import { twinsInUse } from '../../support/store';
import { sweepExports } from '../../../shared/export/worker';
import { unenrollPatient } from '../../../shared/directory/studies';
import { updateUser } from '../../../shared/directory/users';
import { resetConfig } from '../../../shared/config';
import { resetLoggers } from '../../../shared/telemetry/logger';
import { capturedLines } from '../../support/logs';
import type { Organization, Patient, Practitioner, Study, DataSource } from '../../../shared/directory/model';
import type { ExportFiles } from '../../../shared/export/store/port';

const HR = 'omh:heart-rate:2.0';
let org: Organization;
let doctor: Practitioner & WithToken;
let patients: Array<Patient & WithToken>;
let study: Study;
let device: DataSource;
const READINGS = 30;

beforeAll(async () => {
  // Two patients a part: six patients make three parts, and part 0 for the study and its device.
  process.env.EXPORT_PATIENTS_PER_PART = '2';
  resetConfig();
  org = await makeOrganization();
  doctor = await makePractitioner({ organizations: [org] });
  device = await makeDataSource({ codes: [HR] });
  patients = [];
  for (let i = 0; i < 6; i++) patients.push((await makePatient({ organizations: [org], login: true })) as Patient & WithToken);
  study = await makeStudy({ organization: org, codes: [HR], patients, consent: true, dataSources: [device] });
  for (const patient of patients) {
    const readings = Array.from({ length: READINGS }, (_, i) => observation({ patient, device }, { code: HR, at: Date.UTC(2025, 3, 1, 0, i), form: 'date_time' }));
    expect((await upload(patient.token, readings)).status).toBe(200);
  }
  return () => {
    delete process.env.EXPORT_PATIENTS_PER_PART;
    resetConfig();
  };
});

const files = () => twinsInUse()!.exports.files;
let restore: (() => void) | undefined;
afterEach(() => {
  restore?.();
  restore = undefined;
});

/** Makes the twin's file writers fail: the `n`th write of each of the next `times` files opened. */
function failWrites(n: number, times = 1): void {
  const store: ExportFiles = files();
  const open = store.open;
  let left = times;
  store.open = (jobId, name) => {
    const writer = open(jobId, name);
    if (left <= 0) return writer;
    left -= 1;
    let writes = 0;
    return { ...writer, write: async (text) => (++writes === n ? Promise.reject(new Error('injected: the connection to S3 dropped')) : writer.write(text)) };
  };
  restore = () => void (store.open = open);
}

async function everyReading(manifest: Manifest): Promise<string[]> {
  return (await downloadAll(doctor.token, manifest, 'Observation')).map((o) => o.id);
}

const searchIds = async () => (await allPages(doctor.token, `patient._has:Group:member:_id=${study.id}&_count=1000`)).flatMap((p) => p.json.entry.map((e: any) => e.resource.id));

describe('a worker stopped half-way', () => {
  it('resumes after a restart: every part once, the files whole, nothing twice', async () => {
    const kicked = await kickOff(doctor.token, `/FHIR/R5/Group/${study.id}/$export`);
    // Three of its four parts run; then the process stops and its queue is lost with it.
    expect((await runExportWork(3)).length).toBe(3);
    twinsInUse()!.exports.queue.take();
    expect((await statusOf(doctor.token, kicked)).headers['x-progress']).toMatch(/^patients [24] of 6$/);
    // The restarted runtime's sweep hands the unfinished parts out again.
    expect(await sweepExports({ resume: true })).toMatchObject({ resumed: 1 });
    await runExportWork();
    const manifest = await finished(doctor.token, kicked);
    const ids = await everyReading(manifest);
    expect(ids.length).toBe(6 * READINGS);
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids.sort()).toEqual((await searchIds()).sort());
    expect((await downloadAll(doctor.token, manifest, 'Patient')).length).toBe(6);
  });

  it('a part delivered twice counts once', async () => {
    const kicked = await kickOff(doctor.token, `/FHIR/R5/Group/${study.id}/$export?_type=Observation`);
    const jobId = pathOf(kicked.headers['content-location']!).split('/').pop()!;
    // Every part message delivered twice, as SQS may.
    const messages = twinsInUse()!.exports.queue.take();
    expect(messages.map((m) => m.kind)).toEqual(['part', 'part', 'part']);
    await twinsInUse()!.exports.queue.send([...messages, ...messages]);
    await runExportWork();
    const job = await twinsInUse()!.exports.jobs.get(jobId);
    expect(job).toMatchObject({ status: 'complete', partsDone: 3, partsTotal: 3, patientsDone: 6 });
    const ids = await everyReading(await finished(doctor.token, kicked));
    expect(ids.length).toBe(6 * READINGS);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('a part that fails half-way through a file runs again from the start, and its file is whole', async () => {
    const kicked = await kickOff(doctor.token, `/FHIR/R5/Group/${study.id}/$export?_type=Observation`);
    failWrites(17);
    await runExportWork();
    const ids = await everyReading(await finished(doctor.token, kicked));
    expect(ids.length).toBe(6 * READINGS);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('a part that fails at every delivery fails its job with an OperationOutcome, and its files go', async () => {
    const kicked = await kickOff(doctor.token, `/FHIR/R5/Group/${study.id}/$export?_type=Observation`);
    failWrites(1, 100);
    await runExportWork();
    const status = await statusOf(doctor.token, kicked);
    expect(status.status).toBe(500);
    expect(status.json.resourceType).toBe('OperationOutcome');
    expect(status.json.issue[0].diagnostics).toMatch(/after 3 attempts/);
    const jobId = pathOf(kicked.headers['content-location']!).split('/').pop()!;
    expect(twinsInUse()!.snapshot().exports.filter((l) => l.startsWith('["objects"') && l.includes(jobId))).toEqual([]);
    // A failed job no longer counts against its owner; a new export starts.
    expect((await kickOff(doctor.token, '/FHIR/R5/$export?_type=Patient')).status).toBe(202);
    await runExportWork();
  });
});

describe('reading ahead', () => {
  it('reads every page of every patient once, whatever the page size (each next page and patient read while one is written)', async () => {
    process.env.MAX_PAGE_SIZE = '5';
    resetConfig();
    try {
      const kicked = await kickOff(doctor.token, `/FHIR/R5/Group/${study.id}/$export?_type=Observation`);
      await runExportWork();
      const ids = await everyReading(await finished(doctor.token, kicked));
      expect(ids.length).toBe(6 * READINGS);
      expect(new Set(ids).size).toBe(ids.length);
      expect(ids.sort()).toEqual((await searchIds()).sort());
    } finally {
      delete process.env.MAX_PAGE_SIZE;
      resetConfig();
    }
  });
});

describe('the hand-off to the worker', () => {
  it('a job of a few parts queues its parts at the kick-off; a larger one queues one message the worker fans out', async () => {
    const small = await kickOff(doctor.token, `/FHIR/R5/Group/${study.id}/$export`);
    expect(small.status).toBe(202);
    expect(twinsInUse()!.exports.queue.take()).toEqual([0, 1, 2, 3].map((part) => ({ kind: 'part', jobId: expect.any(String), part })));
    const clinic = await makeOrganization();
    const manager = await makePractitioner({ organizations: [clinic] });
    for (let i = 0; i < 12; i++) await makePatient({ organizations: [clinic] });
    // One patient a part: the manager's twelve patients are twelve parts, more than one send carries.
    process.env.EXPORT_PATIENTS_PER_PART = '1';
    resetConfig();
    try {
      const large = await kickOff(manager.token, '/FHIR/R5/$export?_type=Patient');
      const jobId = pathOf(large.headers['content-location']!).split('/').pop()!;
      expect(twinsInUse()!.exports.queue.take()).toEqual([{ kind: 'start', jobId }]);
      await twinsInUse()!.exports.queue.send([{ kind: 'start', jobId }]);
      expect((await runExportWork()).filter((m) => m.kind === 'part')).toHaveLength(12);
      expect((await downloadAll(manager.token, await finished(manager.token, large), 'Patient')).length).toBe(12);
    } finally {
      process.env.EXPORT_PATIENTS_PER_PART = '2';
      resetConfig();
    }
  });
});

describe('a job without progress', () => {
  it('is marked failed when its status is asked for after the stuck-job limit (never 202 forever)', async () => {
    const kicked = await kickOff(doctor.token, '/FHIR/R5/$export?_type=Patient');
    twinsInUse()!.exports.queue.take(); // the worker never gets it
    process.env.EXPORT_STUCK_AFTER_SECONDS = '1';
    resetConfig();
    try {
      await new Promise((r) => setTimeout(r, 1100));
      const status = await statusOf(doctor.token, kicked);
      expect(status.status).toBe(500);
      expect(status.json.issue[0].diagnostics).toMatch(/made no progress/);
    } finally {
      delete process.env.EXPORT_STUCK_AFTER_SECONDS;
      resetConfig();
    }
  });

  it('is marked failed by the sweep, which counts it for the alarm', async () => {
    const kicked = await kickOff(doctor.token, '/FHIR/R5/$export?_type=Patient');
    twinsInUse()!.exports.queue.take();
    const swept = await sweepExports({ now: Date.now() + 2 * 3600 * 1000 });
    expect(swept.stuck).toBeGreaterThanOrEqual(1);
    expect((await statusOf(doctor.token, kicked)).status).toBe(500);
  });
});

describe('expiry', () => {
  it('a finished job answers until it expires; then the sweep deletes it and its files, and it is a 404', async () => {
    const kicked = await kickOff(doctor.token, '/FHIR/R5/$export?_type=Patient');
    await runExportWork();
    const manifest = await finished(doctor.token, kicked);
    const jobId = pathOf(kicked.headers['content-location']!).split('/').pop()!;
    const swept = await sweepExports({ now: Date.now() + 25 * 3600 * 1000 });
    expect(swept.removed).toBeGreaterThanOrEqual(1);
    expect(await twinsInUse()!.exports.jobs.get(jobId)).toBeUndefined();
    expect(twinsInUse()!.snapshot().exports.filter((l) => l.includes(jobId))).toEqual([]);
    expect((await statusOf(doctor.token, kicked)).status).toBe(404);
    expect((await call('GET', pathOf(manifest.output[0]!.url), { token: doctor.token })).status).toBe(404);
  });
});

describe('the audit trail', () => {
  it("has a line for each part: whose data went into the job's files, and for whom", async () => {
    process.env.LOG_LEVEL = 'info';
    resetConfig();
    resetLoggers();
    try {
      const kicked = await kickOff(doctor.token, `/FHIR/R5/Group/${study.id}/$export?_type=Patient`);
      const jobId = pathOf(kicked.headers['content-location']!).split('/').pop()!;
      const { lines } = await capturedLines(() => runExportWork());
      const audits = lines.filter((l) => l.message === 'audit' && l.service === 'export-worker').map((l) => l.audit);
      expect(audits).toHaveLength(3);
      for (const audit of audits) expect(audit).toMatchObject({ action: 'export', who: { kind: 'practitioner', userId: doctor.id }, result: 200, route: expect.stringContaining(jobId) });
      expect(audits.flatMap((a) => a.patients).sort((a: number, b: number) => a - b)).toEqual(patients.map((p) => p.id).sort((a, b) => a - b));
    } finally {
      process.env.LOG_LEVEL = 'silent';
      resetConfig();
      resetLoggers();
    }
  });
});

describe('changes after the kick-off', () => {
  it('a patient who left the study meanwhile is not exported, and the error file says so', async () => {
    const [leaving] = patients.slice(-1);
    const kicked = await kickOff(doctor.token, `/FHIR/R5/Group/${study.id}/$export?_type=Patient,Observation`);
    await unenrollPatient(study.id, leaving!.id);
    await runExportWork();
    const manifest = await finished(doctor.token, kicked);
    expect((await downloadAll(doctor.token, manifest, 'Patient')).map((p) => p.id)).not.toContain(String(leaving!.id));
    const errors = await downloadAll(doctor.token, manifest, 'OperationOutcome', 'error');
    expect(errors).toHaveLength(1);
    expect(errors[0].issue[0].diagnostics).toContain(`Patient ${leaving!.id}`);
    expect((await everyReading(manifest)).length).toBe(5 * READINGS);
  });

  it("an owner deactivated meanwhile: the job fails with a 403, nothing more is exported", async () => {
    const nurse = await makePractitioner({ organizations: [org] });
    const kicked = await kickOff(nurse.token, '/FHIR/R5/$export?_type=Patient,Observation');
    await updateUser(nurse.id, { active: false });
    await runExportWork();
    await updateUser(nurse.id, { active: true });
    const status = await statusOf(nurse.token, kicked);
    expect(status.status).toBe(403);
    expect(status.json.issue[0].diagnostics).toMatch(/can no longer read data/);
  });
});
