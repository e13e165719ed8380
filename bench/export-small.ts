/**
 * A small export as a client sees it (part of `npm run bench -- export`): one patient's 10,000
 * heart-rate readings, `Patient/$export` with the patient's own token, over HTTP against the local
 * runtime as `npm start` runs it (DynamoDB Local on disk, s3rver, the gateway, the worker and its
 * queue in the process). The client runs in a thread of its own, as a client in another process
 * would: it sends the kick-off, then asks the status URL every 250 ms from the kick-off (at 250,
 * 500, 750 ms ...) until the manifest comes. The time is from sending the kick-off to reading the
 * complete manifest; beside it, when the job itself was complete (as the worker recorded it).
 * Target: p50 at most 0.8 s.
 *
 * `BENCH_SMALL_READINGS` (10,000) and `BENCH_SMALL_RUNS` (9, after one warm-up) change the size.
 */
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { startRuntime } from '../local/runtime';
import { exportStore, useExportStore } from '../shared/export/store/current';
import { storeRawReadings, world } from './observation-world';
import { median, printTable } from './table';

const READINGS = Number(process.env.BENCH_SMALL_READINGS ?? 10_000);
const RUNS = Number(process.env.BENCH_SMALL_RUNS ?? 9);
const POLL_MS = 250;


/** The client thread: one export a message, answered with `{ms, polls, readings}` (or `{error}`). Plain JavaScript, run as is. */
const CLIENT = `
const { parentPort, workerData: { base, token, pollMs } } = require('node:worker_threads');
async function exportOnce() {
  const auth = { authorization: 'Bearer ' + token };
  const started = performance.now();
  const kicked = await fetch(base + '/FHIR/R5/Patient/$export', { headers: { ...auth, prefer: 'respond-async' } });
  await kicked.arrayBuffer();
  const status = kicked.headers.get('content-location');
  if (kicked.status !== 202 || !status) throw new Error('kick-off: ' + kicked.status);
  for (let polls = 1; ; polls++) {
    // Every pollMs from the kick-off, or at once when an answer took longer than that.
    await new Promise((r) => setTimeout(r, Math.max(0, started + polls * pollMs - performance.now())));
    const res = await fetch(status, { headers: auth });
    const body = await res.text();
    if (res.status === 200) {
      const readings = JSON.parse(body).output.filter((o) => o.type === 'Observation').reduce((n, o) => n + o.count, 0);
      return { ms: performance.now() - started, polls, readings, jobId: status.split('/').pop() };
    }
    if (res.status !== 202 && res.status !== 429) throw new Error('status: ' + res.status + ' ' + body);
  }
}
parentPort.on('message', () => exportOnce().then((got) => parentPort.postMessage(got), (error) => parentPort.postMessage({ error: String(error) })));
`;

interface Run {
  ms: number;
  polls: number;
  readings: number;
  jobId: string;
}

export async function smallExportBench(): Promise<void> {
  const dataDir = mkdtempSync(join(tmpdir(), 'cdx-bench-export-small-'));
  const runtime = await startRuntime({ dataDir, port: 0, seed: false });
  // When the job was complete, as the worker recorded it: the client's time less this is what polling adds.
  let sent = 0;
  let completeAt = 0;
  const store = exportStore();
  useExportStore({
    ...store,
    jobs: {
      ...store.jobs,
      finish: async (...args) => {
        const finished = await store.jobs.finish(...args);
        if (finished && args[1] === 'complete') completeAt = performance.now() - sent;
        return finished;
      },
    },
  });
  const w = await world();
  const patient = await w.newPatientWithLogin();
  await storeRawReadings(w, patient.id, READINGS);
  const client = new Worker(CLIENT, { eval: true, workerData: { base: runtime.gateway!.url, token: patient.token, pollMs: POLL_MS } });
  try {
    const times: number[] = [];
    const jobTimes: number[] = [];
    const rows: Array<Record<string, string | number>> = [];
    for (let i = 0; i <= RUNS; i++) {
      sent = performance.now();
      client.postMessage('go');
      const [got] = (await once(client, 'message')) as [Run & { error?: string }];
      if (got.error) throw new Error(got.error);
      if (got.readings !== READINGS) throw new Error(`the manifest counts ${got.readings} readings, not ${READINGS}`);
      if (i === 0) {
        const files = (await exportStore().jobs.parts(got.jobId)).flatMap((p) => p.files).filter((f) => f.type === 'Observation');
        console.log(`\nthe readings' file: ${files.map((f) => `${f.name}, ${(f.bytes / 1e6).toFixed(1)} MB`).join('; ')}`);
        continue;
      }
      times.push(got.ms);
      jobTimes.push(completeAt);
      rows.push({ run: i, 'job complete ms': completeAt.toFixed(0), 'kick-off to manifest ms': got.ms.toFixed(0), 'status requests': got.polls });
    }
    printTable(`A small export: one patient's ${READINGS} readings, Patient/$export over HTTP to the local runtime (DynamoDB Local on disk), the status asked every ${POLL_MS} ms (target: p50 at most 0.8 s)`, rows);
    console.log(
      `\nsmall export, kick-off to complete manifest: p50 ${(median(times) / 1000).toFixed(2)} s (${(Math.min(...times) / 1000).toFixed(2)}-${(Math.max(...times) / 1000).toFixed(2)}, ${RUNS} runs after a warm-up); the job itself complete at p50 ${(median(jobTimes) / 1000).toFixed(2)} s (load average ${loadavg()[0]!.toFixed(1)})`,
    );
  } finally {
    await client.terminate();
    useExportStore(store);
    await runtime.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}
