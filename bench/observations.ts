/**
 * Mobile-health observations against one local DynamoDB (on disk by default, `BENCH_ENGINE`), in
 * one run, each against the store operation a row-per-reading layout would send, on the same
 * engine: the same readings as layout-2 rows in a table of their own (`bench/row-table.ts`).
 * `BENCH_PARTS=upload,http,day,writers,search` (all but `search` by default):
 *
 * 1. `upload`, the store rate: one device's minute heart rates through the FHIR handler in uploads
 *    of 100, one after another, in readings a second, against a raw BatchWriteItem of the rows and
 *    id pointers layout 2 would write for them (no condition). Rounds, alternately first.
 * 2. `http`: one patient with N = 1,000, 5,000 and 10,000 minute heart rates (written as the store
 *    keeps them), downloaded in full over HTTP by following `next` links at `_count` 20, 100 and
 *    1000, against the row layout's paginated Query of the same rows (same page size, the code
 *    index, no FHIR work).
 * 3. `day`: a day's first page of 100 of those 10,000 (each whole day in turn) through the handler,
 *    many runs, against the row layout's Query of the same 100 rows: p50, p99 (target: our p99 at
 *    most 1.5x our p50).
 * 4. `writers`: devices of one patient uploading the same hours at once, each in a process of its
 *    own (`bench/block-writer.ts`, as Lambda instances serve them), and two in one process: block
 *    writes refused by their version condition and retried, entries answered 503, readings a second,
 *    and the store counted afterwards.
 * 5. `search`: one patient's month (about 120 readings, one page) through the handler against the
 *    row layout's Query of the same rows, p50 / p99, with 1,000 and then `BENCH_SEARCH_FILL`
 *    (100,000) readings stored (both layouts filled alike). Target: within 1.5x, not growing.
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import pMap from 'p-map';
import { REPO_ROOT, startRuntime } from '../local/runtime';
import { createDataSource } from '../shared/directory/data-sources';
import type { Id } from '../shared/directory/model';
import type { StoredObservation } from '../shared/observations/model';
import { toItem } from '../shared/observations/store/dynamo-items';
import { observationKeys } from '../shared/observations/store/dynamo-keys';
import { config } from '../shared/config';
import { chunksOf } from '../shared/lists';
import { sampleAttachment } from '../shared/omh/samples';
import { liftEffectiveTime } from '../shared/omh/effective-time';
import { injectFault } from '../test/support/faults';
import { storedReadings } from '../test/support/load-count';
import { download } from './client-figures';
import { HOUR, HR, invoke, postBatch, reading, send, storeRawReadings, world, type World } from './observation-world';
import { copyPatientRows, rawBatchWrite, rawQuery, storeRows } from './row-table';
import { median, percentile, printTable } from './table';

const MINUTE = 60_000;
const UPLOAD_READINGS = Number(process.env.BENCH_UPLOAD_READINGS ?? 3000);
const UPLOAD_BATCH = 100;
const UPLOAD_ROUNDS = Number(process.env.BENCH_UPLOAD_ROUNDS ?? 3);
const SEARCH_RUNS = Number(process.env.BENCH_SEARCH_RUNS ?? 300);
const SEARCH_FILL = Number(process.env.BENCH_SEARCH_FILL ?? 100_000);
const DAY_RUNS = Number(process.env.BENCH_DAY_RUNS ?? 300);
const WRITER_READINGS = Number(process.env.BENCH_WRITER_READINGS ?? 1000);
/**
 * `BENCH_ENGINE=disk|memory`: DynamoDB Local on disk (as `npm start` runs it; the default) or in
 * memory. The two engines rank conditional writes and plain batch writes oppositely.
 */
const ENGINE = process.env.BENCH_ENGINE === 'memory' ? 'memory' : 'disk';
const PARTS = new Set((process.env.BENCH_PARTS ?? 'upload,http,day,writers').split(','));

/** Uploads minute readings of a patient through the handler in batches of 100; readings per second. */
async function uploadThroughHandler(w: World, patientId: Id, from: number, count: number, every = MINUTE): Promise<number> {
  const started = performance.now();
  for (const chunk of chunksOf(Array.from({ length: count }, (_, i) => from + i * every), UPLOAD_BATCH)) {
    await postBatch(w, chunk.map((at) => reading(w, patientId, at)), '201 Created');
  }
  return (count / (performance.now() - started)) * 1000;
}

