/**
 * Mobile-health observations against one local DynamoDB (on disk by default, `BENCH_ENGINE`), in one run:
 *
 * 1. Upload throughput: the FHIR handler (a batch Bundle through auth, checks, conditional
 *    transactions and id pointers) against a raw BatchWriteItem of the same items (rows and
 *    pointers), in readings per second. Target: the handler at least 70% of raw.
 * 2. Search latency for one patient's month (about 120 readings, one page) through the handler
 *    against the raw Query that reads the same rows, p50 / p99, with 1,000 and then 100,000 rows
 *    stored. Target: within 1.5x of raw, and not growing with the table.
 * 3. The reference's load shape over HTTP (a running gateway, `fetch`): one patient with N = 1,000,
 *    5,000 and 10,000 heart-rate readings, downloaded in full by following `next` links at
 *    `_count` 20, 100 and 1000, against the raw paginated Query of the same rows (same page size,
 *    same index, no FHIR work). Target: linear in N; N = 10,000 at 1000 a page within 1.3x of raw.
 */
import { BatchWriteCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startRuntime } from '../local/runtime';
import pMap from 'p-map';
import { config } from '../shared/config';
import type { Id } from '../shared/directory/model';
import { toItem } from '../shared/observations/store/dynamo-items';
import { codePrefix, effectiveSortKey, INDEX, observationKeys } from '../shared/observations/store/dynamo-keys';
import { chunksOf } from '../shared/lists';
import { dynamo } from '../shared/store/clients';
import { sampleAttachment } from '../shared/omh/samples';
import { liftEffectiveTime } from '../shared/omh/effective-time';
import { HOUR, HR, invoke, postBatch, reading, send, world, type World } from './observation-world';
import { median, percentile, printTable } from './table';

const UPLOAD_READINGS = Number(process.env.BENCH_UPLOAD_READINGS ?? 6000);
const UPLOAD_BATCH = 500;
const SEARCH_RUNS = Number(process.env.BENCH_SEARCH_RUNS ?? 300);
/**
 * `BENCH_ENGINE=disk|memory`: DynamoDB Local on disk (as `npm start` runs it; the default) or in
 * memory. The two engines rank conditional transactions and plain batch writes oppositely, so the
 * upload ratio is reported for both in docs/benchmarks.md.
 */
const ENGINE = process.env.BENCH_ENGINE === 'memory' ? 'memory' : 'disk';

/** `BENCH_PARTS=search,upload,http` (all by default). */
const PARTS = new Set((process.env.BENCH_PARTS ?? 'search,upload,http').split(','));

/** Uploads readings of a patient through the handler; returns readings per second. */
async function uploadThroughHandler(w: World, patientId: Id, from: number, count: number, every = HOUR): Promise<number> {
  const started = performance.now();
  for (const chunk of chunksOf(Array.from({ length: count }, (_, i) => from + i * every), UPLOAD_BATCH)) {
    await postBatch(w, chunk.map((at) => reading(w, patientId, at)), '201 Created');
  }
  return (count / (performance.now() - started)) * 1000;
}

let rawIds = 1e12;

/** The rows and pointers the handler would write for these readings. */
function itemsOf(w: World, patientId: Id, from: number, count: number): Record<string, unknown>[] {
  const hr = w.codes.find((c) => c.code === HR)!;
  return Array.from({ length: count }, (_, i) => {
    const attachment = sampleAttachment(HR, { at: from + i * HOUR, form: 'date_time' });
    const payload = JSON.parse(Buffer.from(attachment.data, 'base64').toString('utf8'));
    const id = rawIds++;
    const row = toItem({
      id, patientId, codeId: hr.id, deviceId: w.device, status: 'final', identifiers: [], data: attachment.data,
      uuid: payload.header.uuid, effective: liftEffectiveTime(payload.body), lastUpdated: new Date().toISOString(),
    });
    return [row, { ...observationKeys.pointer(id), patientId, uuid: payload.header.uuid }];
  }).flat();
}

