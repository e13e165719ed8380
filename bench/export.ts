/**
 * Bulk export (`$export`, docs/export.md) against one local DynamoDB and s3rver (`npm start`'s
 * engines), in one run:
 *
 * 1. Throughput: a study of 50 patients with 2,000 heart-rate readings each (100,000 Observations)
 *    exported (kick-off through the FHIR handler, then the worker's fan-out and parts inline: one
 *    at a time, and as many at once as `npm start` runs) against the raw paginated Query of the same
 *    rows as the row layout keeps them (`bench/row-table.ts`: layout 2's effective index, the same
 *    page size and fields, no FHIR work) plus writing the same bytes to S3
 *    (one multipart upload a file, as the export wrote them), one after the other. Rounds,
 *    alternately in reverse; each ratio is the median of the rounds'. Target: at most 1.3x.
 * 2. Kick-off latency: p50 / p99 of the kick-off of that study's export through the handler (the
 *    scope resolved, the job and its parts written, the work handed over). Target: p50 < 300 ms.
 * 3. Memory: the worker alone in a fresh process (bench/export-worker-run.ts), its peak resident
 *    memory over a job of 10,000 rows and one of 100,000. Target: at most 1.2x.
 * 4. A small export as a client sees it (bench/export-small.ts): one patient's 10,000 readings,
 *    kick-off to complete manifest over HTTP, the status asked every 250 ms. Target: p50 at most 0.8 s.
 *
 * `BENCH_PARTS=small,throughput,kickoff,memory` (all by default); `BENCH_EXPORT_PATIENTS`,
 * `BENCH_EXPORT_READINGS` change the size; `BENCH_ENGINE=disk` runs DynamoDB Local on disk.
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { GetObjectCommand } from '@aws-sdk/client-s3';
import { Upload } from '@aws-sdk/lib-storage';
import pMap from 'p-map';
import { REPO_ROOT, startRuntime } from '../local/runtime';
import { config, resetConfig } from '../shared/config';
import type { Id } from '../shared/directory/model';
import { addStudyCode, createStudy, enrollPatients } from '../shared/directory/studies';
import { exportStore, useExportStore } from '../shared/export/store/current';
import type { ExportMessage } from '../shared/export/model';
import { handleMessage } from '../shared/export/worker';
import { dynamo, s3 } from '../shared/store/clients';
import { rawQuery, storeRows } from './row-table';
import { smallExportBench } from './export-small';
import { HR, send, storeRawReadings, world, type World } from './observation-world';
import { median, percentile, printTable } from './table';

const PATIENTS = Number(process.env.BENCH_EXPORT_PATIENTS ?? 50);
const READINGS = Number(process.env.BENCH_EXPORT_READINGS ?? 2000);
const PARTS = new Set((process.env.BENCH_PARTS ?? 'small,throughput,kickoff,memory').split(','));
const PAIRS = 3;
/** The worker's old-space cap in the memory runs (MB): far under a Lambda's, so a leak would fail the large run. */
const WORKER_HEAP_MB = 160;
/**
 * `BENCH_ENGINE=memory|disk`: DynamoDB Local in memory (the default here: 100,000 rows are written
 * in minutes instead of a quarter of an hour on a busy machine) or on disk as `npm start` runs it.
 * Both paths of a ratio run on the same engine.
 */
const ENGINE = process.env.BENCH_ENGINE === 'disk' ? 'disk' : 'memory';
const run = promisify(execFile);
const KICKOFFS = 40;

/** Messages handed to the worker, kept for this process to run inline. */
const waiting: ExportMessage[] = [];

/** Runs the waiting messages, `concurrency` at a time (as many parts as workers), until none is left or running. */
async function drain(concurrency = 1): Promise<void> {
  let running = 0;
  const runner = async () => {
    while (waiting.length > 0 || running > 0) {
      const message = waiting.shift();
      if (!message) {
        await new Promise((r) => setTimeout(r, 2));
        continue;
      }
      running += 1;
      try {
        await handleMessage(message, 3);
      } finally {
        running -= 1;
      }
    }
  };
  await Promise.all(Array.from({ length: concurrency }, runner));
}


