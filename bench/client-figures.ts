/**
 * Figures a client sees of one patient's minute heart rates, measured the same way on any version
 * of the service: this module reaches the store only through the FHIR handler, HTTP and the
 * bench's `storeRawReadings` (which each version writes as its own layout keeps readings), so
 * `bench/compare.ts` can run it, unchanged, in a checkout of an earlier commit and compare. Run alone:
 * `node --import tsx bench/client-figures.ts` (DynamoDB Local on disk, as `npm start` runs it);
 * prints a table, then one line of JSON with the figures.
 *
 * - `store`: the store rate of one device, `BENCH_FIGURES_READINGS` (3,000) minute readings of one
 *   patient uploaded through the handler in batches of 100, one after another, after a warm-up
 *   device's 500; readings a second.
 * - `download`: 10,000 readings of one patient (`storeRawReadings`) downloaded over HTTP at 1,000 a
 *   page by following `next` links, 5 runs after a warm-up; the median.
 * - `day`: a day's first page of 100 of the same readings (`date=<day>&_count=100`, each of the six
 *   whole days in turn) through the handler, 300 runs after 30; p50, p90, p99.
 *
 * `BENCH_FIGURES=store,download,day` picks them.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { startRuntime } from '../local/runtime';
import { chunksOf } from '../shared/lists';
import { HR, postBatch, reading, send, storeRawReadings, world, type World } from './observation-world';
import { median, percentile, printTable } from './table';

const MINUTE = 60_000;
const READINGS = Number(process.env.BENCH_FIGURES_READINGS ?? 3000);
const DOWNLOADED = 10_000;
const DOWNLOAD_RUNS = 5;
const DAY_RUNS = 300;
const BATCH = 100;

type Figures = Record<string, number>;

/** Uploads `count` minute readings of a patient from `from`, in batches of 100 one after another; readings a second. */
async function upload(w: World, patientId: number, from: number, count: number): Promise<number> {
  const started = performance.now();
  for (const chunk of chunksOf(Array.from({ length: count }, (_, i) => from + i * MINUTE), BATCH)) {
    await postBatch(w, chunk.map((at) => reading(w, patientId, at)), '201 Created');
  }
  return count / ((performance.now() - started) / 1000);
}

async function storeRate(w: World): Promise<Figures> {
  await upload(w, await w.newPatient(), Date.UTC(2025, 0, 1), 500);
  const rate = await upload(w, await w.newPatient(), Date.UTC(2025, 0, 1), READINGS);
  return { 'store: readings/s': rate };
}

/** A patient's heart rates downloaded over HTTP by following `next` links, `count` a page; [ms, rows]. */
export async function download(baseUrl: string, token: string, patientId: number, count = 1000): Promise<[number, number]> {
  const started = performance.now();
  let url: string | undefined = `${baseUrl}/FHIR/R5/Observation?patient=${patientId}&code=${HR}&_count=${count}`;
  let rows = 0;
  while (url) {
    const res = await fetch(url, { headers: { authorization: `Bearer ${token}` } });
    const page = (await res.json()) as { entry?: unknown[]; link: Array<{ relation: string; url: string }> };
    if (res.status !== 200) throw new Error(`download failed: ${JSON.stringify(page).slice(0, 300)}`);
    rows += page.entry?.length ?? 0;
    url = page.link.find((l) => l.relation === 'next')?.url;
  }
  return [performance.now() - started, rows];
}

async function downloads(w: World, baseUrl: string, patientId: number): Promise<Figures> {
  const times: number[] = [];
  for (let run = 0; run <= DOWNLOAD_RUNS; run++) {
    const [ms, rows] = await download(baseUrl, w.practitioner, patientId);
    if (rows !== DOWNLOADED) throw new Error(`downloaded ${rows} of ${DOWNLOADED}`);
    if (run > 0) times.push(ms);
  }
  return { 'download 10,000 at 1,000 a page: ms': median(times), 'download: fastest ms': Math.min(...times), 'download: slowest ms': Math.max(...times) };
}

async function dayPages(w: World, patientId: number): Promise<Figures> {
  // The seeded readings start 2024-01-01T00:00Z, a minute apart: days 1 to 6 are whole (1,440 each).
  const url = (n: number) => `/FHIR/R5/Observation?patient=${patientId}&code=${HR}&date=2024-01-0${1 + (n % 6)}&_count=100`;
  const times: number[] = [];
  for (let n = 0; n < DAY_RUNS + 30; n++) {
    const t0 = performance.now();
    const res = await send('GET', url(n), w.practitioner);
    const ms = performance.now() - t0;
    if (res.status !== 200) throw new Error(`a day's page answered ${res.status}`);
    if (n >= 30) times.push(ms);
  }
  return { "a day's page of 100: p50 ms": median(times), "a day's page: p90 ms": percentile(times, 90), "a day's page: p99 ms": percentile(times, 99) };
}

async function clientFigures(parts: ReadonlySet<string>): Promise<Figures> {
  process.env.LOG_LEVEL = 'silent';
  process.env.POWERTOOLS_METRICS_DISABLED ??= 'true';
  process.env.RATE_LIMIT_PER_SECOND ??= '0';
  const dataDir = mkdtempSync(join(tmpdir(), 'cdx-bench-figures-'));
  const runtime = await startRuntime({ dataDir, port: 0, seed: false });
  try {
    const w = await world();
    const figures: Figures = {};
    if (parts.has('store')) Object.assign(figures, await storeRate(w));
    if (parts.has('download') || parts.has('day')) {
      const patientId = await w.newPatient();
      await storeRawReadings(w, patientId, DOWNLOADED);
      w.practitioner = await w.practitionerToken();
      if (parts.has('download')) Object.assign(figures, await downloads(w, runtime.info.url!, patientId));
      if (parts.has('day')) Object.assign(figures, await dayPages(w, patientId));
    }
    return figures;
  } finally {
    await runtime.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

// Run as a program (compare.ts runs it in each checkout); imported, it only lends its download.
if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const parts = new Set((process.env.BENCH_FIGURES ?? 'store,download,day').split(','));
  const figures = await clientFigures(parts);
  printTable('Client figures (DynamoDB Local on disk)', Object.entries(figures).map(([figure, value]) => ({ figure, value: value.toFixed(1) })));
  console.log(JSON.stringify(figures));
  process.exit(0);
}