/** Raw BatchWriteItem of items, 25 a call, 4 calls in flight (as the handler's batch writes). */
async function rawBatchWrite(items: Record<string, unknown>[]): Promise<number> {
  const table = config().observationsTable;
  const started = performance.now();
  await pMap(chunksOf(items, 25), async (chunk) => {
    let pending = chunk.map((Item) => ({ PutRequest: { Item } }));
    while (pending.length > 0) {
      const out = await dynamo().send(new BatchWriteCommand({ RequestItems: { [table]: pending } }));
      pending = (out.UnprocessedItems?.[table] ?? []) as typeof pending;
    }
  }, { concurrency: 4 });
  return performance.now() - started;
}

async function uploadBench(w: World) {
  const rows: Array<Record<string, string | number>> = [];
  const ratios: number[] = [];
  const ROUNDS = 5;
  // Round 0 warms both paths (the JIT of the engine and of this process) and is not reported.
  for (let round = 0; round <= ROUNDS; round++) {
    const handlerPatient = await w.newPatient();
    const rawPatient = await w.newPatient();
    const from = Date.UTC(2024, 0, 1) + round * UPLOAD_READINGS * HOUR;
    const items = itemsOf(w, rawPatient, from, UPLOAD_READINGS);
    const viaRaw = async () => (UPLOAD_READINGS / (await rawBatchWrite(items))) * 1000;
    const viaHandler = () => uploadThroughHandler(w, handlerPatient, from, UPLOAD_READINGS);
    // Alternate which goes first, so neither always meets the engine warmer.
    let handler: number;
    let raw: number;
    if (round % 2 === 0) {
      handler = await viaHandler();
      raw = await viaRaw();
    } else {
      raw = await viaRaw();
      handler = await viaHandler();
    }
    if (round === 0) continue;
    ratios.push(handler / raw);
    rows.push({ round, readings: UPLOAD_READINGS, 'handler readings/s': handler.toFixed(0), 'raw BatchWriteItem readings/s (row + pointer)': raw.toFixed(0), 'handler / raw': `${((handler / raw) * 100).toFixed(0)}%` });
  }
  printTable(`Upload throughput, DynamoDB Local ${ENGINE === "memory" ? "in memory" : "on disk"} (batches of ${UPLOAD_BATCH}; target: handler >= 70% of raw)`, rows);
  return median(ratios);
}

/**
 * p50 / p99 of a month's search through the handler and of the raw Query that reads the same rows.
 * The month asked as FHIR writes it (`date=2025-03`, readings within March), and as a range
 * (`ge` + `lt`, which also needs the patient's longest reading to bound its key).
 */
async function searchBench(patientId: Id, stored: number, dates: string, caller: { name: string; token: string }) {
  const month = { from: Date.UTC(2025, 2, 1), to: Date.UTC(2025, 3, 1) };
  const url = `/FHIR/R5/Observation?patient=${patientId}&${dates}&_count=200`;
  const table = config().observationsTable;
  const raw = () =>
    dynamo().send(
      new QueryCommand({
        TableName: table,
        IndexName: 'byEffective',
        KeyConditionExpression: 'pk = :pk AND effSk BETWEEN :a AND :b',
        ExpressionAttributeValues: { ':pk': observationKeys.patientPk(patientId), ':a': effectiveSortKey(month.from, 0), ':b': `${new Date(month.to - 1).toISOString()}#~` },
        ScanIndexForward: false,
        ConsistentRead: true,
        Limit: 201,
        // The effective index holds keys only: the same rows, whole, are fetched from the table.
        Select: 'ALL_ATTRIBUTES',
      }),
    );
  const viaHandler = () => send('GET', url, caller.token);
  const expected = (await raw()).Items!.length;
  const first = await invoke('GET', url, caller.token);
  if (first.status !== 200) throw new Error(`search answered ${first.status}: ${JSON.stringify(first.json).slice(0, 300)}`);
  const got = first.json.entry?.length ?? 0;
  if (got !== expected) throw new Error(`search returned ${got} rows, the raw Query ${expected}`);
  const time = async (op: () => Promise<unknown>) => {
    const t0 = performance.now();
    await op();
    return performance.now() - t0;
  };
  for (let i = 0; i < 50; i++) await Promise.all([viaHandler(), raw()]);
  const handlerTimes: number[] = [];
  const rawTimes: number[] = [];
  for (let i = 0; i < SEARCH_RUNS; i++) {
    handlerTimes.push(await time(viaHandler));
    rawTimes.push(await time(raw));
  }
  return {
    stored,
    caller: caller.name,
    search: dates,
    rows: expected,
    'handler p50 ms': median(handlerTimes).toFixed(2),
    'handler p99 ms': percentile(handlerTimes, 99).toFixed(2),
    'raw Query p50 ms': median(rawTimes).toFixed(2),
    'raw Query p99 ms': percentile(rawTimes, 99).toFixed(2),
    'p50 ratio': (median(handlerTimes) / median(rawTimes)).toFixed(2),
    'p99 ratio': (percentile(handlerTimes, 99) / percentile(rawTimes, 99)).toFixed(2),
  };
}