/** A study of `patients` new patients with `readings` each. */
async function study(w: World, patients: number, readings: number): Promise<Id> {
  const s = await createStudy({ organizationId: w.organization, name: `Export bench ${randomUUID()}`, description: '' });
  await addStudyCode(s.id, w.codes.find((c) => c.code === HR)!.id);
  const ids: Id[] = [];
  for (let i = 0; i < patients; i++) ids.push(await w.newPatient());
  await enrollPatients(s.id, ids);
  // As the service keeps them, and as layout-2 rows for the raw side.
  await pMap(ids, async (id) => storeRows(await storeRawReadings(w, id, readings)), { concurrency: 2 });
  return s.id;
}

/** A kick-off of the study's readings and patients through the FHIR handler; the job's id. */
async function kickOff(w: World, studyId: Id): Promise<string> {
  const res = await send('GET', `/FHIR/R5/Group/${studyId}/$export?_type=Patient,Observation`, w.practitioner, undefined, { prefer: 'respond-async' });
  const location = res.headers['content-location'];
  if (res.status !== 202 || !location) throw new Error(`kick-off: ${res.status} ${res.body.toString('utf8').slice(0, 300)}`);
  return location.split('/').pop()!;
}

/** Milliseconds spent in writes to the exports table (the job's bookkeeping), while counting. */
let bookkeeping = 0;
let counting = false;

/** Times every write the export sends to its own table (one middleware on the service's DynamoDB client). */
function timeBookkeeping(): void {
  const table = config().exports.table;
  dynamo().middlewareStack.add(
    ((next: (args: unknown) => Promise<unknown>, context: { commandName?: string }) => async (args: { input: Record<string, any> }) => {
      const name = context.commandName ?? '';
      const ours = /^(UpdateItem|PutItem|BatchWriteItem|TransactWriteItems)Command$/.test(name) && JSON.stringify(args.input).includes(table);
      if (!counting || !ours) return next(args);
      const t0 = performance.now();
      try {
        return await next(args);
      } finally {
        bookkeeping += performance.now() - t0;
      }
    }) as never,
    { step: 'initialize', name: 'bench-bookkeeping' },
  );
}

/** The whole export: kick-off, fan-out and every part, `concurrency` at a time; [ms, rows]. */
async function exportOnce(w: World, studyId: Id, concurrency = 1): Promise<[number, number, string]> {
  bookkeeping = 0;
  counting = concurrency === 1;
  const started = performance.now();
  const jobId = await kickOff(w, studyId);
  await drain(concurrency);
  const ms = performance.now() - started;
  counting = false;
  const job = await exportStore().jobs.get(jobId);
  if (job?.status !== 'complete') throw new Error(`job ended ${job?.status} ${JSON.stringify(job?.failure)}`);
  const files = (await exportStore().jobs.parts(jobId)).flatMap((p) => p.files).filter((f) => f.type === 'Observation');
  return [ms, files.reduce((n, f) => n + f.count, 0), jobId];
}

/** The bytes of the job's files, as S3 holds them. */
async function filesOf(jobId: string): Promise<Buffer[]> {
  const client = await s3();
  const names = (await exportStore().jobs.parts(jobId)).flatMap((p) => p.files).map((f) => f.name);
  return Promise.all(names.map(async (name) => Buffer.from(await (await client.send(new GetObjectCommand({ Bucket: config().exports.bucket, Key: `${jobId}/${name}` }))).Body!.transformToByteArray())));
}

/**
 * The same rows read raw as the row layout keeps them (each patient's partition on its effective
 * index, the fields a row is read with, pages as large) and the same bytes written to S3; [ms, rows].
 */
