/**
 * `npm run bench -- values`: value searches, `$lastn` and `$stats` over readings stored through
 * POST /FHIR/R5/ (batches of 100 or 200, as devices send them, each keeping its day summaries), on
 * DynamoDB Local in memory, each against the raw store operation a row-per-reading layout would
 * send for it, in the same run on the same engine: the same readings are copied as layout-2 rows
 * into a table of their own (`bench/row-table.ts`). `BENCH_PARTS=spread,clustered` (both by default).
 *
 * **spread**: one patient's 10,000 minute heart rates and 10,000 minute blood pressures whose high
 * values fall in every hour, not in one bout: every 100th reading at the top level (1%), every 50th
 * at least the second (2%), every 10th at least the third (10%); the rest a resting curve. Each of
 * the six searches (`value-quantity=gt149|gt139|gt119` on the heart rates,
 * `component-code-value-quantity=<systolic>$gt179|gt169|gt149` on the blood pressures; every page at
 * 1,000, through the FHIR handler, the handler's answers as API Gateway receives them) against
 * (a) the raw paginated Query of the code's 10,000 rows (the code index, the fields a row is read
 * from, 1,000 a page; target: at most 0.15x) and (b) BatchGetItem of the matching rows by their
 * keys, 100 a call (target: at most 1.5x). The three run in turn, the order rotating; each ratio is
 * the median of the runs' ratios.
 *
 * **clustered** (the earlier shape): minute heart rates of one patient at each size of
 * `BENCH_VALUES_SIZES` (43,200, a month; a patient-year is 525,600), a resting curve (55-90
 * beats/min) with one exercise bout a day above 120 covering 1% of the minutes. Per size:
 *
 * - a value search over the first month (`value-quantity=gt120`, 1% of its readings, every page at
 *   1,000) and one matching everything (`gt0`) vs the raw paginated Query of the month's rows: the
 *   handler's answers as API Gateway receives them, and `gt0` also with each answer decoded as a
 *   client would; `gt120` also against BatchGetItem of its matching rows by key (targets as the
 *   spread shape's: at most 0.15x the Query, 1.5x the key reads);
 * - `Observation/$lastn` (max=1) over the table's codes with a payload schema (19; one reading of
 *   each other code is stored too) vs a raw Query of Limit 1 a code, eight at a time as `$lastn`
 *   sends them;
 * - `Observation/$stats` over the year: count, minimum, maximum, average and std-dev (the day
 *   summaries' figures), and with median and quartiles (their histograms too).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import pMap from 'p-map';
import { startRuntime } from '../local/runtime';
import { DEMO_CODES, IEEE_SYSTEM, SEEDED_CODES } from '../shared/directory/codes';
import { OMH_SYSTEM } from '../shared/fhir/constants';
import { chunksOf } from '../shared/lists';
import type { ReadingKey } from '../shared/observations/model';
import type { ReadingsQuery } from '../shared/observations/store/port';
import { encodePayload, samplePayload } from '../shared/omh/samples';
import { schemaForCode } from '../shared/omh/schemas/index';
import type { Id } from '../shared/directory/model';
import { answer, HR, invoke, postBatch, world, type World } from './observation-world';
import { copyPatientRows, rawByKeys, rawQuery } from './row-table';
import { interleaved, median, percentile, printTable, rotated, timeOnce } from './table';

const PARTS = new Set((process.env.BENCH_PARTS ?? 'spread,clustered').split(','));
const SIZES = (process.env.BENCH_VALUES_SIZES ?? '43200').split(',').map(Number);
/** The codes a device uploads (those with a payload schema): `$lastn` answers each. */
const CODES = [...SEEDED_CODES, ...DEMO_CODES].filter((c) => schemaForCode(c.code)).map((c) => c.code);
const BP = 'omh:blood-pressure:4.0';
const SYSTOLIC = 'http://loinc.org|8480-6';
const MONTH_MINUTES = 30 * 1440;
const RUNS = Number(process.env.BENCH_VALUES_RUNS ?? 10);
const LASTN_RUNS = Number(process.env.BENCH_VALUES_LASTN_RUNS ?? 100);
const BATCH = 200;
/** The spread part's uploads: 100 readings each, as the issue's devices send them. */
const SPREAD_BATCH = 100;
const SPREAD_READINGS = Number(process.env.BENCH_VALUES_SPREAD_READINGS ?? 10_000);
const MINUTE = 60_000;
const CALLS = Number(process.env.BENCH_VALUES_CALLS ?? 20);
const START = Date.UTC(2025, 0, 1);