/** Other patients' rows, written raw, until the table holds `total` readings. */
async function fillTo(w: World, total: number, have: number) {
  const perPatient = 1000;
  for (let n = have; n < total; n += perPatient) {
    const patient = await w.newPatient();
    await rawBatchWrite(itemsOf(w, patient, Date.UTC(2024, 6, 1), Math.min(perPatient, total - n)).filter((i) => String(i.pk).startsWith('P#')));
  }
}

/**
 * The same rows read raw: the paginated Query the search sends (the patient's partition on the
 * code index, newest first, strongly consistent), `count` rows a call, following
 * LastEvaluatedKey; no FHIR work, no HTTP. Returns [ms, rows].
 */
async function rawDownload(patientId: Id, codeId: Id, count: number): Promise<[number, number]> {
  const started = performance.now();
  let start: Record<string, unknown> | undefined;
  let rows = 0;
  do {
    const out = await dynamo().send(
      new QueryCommand({
        TableName: config().observationsTable,
        IndexName: INDEX.byCodeEffective.name,
        KeyConditionExpression: 'pk = :pk AND begins_with(#sk, :code)',
        ExpressionAttributeNames: { '#sk': INDEX.byCodeEffective.sortKey },
        ExpressionAttributeValues: { ':pk': observationKeys.patientPk(patientId), ':code': codePrefix(codeId) },
        ScanIndexForward: false,
        ConsistentRead: true,
        Limit: count,
        ...(start ? { ExclusiveStartKey: start } : {}),
      }),
    );
    rows += out.Items?.length ?? 0;
    start = out.LastEvaluatedKey;
  } while (start);
  return [performance.now() - started, rows];
}

/** Full download over HTTP following `next` links; returns [ms, rows]. */
async function download(baseUrl: string, token: string, patientId: Id, count: number): Promise<[number, number]> {
  const started = performance.now();
  let url: string | undefined = `${baseUrl}/FHIR/R5/Observation?patient=${patientId}&code=${HR}&_count=${count}`;
  let rows = 0;
  while (url) {
    const res = await fetch(url, { headers: { authorization: `Bearer ${token}` } });
    const page = (await res.json()) as { entry: unknown[]; link: Array<{ relation: string; url: string }> };
    if (res.status !== 200) throw new Error(`download failed: ${JSON.stringify(page).slice(0, 300)}`);
    rows += page.entry.length;
    url = page.link.find((l) => l.relation === 'next')?.url;
  }
  return [performance.now() - started, rows];
}