async function raw(patients: readonly Id[], files: readonly Buffer[]): Promise<[number, number]> {
  const started = performance.now();
  let rows = 0;
  for (const patientId of patients) rows += await rawQuery({ patientId, order: 'effective', ascending: false, time: {}, undated: {} }, config().maxPageSize + 2);
  const client = await s3();
  for (const [i, body] of files.entries()) {
    await new Upload({ client, params: { Bucket: config().exports.bucket, Key: `bench-raw/${i}.ndjson`, Body: body, ContentType: 'application/fhir+ndjson' }, partSize: 5 * 1024 * 1024, queueSize: 1 }).done();
  }
  return [performance.now() - started, rows];
}

async function throughput(w: World, studyId: Id, patients: readonly Id[]): Promise<void> {
  w.practitioner = await w.practitionerToken();
  const [, , warm] = await exportOnce(w, studyId);
  const files = await filesOf(warm);
  await raw(patients, files);
  const rows: Array<Record<string, string | number>> = [];
  const ratios = { one: [] as number[], workers: [] as number[], withoutBookkeeping: [] as number[] };
  const workers = config().exports.localWorkers;
  for (let pair = 1; pair <= PAIRS; pair++) {
    // Alternately first, so neither always meets the engine warmer.
    const timed: Array<() => Promise<void>> = [];
    let one: [number, number, string] = [0, 0, ''];
    let many: [number, number, string] = [0, 0, ''];
    let theirs: [number, number] = [0, 0];
    timed.push(async () => void (one = await exportOnce(w, studyId)), async () => void (theirs = await raw(patients, files)), async () => void (many = await exportOnce(w, studyId, workers)));
    let written = 0;
    for (const run of pair % 2 === 1 ? timed : [...timed].reverse()) {
      await run();
      if (run === timed[0]) written = bookkeeping;
    }
    for (const [, got] of [one, many]) if (got !== theirs[1]) throw new Error(`the export wrote ${got} readings, the raw Query read ${theirs[1]}`);
    ratios.one.push(one[0] / theirs[0]);
    ratios.withoutBookkeeping.push((one[0] - written) / theirs[0]);
    ratios.workers.push(many[0] / theirs[0]);
    rows.push({
      pair,
      readings: theirs[1],
      'MB written': (files.reduce((n, f) => n + f.length, 0) / 1e6).toFixed(1),
      'raw Query + S3 s': (theirs[0] / 1000).toFixed(2),
      'export, parts one at a time s': (one[0] / 1000).toFixed(2),
      '/ raw': (one[0] / theirs[0]).toFixed(2),
      'of which job writes s': (written / 1000).toFixed(2),
      [`export, ${workers} workers (npm start) s`]: (many[0] / 1000).toFixed(2),
      [`/ raw `]: (many[0] / theirs[0]).toFixed(2),
    });
  }
  printTable(`Export of a study (${patients.length} patients x ${READINGS} readings), kick-off to complete, against the raw paginated Query + S3 upload of the same bytes, one after the other (target: at most 1.3x)`, rows);
  console.log(
    `\nexport / raw (median of ${PAIRS} rounds): parts one at a time ${median(ratios.one).toFixed(2)} (${median(ratios.withoutBookkeeping).toFixed(2)} without the job's own writes), ${workers} workers ${median(ratios.workers).toFixed(2)}`,
  );
}

async function kickoffLatency(w: World, studyId: Id): Promise<void> {
  const times: number[] = [];
  for (let i = 0; i < KICKOFFS + 5; i++) {
    const t0 = performance.now();
    await kickOff(w, studyId);
    if (i >= 5) times.push(performance.now() - t0);
    waiting.length = 0;
  }
  printTable(`Kick-off of the study's export through the handler (${KICKOFFS} after 5 warm-up; target: p50 < 300 ms)`, [
    { patients: PATIENTS, 'p50 ms': median(times).toFixed(1), 'p99 ms': percentile(times, 99).toFixed(1), 'max ms': Math.max(...times).toFixed(1) },
  ]);
}