/** Each day's exercise bout: its first minute of the day (between 06:00 and 20:00), 1% of the day's minutes long. */
const BOUT_MINUTES = Math.round(1440 / 100);
const boutStart = (day: number) => 360 + ((day * 7919) % (14 * 60));

/** A resting heart rate at a minute: the day's curve with noise (55-90, whole beats, as a wearable's). */
function resting(minute: number): number {
  const hour = (minute % 1440) / 60;
  return Math.min(90, Math.max(55, Math.round(70 + 12 * Math.sin((hour / 24) * 2 * Math.PI) + 8 * (Math.random() - 0.5))));
}

/** A minute heart rate of the clustered shape: at rest, or in the day's bout 121-160. */
function beats(minute: number): number {
  const day = Math.floor(minute / 1440);
  const ofDay = minute % 1440;
  if (ofDay >= boutStart(day) && ofDay < boutStart(day) + BOUT_MINUTES) return 121 + Math.floor(Math.random() * 40);
  return resting(minute);
}

/**
 * The level of the n-th reading of the spread shape: 3 every 100th (1%), 2 every other 50th (so 2%
 * are at least 2), 1 every other 10th (10% at least 1), else 0: in every hour of minute readings.
 */
const spreadLevel = (n: number): number => (n % 100 === 0 ? 3 : n % 50 === 0 ? 2 : n % 10 === 0 ? 1 : 0);
/** A value of a level: above `thresholds[level - 1]` and below the next; level 0 is `rest`. */
const valueAt = (level: number, thresholds: readonly number[], rest: number) => (level === 0 ? rest : thresholds[level - 1]! + 1 + Math.floor(Math.random() * 9));
/** Heart rates above 119, 139, 149: 10%, 2%, 1%. */
const HR_THRESHOLDS = [119, 139, 149];
/** Systolic pressures above 149, 169, 179: 10%, 2%, 1%. */
const SYSTOLIC_THRESHOLDS = [149, 169, 179];

function resourceOf(w: World, patientId: Id, code: string, at: number, body?: Record<string, unknown>, uuid: string = randomUUID()) {
  // A code's sample in its own effective-time form (a sleep episode's is a period), a heart rate an instant.
  const payload = samplePayload(code, { at, ...(code === HR ? { form: 'date_time' as const } : {}), uuid });
  if (body) payload.body = { ...payload.body, ...body };
  return {
    resourceType: 'Observation',
    status: 'final',
    code: { coding: [{ system: code.startsWith('ieee:') ? IEEE_SYSTEM : OMH_SYSTEM, code }] },
    subject: { reference: `Patient/${patientId}` },
    device: { reference: `Device/${w.device}` },
    valueAttachment: { contentType: 'application/json', data: encodePayload(payload) },
  };
}

/** A minute heart rate of the clustered shape; `matches` collects the key of each one above 120 in the first month. */
function reading(w: World, patientId: Id, minute: number, matches: ReadingKey[]) {
  const uuid = randomUUID();
  const value = beats(minute);
  if (value > 120 && minute < MONTH_MINUTES) matches.push({ patientId, uuid });
  return resourceOf(w, patientId, HR, START + minute * MINUTE, { heart_rate: { value, unit: 'beats/min' } }, uuid);
}