async function httpBench(w: World, baseUrl: string) {
  const patient = await w.newPatient();
  const hr = w.codes.find((c) => c.code === HR)!;
  const rows: Array<Record<string, string | number>> = [];
  let have = 0;
  for (const n of [1000, 5000, 10000]) {
    await uploadThroughHandler(w, patient, Date.UTC(2023, 0, 1) + have * HOUR, n - have);
    have = n;
    const row: Record<string, string | number> = { N: n };
    for (const count of [20, 100, 1000]) {
      await download(baseUrl, w.practitioner, patient, count); // warm
      await rawDownload(patient, hr.id, count); // warm
      // Pairs, alternately first: this machine is shared and noisy, and a pair's two runs share its
      // moment, so the ratio is the median of the pairs' ratios (drift between pairs cancels).
      // The small pages take long, so they get one pair; 1000 a page (the target) gets nine.
      const times: number[] = [];
      const rawTimes: number[] = [];
      for (let pair = 0; pair < (count === 1000 ? 9 : 1); pair++) {
        const viaHttp = async () => {
          const [ms, got] = await download(baseUrl, w.practitioner, patient, count);
          if (got !== n) throw new Error(`downloaded ${got} of ${n}`);
          times.push(ms);
        };
        const viaRaw = async () => {
          const [ms, got] = await rawDownload(patient, hr.id, count);
          if (got !== n) throw new Error(`the raw Query read ${got} of ${n}`);
          rawTimes.push(ms);
        };
        if (pair % 2 === 0) await viaHttp().then(viaRaw);
        else await viaRaw().then(viaHttp);
      }
      const [ms, rawMs] = [median(times), median(rawTimes)];
      row[`_count=${count} s`] = (ms / 1000).toFixed(2);
      row[`_count=${count} µs/row`] = ((ms * 1000) / n).toFixed(0);
      row[`_count=${count} raw s`] = (rawMs / 1000).toFixed(2);
      row[`_count=${count} / raw`] = median(times.map((t, i) => t / rawTimes[i]!)).toFixed(2);
    }
    rows.push(row);
  }
  printTable(
    'Full download over HTTP, one patient, against the raw paginated Query of the same rows (reference for N = 10,000: 57.4 s / 12.9 s / 3.5 s at _count 20 / 100 / 1000; target: N = 10,000 at 1000 a page within 1.3x of raw; at 1000 a page the medians of 9 pairs, the ratio the median of the pair ratios)',
    rows,
  );
}

export async function observationsBench(): Promise<void> {
  process.env.LOG_LEVEL = 'silent';
  const dataDir = mkdtempSync(join(tmpdir(), 'cdx-bench-observations-'));
  const runtime = await startRuntime({ dataDir, port: 0, seed: false, inMemory: ENGINE === 'memory' });
  try {
    const w = await world();

    // Searches first, while the table holds only the rows they count.
    if (PARTS.has('search')) {
    const target = await w.newPatientWithLogin();
    await uploadThroughHandler(w, target.id, Date.UTC(2025, 0, 1), 1000, 6 * HOUR);
    const runs = [
      { caller: { name: 'patient (device)', token: target.token }, dates: 'date=2025-03' },
      { caller: { name: 'patient (device)', token: target.token }, dates: 'date=ge2025-03-01&date=lt2025-04-01' },
      { caller: { name: 'practitioner', token: w.practitioner }, dates: 'date=2025-03' },
    ];
    const search = [];
    for (const r of runs) search.push(await searchBench(target.id, 1000, r.dates, r.caller));
    await fillTo(w, 100_000, 1000);
    for (const r of runs) search.push(await searchBench(target.id, 100_000, r.dates, r.caller));
    printTable("Search: one patient's month (p50 / p99 over runs; target: handler within 1.5x of the raw Query)", search);
    }

    if (PARTS.has('upload')) {
      const ratio = await uploadBench(w);
      console.log(`\nupload: handler at ${(ratio * 100).toFixed(0)}% of raw BatchWriteItem (median of rounds)`);
    }

    if (PARTS.has('http')) await httpBench(w, runtime.info.url!);
  } finally {
    await runtime.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}