let rawIds = 1e12;

/** The rows and id pointers layout 2 would write for these readings. */
function rowItemsOf(w: World, patientId: Id, from: number, count: number, every = MINUTE): Record<string, unknown>[] {
  const hr = w.codes.find((c) => c.code === HR)!;
  return Array.from({ length: count }, (_, i) => {
    const attachment = sampleAttachment(HR, { at: from + i * every, form: 'date_time' });
    const payload = JSON.parse(Buffer.from(attachment.data, 'base64').toString('utf8'));
    const id = rawIds++;
    const row = toItem({
      id, patientId, codeId: hr.id, deviceId: w.device, status: 'final', identifiers: [], data: attachment.data,
      uuid: payload.header.uuid, effective: liftEffectiveTime(payload.body), lastUpdated: new Date().toISOString(),
    });
    return [row, { ...observationKeys.pointer(id), patientId, uuid: payload.header.uuid }];
  }).flat();
}

async function uploadBench(w: World) {
  const rows: Array<Record<string, string | number>> = [];
  const rates: number[] = [];
  const ratios: number[] = [];
  // Round 0 warms both paths (the JIT of the engine and of this process) and is not reported.
  for (let round = 0; round <= UPLOAD_ROUNDS; round++) {
    const handlerPatient = await w.newPatient();
    const rawPatient = await w.newPatient();
    const from = Date.UTC(2024, 0, 1) + round * UPLOAD_READINGS * MINUTE;
    const items = rowItemsOf(w, rawPatient, from, UPLOAD_READINGS);
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
    rates.push(handler);
    ratios.push(handler / raw);
    rows.push({ round, readings: UPLOAD_READINGS, 'handler readings/s': handler.toFixed(0), 'row layout raw BatchWriteItem readings/s (row + pointer)': raw.toFixed(0), 'handler / raw': `${((handler / raw) * 100).toFixed(0)}%` });
  }
  printTable(`Store rate, DynamoDB Local ${ENGINE === 'memory' ? 'in memory' : 'on disk'} (command: BENCH_PARTS=upload npm run bench -- observations): one device's minute heart rates in uploads of ${UPLOAD_BATCH}`, rows);
  console.log(`\nstore rate: ${median(rates).toFixed(0)} readings/s (median of ${UPLOAD_ROUNDS} rounds), ${(median(ratios) * 100).toFixed(0)}% of the row layout's raw BatchWriteItem; against an earlier commit: npm run bench -- compare`);
}

/**
 * p50 / p99 of a month's search through the handler and of the row layout's Query that reads the
 * same rows (`date=2025-03` and the same month as a range).
 */