/**
 * Every page of a search through the handler (`next` links followed); returns the rows. `parse`:
 * also decode each answer as a client would (its bytes to text, then JSON.parse), which the raw
 * Query side has no counterpart of; without it only the Bundle's head is read for the `next` link
 * (the links come before the entries) and the rows are counted by their `fullUrl`.
 */
async function searchAll(w: World, query: string, parse = true, count = true): Promise<number> {
  let url: string | undefined = `/FHIR/R5/Observation?${query}`;
  let rows = 0;
  while (url) {
    let next: string | undefined;
    if (parse) {
      const res = await invoke('GET', url, w.practitioner);
      if (res.status !== 200) throw new Error(`search failed: ${JSON.stringify(res.json).slice(0, 300)}`);
      rows += (res.json.entry ?? []).length;
      next = res.json.link?.find((l: { relation: string }) => l.relation === 'next')?.url;
    } else {
      const { status, text } = await answer('GET', url, w.practitioner);
      if (status !== 200) throw new Error(`search failed: ${text.slice(0, 300)}`);
      const entries = text.indexOf(',"entry":[');
      const head = JSON.parse(entries < 0 ? text : `${text.slice(0, entries)}}`) as { link?: Array<{ relation: string; url: string }> };
      // Counted in place, and only when asked (the timed runs follow the pages and count nothing):
      // the bench's own work on the answer stays small beside the service's.
      if (count) for (let at = text.indexOf('{"fullUrl":'); at >= 0; at = text.indexOf('{"fullUrl":', at + 1)) rows += 1;
      next = head.link?.find((l) => l.relation === 'next')?.url;
    }
    url = next === undefined ? undefined : `${new URL(next).pathname}${new URL(next).search}`;
  }
  return rows;
}

const ratio = (ours: number[], raw: number[]) => (median(ours) / median(raw)).toFixed(2);
/** The median of the runs' ratios: a run's operations share their moment, so the machine's drift between runs cancels. */
const runRatio = (ours: readonly number[], raw: readonly number[]) => median(ours.map((t, i) => t / raw[i]!));
/** A ratio against its target, to three places where two would round it onto the target. */
const verdict = (value: number, most: number) => `${value.toFixed(value.toFixed(2) === most.toFixed(2) ? 3 : 2)} ${value <= most ? 'met' : 'missed'}`;

async function timeStats(w: World, patientId: Id, statistics: string): Promise<number[]> {
  const url = `/FHIR/R5/Observation/$stats?subject=Patient/${patientId}&code=${HR}&period=2025-01-01/2025-12-31&statistic=${statistics}`;
  const first = await invoke('GET', url, w.practitioner);
  if (first.status !== 200) throw new Error(`$stats failed: ${JSON.stringify(first.json).slice(0, 300)}`);
  const times: number[] = [];
  for (let i = 0; i < CALLS; i += 1) times.push(await timeOnce(() => invoke('GET', url, w.practitioner)));
  return times;
}

/** Uploads resources in batches through the handler, one after another; seconds taken. */
async function upload(w: World, resources: readonly unknown[], batch: number): Promise<number> {
  const t0 = performance.now();
  for (const chunk of chunksOf(resources, batch)) await postBatch(w, chunk, '201 Created');
  return (performance.now() - t0) / 1000;
}

interface SpreadSearch {
  name: string;
  codeId: number;
  query: string;
  matches: ReadingKey[];
}

