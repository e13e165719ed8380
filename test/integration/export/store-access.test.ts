/**
 * How an export reads the stores, on DynamoDB Local and s3rver: never a Scan (the service's client
 * refuses one), every read of patient data a key-condition Query or key read on the patient's
 * partition, strongly consistent; the files reached through pre-signed S3 addresses. The worker is
 * the local runtime's (the worker Lambda's handler, fed by npm start's queue).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { config } from '../../../shared/config';
import { loadWorker } from '../../../local/handlers';
import { startLocalExportWorker, type LocalExportWorker } from '../../../local/export-worker';
import { forbidScans, condition, postAuxiliary } from '../../support/auxiliary';
import { makeFhirSource, makeDataSource } from '../../support/directory';
import { injectFault, recordCommands } from '../../support/faults';
import { exportStore } from '../../../shared/export/store/current';
import { download, finished, kickOff } from '../../support/export';
import { allPages, observation, observationWorld, upload, type ObservationWorld } from '../../support/observations';

let world: ObservationWorld;
let worker: LocalExportWorker;
beforeAll(async () => {
  forbidScans();
  worker = startLocalExportWorker(await loadWorker());
  world = await observationWorld({ codes: ['omh:heart-rate:2.0'] });
  const readings = Array.from({ length: 40 }, (_, i) => observation(world, { at: Date.UTC(2025, 4, 1, 0, i), form: 'date_time' }));
  expect((await upload(world.patient.token, readings)).status).toBe(200);
  const source = await makeFhirSource({ patient: world.patient, dataSource: await makeDataSource({ type: 'patient_app' }) });
  expect((await postAuxiliary('Condition', condition(), world.patient.token, source.id)).status).toBe(201);
});
afterAll(() => worker.stop());

describe('a part recorded but not counted', () => {
  it('(its run stopped between the two writes) is counted once when its message comes again, and the job completes', async () => {
    const kicked = await kickOff(world.practitioner.token, '/FHIR/R5/$export?_type=Patient');
    const jobId = kicked.headers['content-location']!.split('/').pop()!;
    // The count of the part fails once, as if the worker stopped right after recording the part.
    let failed = 0;
    const stop = injectFault(async (command, send) => {
      const countsThePart = command.name === 'UpdateItemCommand' && JSON.stringify(command.input.Key).includes(jobId) && String(command.input.UpdateExpression).includes('#counted');
      if (countsThePart && failed++ === 0) {
        throw Object.assign(new Error('injected: the worker stopped'), { name: 'TimeoutError' });
      }
      return send();
    });
    try {
      await worker.idle();
    } finally {
      stop();
    }
    expect(failed).toBeGreaterThan(0);
    const job = await exportStore().jobs.get(jobId);
    expect(job).toMatchObject({ status: 'complete', partsDone: job!.partsTotal });
    const manifest = await finished(world.practitioner.token, kicked);
    expect(manifest.output.map((f) => [f.type, f.count])).toEqual([['Patient', 1]]);
  });
});

describe('an export on the engines', () => {
  it('reads by key only, strongly consistently, never scans, and its files download through pre-signed S3 addresses', async () => {
    const recorded = recordCommands();
    let manifest;
    try {
      const kicked = await kickOff(world.practitioner.token, '/FHIR/R5/$export');
      expect(kicked.status, kicked.text).toBe(202);
      await worker.idle();
      manifest = await finished(world.practitioner.token, kicked);
    } finally {
      recorded.stop();
    }
    const names = recorded.commands.map((c) => c.name);
    expect(names).not.toContain('ScanCommand');
    const data = [config().observationsTable, config().auxTable];
    const reads = recorded.commands.filter((c) => ['QueryCommand', 'GetItemCommand', 'BatchGetItemCommand'].includes(c.name));
    const onData = reads.filter((c) => data.includes(c.input.TableName) || data.some((t) => c.input.RequestItems?.[t]));
    expect(onData.length).toBeGreaterThan(2);
    for (const c of onData) {
      const table = c.input.TableName ?? data.find((t) => c.input.RequestItems?.[t]);
      const consistent = c.input.ConsistentRead ?? c.input.RequestItems?.[table]?.ConsistentRead;
      expect(consistent, JSON.stringify(c.input).slice(0, 200)).toBe(true);
      if (c.name === 'QueryCommand') expect(c.input.KeyConditionExpression).toMatch(/^#pk = :pk/);
    }
    const counts = Object.fromEntries(manifest.output.map((f) => [f.type, f.count]));
    const searched = (await allPages(world.practitioner.token, '_count=1000')).reduce((n, p) => n + p.json.entry.length, 0);
    expect(counts).toMatchObject({ Patient: 1, Observation: searched, Condition: 1, Group: 1, Device: 1 });
    for (const file of manifest.output) {
      const got = await download(world.practitioner.token, file.url);
      expect(got.redirect.headers['location']).toMatch(new RegExp(`^http://127\\.0\\.0\\.1:\\d+/${config().exports.bucket}/.+X-Amz-Signature=`));
      expect(got.contentType).toBe('application/fhir+ndjson');
      expect(got.lines).toHaveLength(file.count);
    }
  });
});