async function searchBench(patientId: Id, stored: number, dates: string, caller: { name: string; token: string }) {
  const month = { from: Date.UTC(2025, 2, 1), to: Date.UTC(2025, 3, 1) - 1 };
  const url = `/FHIR/R5/Observation?patient=${patientId}&${dates}&_count=200`;
  // Every code in date order: the effective index, whose entries hold keys only (each row fetched).
  const raw = () => rawQuery({ patientId, order: 'effective', ascending: false, time: month }, 201, true);
  const viaHandler = () => send('GET', url, caller.token);
  const expected = await raw();
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

/** Other patients' minute readings, in both layouts, until the tables hold `total` readings. */
async function fillTo(w: World, total: number, have: number) {
  const perPatient = 1000;
  const patients = Array.from({ length: Math.ceil((total - have) / perPatient) }, (_, i) => Math.min(perPatient, total - have - i * perPatient));
  await pMap(patients, async (count) => storeRows(await storeRawReadings(w, await w.newPatient(), count)), { concurrency: 2 });
}

async function searchPart(w: World) {
  const target = await w.newPatientWithLogin();
  await uploadThroughHandler(w, target.id, Date.UTC(2025, 0, 1), 1000, 6 * HOUR);
  await copyPatientRows(target.id);
  const runs = [
    { caller: { name: 'patient (device)', token: target.token }, dates: 'date=2025-03' },
    { caller: { name: 'patient (device)', token: target.token }, dates: 'date=ge2025-03-01&date=lt2025-04-01' },
    { caller: { name: 'practitioner', token: w.practitioner }, dates: 'date=2025-03' },
  ];
  const search = [];
  for (const r of runs) search.push(await searchBench(target.id, 1000, r.dates, r.caller));
  await fillTo(w, SEARCH_FILL, 1000);
  w.practitioner = await w.practitionerToken();
  runs[2]!.caller.token = w.practitioner;
  for (const r of runs) search.push(await searchBench(target.id, SEARCH_FILL, r.dates, r.caller));
  printTable("Search: one patient's month, every code (p50 / p99 over runs; target: handler within 1.5x of the row layout's Query)", search);
}

/** The row layout's paginated Query of a patient's heart rates (the code index, newest first, the fields a row is read from); [ms, rows]. */
async function rawDownload(patientId: Id, codeId: Id, count: number): Promise<[number, number]> {
  const started = performance.now();
  const rows = await rawQuery({ patientId, order: 'effective', codeId, ascending: false, time: {} }, count);
  return [performance.now() - started, rows];
}

/** One patient's `n` minute heart rates, written as the store keeps them and as layout-2 rows. */
async function patientWith(w: World, n: number): Promise<{ patientId: Id; readings: StoredObservation[] }> {
  const patientId = await w.newPatient();
  const readings = await storeRawReadings(w, patientId, n);
  await storeRows(readings);
  return { patientId, readings };
}

async function httpBench(w: World, baseUrl: string, sizes: ReadonlyArray<{ n: number; patientId: Id }>) {
  const hr = w.codes.find((c) => c.code === HR)!;
  const rows: Array<Record<string, string | number>> = [];
  for (const { n, patientId } of sizes) {
    const row: Record<string, string | number> = { N: n };
    for (const count of [20, 100, 1000]) {
      await download(baseUrl, w.practitioner, patientId, count); // warm
      await rawDownload(patientId, hr.id, count); // warm
      // Pairs, alternately first: this machine is shared and noisy, and a pair's two runs share its
      // moment, so the ratio is the median of the pairs' ratios (drift between pairs cancels).
      // The small pages take long, so they get one pair; 1000 a page (the target) gets nine.
      const times: number[] = [];
      const rawTimes: number[] = [];
      for (let pair = 0; pair < (count === 1000 ? 9 : 1); pair++) {
        const viaHttp = async () => {
          const [ms, got] = await download(baseUrl, w.practitioner, patientId, count);
          if (got !== n) throw new Error(`downloaded ${got} of ${n}`);
          times.push(ms);
        };
        const viaRaw = async () => {
          const [ms, got] = await rawDownload(patientId, hr.id, count);
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
    `Full download over HTTP, one patient's minute heart rates (command: BENCH_PARTS=http npm run bench -- observations), against the row layout's paginated Query of the same rows (at 1000 a page the medians of 9 pairs, the ratio the median of the pair ratios; against an earlier commit: npm run bench -- compare)`,
    rows,
  );
}

/** A day's first page of 100 (each of the whole days in turn) through the handler, against the row layout's Query of the same 100 rows. */
async function dayBench(w: World, patientId: Id, days: number) {
  const hr = w.codes.find((c) => c.code === HR)!;
  const dayOf = (n: number) => Date.UTC(2024, 0, 1 + (n % days));
  const url = (n: number) => `/FHIR/R5/Observation?patient=${patientId}&code=${HR}&date=${new Date(dayOf(n)).toISOString().slice(0, 10)}&_count=100`;
  const raw = (n: number) => rawQuery({ patientId, order: 'effective', codeId: hr.id, ascending: false, time: { from: dayOf(n), to: dayOf(n) + 24 * HOUR - 1 } }, 101, true);
  const first = await invoke('GET', url(0), w.practitioner);
  if (first.status !== 200 || first.json.entry?.length !== 100) throw new Error(`a day's page answered ${first.status} with ${first.json.entry?.length} readings`);
  const ours: number[] = [];
  const rows: number[] = [];
  // What each of our pages asks of the observations table: the same work every day (so its spread is the machine's), or not.
  const table = config().observationsTable;
  const work = { counting: false, requests: 0, items: 0 };
  const pages: Array<{ requests: number; items: number }> = [];
  const ourPage = async (n: number) => {
    Object.assign(work, { counting: true, requests: 0, items: 0 });
    await send('GET', url(n), w.practitioner);
    work.counting = false;
    pages.push({ requests: work.requests, items: work.items });
  };
  const stopCounting = injectFault(async ({ input }, pass) => {
    const output = await pass();
    if (work.counting && (input.TableName === table || Object.hasOwn(input.RequestItems ?? {}, table))) {
      work.requests += 1;
      work.items += (output.Items ?? output.Responses?.[table] ?? []).length;
    }
    return output;
  });
  try {
    for (let n = 0; n < DAY_RUNS + 30; n++) {
      const [a, b] = n % 2 === 0 ? [() => ourPage(n), () => raw(n)] : [() => raw(n), () => ourPage(n)];
      const t0 = performance.now();
      await a();
      const t1 = performance.now();
      await b();
      const t2 = performance.now();
      if (n < 30) continue;
      ours.push(n % 2 === 0 ? t1 - t0 : t2 - t1);
      rows.push(n % 2 === 0 ? t2 - t1 : t1 - t0);
    }
  } finally {
    stopCounting();
  }
  const range = (values: number[]) => `${Math.min(...values)}-${Math.max(...values)}`;
  console.log(`\na day's page: ${range(pages.map((p) => p.requests))} requests to the observations table, ${range(pages.map((p) => p.items))} items returned, over ${pages.length} pages`);
  const spread = percentile(ours, 99) / median(ours);
  printTable(`A day's page of 100 (command: BENCH_PARTS=day npm run bench -- observations): ${DAY_RUNS} runs over ${days} days, through the handler, against the row layout's Query of the same rows (target: our p99 at most 1.5x our p50)`, [
    { path: 'ours (handler)', 'p50 ms': median(ours).toFixed(2), 'p90 ms': percentile(ours, 90).toFixed(2), 'p99 ms': percentile(ours, 99).toFixed(2), 'p99 / p50': `${spread.toFixed(2)} ${spread <= 1.5 ? 'met' : 'missed'}` },
    { path: 'row layout raw Query', 'p50 ms': median(rows).toFixed(2), 'p90 ms': percentile(rows, 90).toFixed(2), 'p99 ms': percentile(rows, 99).toFixed(2), 'p99 / p50': (percentile(rows, 99) / median(rows)).toFixed(2) },
  ]);
}

interface WriterResult {
  ms: number;
  created: number;
  unfinished: number;
  blockPuts: number;
  refused: number;
}

/** A device's writer process (`bench/block-writer.ts`), ready to start on a line from us. */
async function startWriter(env: Record<string, string>): Promise<{ child: ChildProcessWithoutNullStreams; result: Promise<WriterResult> }> {
  // The local gateway's setting that has Powertools look for an invoke store, which the writer does not make.
  const { AWS_LAMBDA_MAX_CONCURRENCY: _concurrency, ...inherited } = process.env;
  const child = spawn(process.execPath, ['--import', 'tsx', join(REPO_ROOT, 'bench/block-writer.ts')], { cwd: REPO_ROOT, env: { ...inherited, ...env } });
  child.stderr.pipe(process.stderr);
  const lines = createInterface({ input: child.stdout });
  const out: string[] = [];
  const ready = new Promise<void>((resolve) => lines.on('line', (line) => (line === 'ready' ? resolve() : out.push(line))));
  const result = once(child, 'close').then(([code]) => {
    if (code !== 0) throw new Error(`a writer exited ${code}: ${out.join('\n').slice(-400)}`);
    return JSON.parse(out[out.length - 1]!) as WriterResult;
  });
  await Promise.race([ready, result]);
  return { child, result };
}

/** `devices` devices of one new patient uploading the same hours at once, each in its own process (or all in this one). */
async function writersRound(w: World, devices: number, inProcess: boolean): Promise<Record<string, string | number>> {
  const patientId = await w.newPatient();
  const deviceIds = [w.device, ...(await Promise.all(Array.from({ length: devices - 1 }, async (_, i) => (await createDataSource({ name: `Bench device ${i + 2}`, type: 'personal_device' })).id)))];
  const from = Date.UTC(2025, 5, 1);
  w.practitioner = await w.practitionerToken();
  let results: WriterResult[];
  let wall: number;
  if (inProcess) {
    const started = performance.now();
    results = await Promise.all(
      deviceIds.map(async (device) => {
        const t0 = performance.now();
        let created = 0;
        for (const chunk of chunksOf(Array.from({ length: WRITER_READINGS }, (_, i) => from + i * MINUTE), UPLOAD_BATCH)) {
          const res = await invoke('POST', '/FHIR/R5', w.practitioner, { resourceType: 'Bundle', type: 'batch', entry: chunk.map((at) => ({ resource: reading({ ...w, device }, patientId, at), request: { method: 'POST', url: 'Observation' } })) });
          created += (res.json.entry as Array<{ response: { status: string } }>).filter((e) => e.response.status === '201 Created').length;
        }
        return { ms: performance.now() - t0, created, unfinished: WRITER_READINGS - created, blockPuts: NaN, refused: NaN };
      }),
    );
    wall = performance.now() - started;
  } else {
    const writers = await Promise.all(deviceIds.map((deviceId) => startWriter({ BENCH_WRITER: JSON.stringify({ token: w.practitioner, patientId, deviceId, from, readings: WRITER_READINGS }) })));
    const started = performance.now();
    for (const { child } of writers) child.stdin.write('go\n');
    results = await Promise.all(writers.map((x) => x.result));
    wall = performance.now() - started;
  }
  const held = await storedReadings(patientId);
  const stored = held.size;
  const twice = [...held.values()].filter((ids) => ids.includes(',')).length;
  const created = results.reduce((n, r) => n + r.created, 0);
  const unfinished = results.reduce((n, r) => n + r.unfinished, 0);
  if (stored !== created || twice > 0) throw new Error(`${created} readings acknowledged, ${stored} stored, ${twice} of them more than once`);
  const puts = results.reduce((n, r) => n + r.blockPuts, 0);
  const refused = results.reduce((n, r) => n + r.refused, 0);
  return {
    devices: devices,
    processes: inProcess ? 1 : devices,
    'readings each': WRITER_READINGS,
    'stored (= acknowledged)': stored,
    'entries answered 503': unfinished,
    'readings/s': ((created / wall) * 1000).toFixed(0),
    'block puts': inProcess ? '-' : puts,
    'refused by the version condition (retried)': inProcess ? '-' : `${refused} (${((refused / puts) * 100).toFixed(1)}%)`,
  };
}

async function writersBench(w: World) {
  const rows: Array<Record<string, string | number>> = [];
  for (const [devices, inProcess] of [[1, false], [2, false], [4, false], [2, true]] as const) rows.push(await writersRound(w, devices, inProcess));
  printTable(
    `Devices of one patient writing the same hours at once (command: BENCH_PARTS=writers npm run bench -- observations): each device ${WRITER_READINGS} minute heart rates in uploads of ${UPLOAD_BATCH}, each device in a process of its own (as Lambda instances), or all in one; the store counted afterwards`,
    rows,
  );
}

export async function observationsBench(): Promise<void> {
  process.env.LOG_LEVEL = 'silent';
  const dataDir = mkdtempSync(join(tmpdir(), 'cdx-bench-observations-'));
  const runtime = await startRuntime({ dataDir, port: 0, seed: false, inMemory: ENGINE === 'memory' });
  try {
    const w = await world();
    if (PARTS.has('upload')) await uploadBench(w);
    if (PARTS.has('http') || PARTS.has('day')) {
      const sizes = [];
      for (const n of PARTS.has('http') ? [1000, 5000, 10000] : [10000]) sizes.push({ n, ...(await patientWith(w, n)) });
      w.practitioner = await w.practitionerToken();
      if (PARTS.has('http')) await httpBench(w, runtime.info.url!, sizes);
      if (PARTS.has('day')) await dayBench(w, sizes[sizes.length - 1]!.patientId, 6);
    }
    if (PARTS.has('writers')) await writersBench(w);
    if (PARTS.has('search')) await searchPart(w);
  } finally {
    await runtime.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}