/** The spread shape: one patient's minute heart rates and blood pressures, matches in every hour; six value searches against the row layout's Query and key reads. */
async function spread(w: World): Promise<void> {
  const patientId = await w.newPatient();
  const hr = w.codes.find((c) => c.code === HR)!;
  const bp = w.codes.find((c) => c.code === BP)!;
  const levels: Array<{ uuid: string; level: number; code: string }> = [];
  const resources = [HR, BP].flatMap((code) =>
    Array.from({ length: SPREAD_READINGS }, (_, n) => {
      const uuid = randomUUID();
      const level = spreadLevel(n);
      levels.push({ uuid, level, code });
      const body =
        code === HR
          ? { heart_rate: { value: valueAt(level, HR_THRESHOLDS, resting(n)), unit: 'beats/min' } }
          : { systolic_blood_pressure: { value: valueAt(level, SYSTOLIC_THRESHOLDS, 105 + Math.floor(Math.random() * 35)), unit: 'mmHg' }, diastolic_blood_pressure: { value: 60 + Math.floor(Math.random() * 30), unit: 'mmHg' } };
      return resourceOf(w, patientId, code, START + n * MINUTE, body, uuid);
    }),
  );
  const seconds = await upload(w, resources, SPREAD_BATCH);
  console.log(`\nspread: ${resources.length} readings (${SPREAD_READINGS} heart rates, ${SPREAD_READINGS} blood pressures, a minute apart) stored through POST /FHIR/R5/ in batches of ${SPREAD_BATCH} in ${seconds.toFixed(0)} s (${(resources.length / seconds).toFixed(0)} readings/s)`);
  const rows = await copyPatientRows(patientId);
  if (rows.length !== resources.length) throw new Error(`copied ${rows.length} rows of ${resources.length}`);
  w.practitioner = await w.practitionerToken();

  const keysAbove = (code: string, level: number): ReadingKey[] => levels.filter((l) => l.code === code && l.level >= level).map((l) => ({ patientId, uuid: l.uuid }));
  const searches: SpreadSearch[] = [1, 2, 3].flatMap((level) => [
    { name: `heart rate gt${HR_THRESHOLDS[level - 1]}`, codeId: hr.id, query: `patient=${patientId}&code=${HR}&value-quantity=gt${HR_THRESHOLDS[level - 1]}&_count=1000`, matches: keysAbove(HR, level) },
    { name: `systolic gt${SYSTOLIC_THRESHOLDS[level - 1]}`, codeId: bp.id, query: `patient=${patientId}&code=${BP}&component-code-value-quantity=${encodeURIComponent(`${SYSTOLIC}$gt${SYSTOLIC_THRESHOLDS[level - 1]}`)}&_count=1000`, matches: keysAbove(BP, level) },
  ]).sort((a, b) => a.name.localeCompare(b.name) || a.matches.length - b.matches.length);

  const table: Array<Record<string, string | number>> = [];
  for (const s of searches) {
    const all: ReadingsQuery = { patientId, order: 'effective', codeId: s.codeId, ascending: false, time: {} };
    const found = await searchAll(w, s.query);
    if (found !== s.matches.length) throw new Error(`${s.name}: the search found ${found}, ${s.matches.length} match`);
    if ((await rawByKeys(s.matches)) !== s.matches.length) throw new Error(`${s.name}: the row table misses matching rows`);
    if ((await rawQuery(all, 1000)) !== SPREAD_READINGS) throw new Error(`${s.name}: the row table does not hold the code's ${SPREAD_READINGS} rows`);
    const [ours = [], query = [], keys = []] = await rotated([() => searchAll(w, s.query, false, false), () => rawQuery(all, 1000), () => rawByKeys(s.matches)], RUNS, 2);
    table.push({
      search: s.name,
      matches: `${s.matches.length} (${((s.matches.length / SPREAD_READINGS) * 100).toFixed(0)}%)`,
      'ours p50 ms': median(ours).toFixed(1),
      [`raw Query of ${SPREAD_READINGS} p50 ms`]: median(query).toFixed(1),
      'ours / raw Query (at most 0.15)': verdict(runRatio(ours, query), 0.15),
      'BatchGetItem of the matches p50 ms': median(keys).toFixed(1),
      'ours / BatchGetItem (at most 1.5)': verdict(runRatio(ours, keys), 1.5),
    });
  }
  printTable(
    `Value searches with matches in every hour (command: BENCH_PARTS=spread npm run bench -- values): one patient's ${SPREAD_READINGS} minute heart rates and ${SPREAD_READINGS} minute blood pressures, every page at 1,000 through the handler, against the row layout's paginated Query of the code's ${SPREAD_READINGS} rows (1,000 a page) and its BatchGetItem of the matching rows (100 a call); ${RUNS} runs of the three in rotating order, ratios the medians of the runs' ratios`,
    table,
  );
}