/**
 * The worker alone in a fresh process on a job of the study's. Asynchronously: s3rver runs in this
 * process, and a blocked event loop would leave the worker's uploads unanswered.
 */
async function workerAlone(runtime: { dynamodbEndpoint: string; s3Endpoint: string }, jobId: string): Promise<{ rss: number; heap: number; ms: number }> {
  // The same old-space cap for both runs, as a Lambda's memory is one size: V8 otherwise lets the
  // heap grow lazily the longer a process allocates, which a peak would report as growth.
  const { stdout } = await run(process.execPath, [`--max-old-space-size=${WORKER_HEAP_MB}`, '--import', 'tsx', join(REPO_ROOT, 'bench/export-worker-run.ts'), jobId], {
    cwd: REPO_ROOT,
    env: { ...process.env, AWS_ENDPOINT_URL_DYNAMODB: runtime.dynamodbEndpoint, AWS_ENDPOINT_URL_S3: runtime.s3Endpoint },
  });
  return JSON.parse(stdout.trim().split('\n').pop()!);
}

async function memory(w: World, runtime: { dynamodbEndpoint: string; s3Endpoint: string }, large: Id): Promise<void> {
  const small = await study(w, Math.max(1, Math.round(PATIENTS / 10)), READINGS);
  w.practitioner = await w.practitionerToken();
  const rows: Array<Record<string, string | number>> = [];
  const peaks: Record<string, number> = {};
  for (const [name, studyId, readings] of [['small', small, Math.max(1, Math.round(PATIENTS / 10)) * READINGS], ['large', large, PATIENTS * READINGS]] as const) {
    const jobId = await kickOff(w, studyId);
    waiting.length = 0;
    const alone = await workerAlone(runtime, jobId);
    peaks[name] = alone.rss;
    rows.push({ readings, 'peak RSS MB': (alone.rss / 1e6).toFixed(0), 'peak heap + buffers MB': (alone.heap / 1e6).toFixed(0), 'worker s': (alone.ms / 1000).toFixed(1) });
  }
  printTable(`The worker alone in a fresh process (old space capped at ${WORKER_HEAP_MB} MB for both): peak memory over a job (target: the large job at most 1.2x the small one)`, rows);
  console.log(`\npeak RSS large / small: ${(peaks.large! / peaks.small!).toFixed(2)}`);
}

export async function exportBench(): Promise<void> {
  process.env.LOG_LEVEL = 'silent';
  process.env.EXPORT_MAX_JOBS = '1000';
  resetConfig();
  // On a runtime of its own, as `npm start` runs it (gateway, worker and queue), before the study's.
  if (PARTS.has('small')) await smallExportBench();
  if (!['throughput', 'kickoff', 'memory'].some((part) => PARTS.has(part))) return;
  const dataDir = mkdtempSync(join(tmpdir(), 'cdx-bench-export-'));
  const runtime = await startRuntime({ dataDir, port: 0, seed: false, gateway: false, inMemory: ENGINE === 'memory' });
  const previous = useExportStore({ ...exportStore(), queue: { send: async (messages) => void waiting.push(...messages) } });
  timeBookkeeping();
  try {
    const w = await world();
    const started = performance.now();
    const studyId = await study(w, PATIENTS, READINGS);
    const { listStudyPatientIds } = await import('../shared/directory/studies');
    const patients = await listStudyPatientIds(studyId);
    console.log(`\n${PATIENTS * READINGS} readings of ${PATIENTS} patients stored in ${((performance.now() - started) / 1000).toFixed(0)} s (DynamoDB Local ${ENGINE === 'memory' ? 'in memory' : 'on disk'})`);
    w.practitioner = await w.practitionerToken();
    if (PARTS.has('kickoff')) await kickoffLatency(w, studyId);
    if (PARTS.has('throughput')) await throughput(w, studyId, patients);
    if (PARTS.has('memory')) await memory(w, runtime.info, studyId);
  } finally {
    useExportStore(previous);
    await runtime.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}