/** The clustered shape at each size: value searches over the first month, `$lastn`, `$stats`. */
async function clustered(w: World): Promise<void> {
  const hr = w.codes.find((c) => c.code === HR)!;
  const stored: Array<Record<string, string | number>> = [];
  const searches: Array<Record<string, string | number>> = [];
  const lastns: Array<Record<string, string | number>> = [];
  const statsRows: Array<Record<string, string | number>> = [];
  for (const size of SIZES) {
    const patientId = await w.newPatient();
    const matches: ReadingKey[] = [];
    const storeSeconds = await upload(w, Array.from({ length: size }, (_, m) => reading(w, patientId, m, matches)), BATCH);
    // One reading of every other code, after the heart rates end: `$lastn` answers every code.
    const others = CODES.filter((c) => c !== HR).map((c, i) => resourceOf(w, patientId, c, START + size * MINUTE + i * MINUTE));
    await postBatch(w, others, '201 Created');
    await copyPatientRows(patientId);
    w.practitioner = await w.practitionerToken();
    stored.push({ readings: size, days: Math.ceil(size / 1440), 'store: s': storeSeconds.toFixed(1), 'store: readings / s': (size / storeSeconds).toFixed(0) });

    // (a) The first month: a value search vs the raw Query of the month's rows.
    const month = `patient=${patientId}&code=${HR}&date=ge2025-01-01&date=lt2025-01-31&_count=1000`;
    const monthQuery: ReadingsQuery = { patientId, order: 'effective', codeId: hr.id, ascending: false, time: { from: START, to: START + MONTH_MINUTES * MINUTE - 1 } };
    const matched = await searchAll(w, `${month}&value-quantity=gt120`);
    const all = await searchAll(w, `${month}&value-quantity=gt0`);
    const rawRows = await rawQuery(monthQuery, 1000);
    if ((await searchAll(w, `${month}&value-quantity=gt0`, false)) !== all) throw new Error('the Bundle head reading counted other rows than the parsed answers');
    if (matched !== matches.length || (await rawByKeys(matches)) !== matches.length) throw new Error(`gt120: the search found ${matched}, ${matches.length} match`);
    // The service's path: the handler's answers (what API Gateway receives), against the raw Query and the key reads of the matches.
    const [few = [], rawFew = [], keysFew = []] = await rotated([() => searchAll(w, `${month}&value-quantity=gt120`, false, false), () => rawQuery(monthQuery, 1000), () => rawByKeys(matches)], RUNS, 2);
    const [every, rawEvery] = await interleaved(() => searchAll(w, `${month}&value-quantity=gt0`, false, false), () => rawQuery(monthQuery, 1000), RUNS, 2);
    // And with each answer decoded as a client would (bytes, text, JSON.parse), as this bench measured before.
    const [everyParsed, rawEveryParsed] = await interleaved(() => searchAll(w, `${month}&value-quantity=gt0`), () => rawQuery(monthQuery, 1000), RUNS, 2);
    searches.push({
      readings: size,
      'month rows (raw Query)': rawRows,
      'gt120: matches': matched,
      'gt120: p50 ms': median(few).toFixed(1),
      'raw month Query: p50 ms': median(rawFew).toFixed(1),
      'gt120 / raw (at most 0.15)': verdict(runRatio(few, rawFew), 0.15),
      'BatchGetItem of the matches: p50 ms': median(keysFew).toFixed(1),
      'gt120 / BatchGetItem (at most 1.5)': verdict(runRatio(few, keysFew), 1.5),
      'gt0: matches': all,
      'gt0: p50 ms': median(every).toFixed(1),
      'raw (same run): p50 ms': median(rawEvery).toFixed(1),
      'gt0 / raw': ratio(every, rawEvery),
      'gt0 decoded by the client / raw': ratio(everyParsed, rawEveryParsed),
    });

    // (b) `$lastn` over every code vs a raw Query of Limit 1 a code, as many at once as `$lastn` sends.
    const lastnUrl = `/FHIR/R5/Observation/$lastn?patient=${patientId}&max=1`;
    const check = await invoke('GET', lastnUrl, w.practitioner);
    if (check.status !== 200 || (check.json.entry ?? []).length !== CODES.length) throw new Error(`$lastn answered ${check.status} with ${(check.json.entry ?? []).length} readings`);
    const codeIds = CODES.map((c) => w.codes.find((x) => x.code === c)!.id);
    const newest = () => pMap(codeIds, (codeId) => rawQuery({ patientId, order: 'effective', codeId, ascending: false, time: {} }, 1, true), { concurrency: 8 });
    const [lastn, rawLastn] = await interleaved(() => invoke('GET', lastnUrl, w.practitioner), newest, LASTN_RUNS, 10);
    lastns.push({
      readings: size,
      [`$lastn max=1, ${CODES.length} codes: p50 ms`]: median(lastn).toFixed(1),
      'p90 ms': percentile(lastn, 90).toFixed(1),
      [`${CODES.length} raw Queries (Limit 1, 8 at once): p50 ms`]: median(rawLastn).toFixed(1),
      '$lastn / raw': ratio(lastn, rawLastn),
    });

    // (c) `$stats` over the year.
    const basic = await timeStats(w, patientId, 'count,minimum,maximum,average,std-dev');
    const quantiles = await timeStats(w, patientId, 'count,minimum,maximum,average,std-dev,median,4-lower,4-upper');
    statsRows.push({
      readings: size,
      days: Math.ceil(size / 1440),
      '$stats basic: p50 ms': median(basic).toFixed(1),
      '$stats basic: p90 ms': percentile(basic, 90).toFixed(1),
      '$stats + median, quartiles: p50 ms': median(quantiles).toFixed(1),
      '$stats + median, quartiles: p90 ms': percentile(quantiles, 90).toFixed(1),
    });
  }
  printTable(`Minute heart rates of one patient stored through POST /FHIR/R5/ in batches of ${BATCH} (day summaries kept); DynamoDB Local in memory`, stored);
  printTable(
    `(a) Clustered matches (command: BENCH_PARTS=clustered npm run bench -- values): a value search over the first month (every page at 1,000) vs the row layout's paginated Query of the month's rows (same index, range and projection, 1,000 a page) and, for gt120, its BatchGetItem of the matching rows (100 a call); ${RUNS} runs each, gt120's three in rotating order (ratios the medians of the runs' ratios), gt0's interleaved`,
    searches,
  );
  printTable(`(b) Observation/$lastn (max=1) over the ${CODES.length} codes vs ${CODES.length} raw Queries of the row layout, Limit 1, 8 at once; ${LASTN_RUNS} runs each, interleaved`, lastns);
  printTable(`(c) Observation/$stats over a year's period (2025); ${CALLS} calls each`, statsRows);
}

export async function valuesBench(): Promise<void> {
  process.env.LOG_LEVEL = 'silent';
  const dataDir = mkdtempSync(join(tmpdir(), 'cdx-bench-values-'));
  const runtime = await startRuntime({ dataDir, port: 0, seed: false, inMemory: true });
  try {
    const w = await world(CODES);
    if (PARTS.has('spread')) await spread(w);
    if (PARTS.has('clustered')) await clustered(w);
  } finally {
    await runtime.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}
