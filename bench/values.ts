/**
 * `npm run bench -- values`: minute heart rates of one patient stored through POST /FHIR/R5/ (batches
 * of 200, as a device sends them, each keeping its day summaries), at three sizes to show how each
 * figure grows; on DynamoDB Local (in memory) by default. A patient-year of minute readings is
 * 525,600: set `BENCH_VALUES_SIZES` (comma-separated reading counts, each at least a month) to go
 * that far. The readings are a resting curve (55-90 beats/min) with one exercise bout a day above
 * 120 covering 1% of the minutes. Per size, each against the raw store operation in the same run:
 *
 * - a value search over the first month (`value-quantity=gt120`, 1% of its readings, every page at
 *   1,000) and one matching everything (`gt0`) vs the raw paginated Query of the month's rows (the
 *   code index, the projection the search reads, 1,000 a page): the handler's answers as API Gateway
 *   receives them, and `gt0` also with each answer decoded as a client would;
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
import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import pMap from 'p-map';
import { startRuntime } from '../local/runtime';
import { config } from '../shared/config';
import { DEMO_CODES, IEEE_SYSTEM, SEEDED_CODES } from '../shared/directory/codes';
import { OMH_SYSTEM } from '../shared/fhir/constants';
import { chunksOf } from '../shared/lists';
import { ROW_FIELDS } from '../shared/observations/store/dynamo-items';
import { INDEX, observationKeys, readingsRange } from '../shared/observations/store/dynamo-keys';
import type { ReadingsQuery } from '../shared/observations/store/port';
import { dynamo } from '../shared/store/clients';
import { encodePayload, samplePayload } from '../shared/omh/samples';
import { schemaForCode } from '../shared/omh/schemas/index';
import type { Id } from '../shared/directory/model';
import { answer, HR, invoke, postBatch, world, type World } from './observation-world';
import { interleaved, median, percentile, printTable, timeOnce } from './table';

const SIZES = (process.env.BENCH_VALUES_SIZES ?? '43200,100800,201600').split(',').map(Number);
/** The codes a device uploads (those with a payload schema): `$lastn` answers each. */
const CODES = [...SEEDED_CODES, ...DEMO_CODES].filter((c) => schemaForCode(c.code)).map((c) => c.code);
const MONTH_MINUTES = 30 * 1440;
const RUNS = Number(process.env.BENCH_VALUES_RUNS ?? 10);
const LASTN_RUNS = Number(process.env.BENCH_VALUES_LASTN_RUNS ?? 100);
const BATCH = 200;
const MINUTE = 60_000;
const CALLS = Number(process.env.BENCH_VALUES_CALLS ?? 20);
const START = Date.UTC(2025, 0, 1);

/** Each day's exercise bout: its first minute of the day (between 06:00 and 20:00), 1% of the day's minutes long. */
const BOUT_MINUTES = Math.round(1440 / 100);
const boutStart = (day: number) => 360 + ((day * 7919) % (14 * 60));

/** A minute heart rate: at rest a day's curve with noise (55-90, whole beats, as a wearable's), in the day's bout 121-160. */
function beats(minute: number): number {
  const day = Math.floor(minute / 1440);
  const ofDay = minute % 1440;
  if (ofDay >= boutStart(day) && ofDay < boutStart(day) + BOUT_MINUTES) return 121 + Math.floor(Math.random() * 40);
  const hour = ofDay / 60;
  return Math.min(90, Math.max(55, Math.round(70 + 12 * Math.sin((hour / 24) * 2 * Math.PI) + 8 * (Math.random() - 0.5))));
}

function resourceOf(w: World, patientId: Id, code: string, at: number, body?: Record<string, unknown>) {
  // A code's sample in its own effective-time form (a sleep episode's is a period), a heart rate an instant.
  const payload = samplePayload(code, { at, ...(code === HR ? { form: 'date_time' as const } : {}), uuid: randomUUID() });
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

const reading = (w: World, patientId: Id, minute: number) => resourceOf(w, patientId, HR, START + minute * MINUTE, { heart_rate: { value: beats(minute), unit: 'beats/min' } });

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
      const head = JSON.parse(`${text.slice(0, text.indexOf(',"entry":['))}}`) as { link?: Array<{ relation: string; url: string }> };
      // Counted in place, and only when asked (the timed runs follow the pages and count nothing):
      // the bench's own work on the answer stays small beside the service's.
      if (count) for (let at = text.indexOf('{"fullUrl":'); at >= 0; at = text.indexOf('{"fullUrl":', at + 1)) rows += 1;
      next = head.link?.find((l) => l.relation === 'next')?.url;
    }
    url = next === undefined ? undefined : `${new URL(next).pathname}${new URL(next).search}`;
  }
  return rows;
}

/**
 * A read as the search sends it, raw: the key range the adapter queries, the fields it asks for,
 * `limit` rows a page, every page (or only the first); returns the rows.
 */
async function rawQuery(q: ReadingsQuery, limit: number, firstPageOnly = false): Promise<number> {
  const { index, from, to } = readingsRange(q);
  const { name, sortKey } = INDEX[index];
  const names: Record<string, string> = { '#pk': 'pk', '#sk': sortKey };
  ROW_FIELDS.forEach((a, i) => (names[`#a${i}`] = a));
  let start: Record<string, unknown> | undefined;
  let rows = 0;
  do {
    const out = await dynamo().send(
      new QueryCommand({
        TableName: config().observationsTable,
        IndexName: name,
        KeyConditionExpression: '#pk = :pk AND #sk BETWEEN :from AND :to',
        ExpressionAttributeNames: names,
        ExpressionAttributeValues: { ':pk': observationKeys.patientPk(q.patientId), ':from': from, ':to': to },
        ProjectionExpression: ROW_FIELDS.map((_, i) => `#a${i}`).join(', '),
        ScanIndexForward: q.ascending,
        ConsistentRead: true,
        Limit: limit,
        ...(start ? { ExclusiveStartKey: start } : {}),
      }),
    );
    rows += out.Items?.length ?? 0;
    start = firstPageOnly ? undefined : out.LastEvaluatedKey;
  } while (start);
  return rows;
}

const ratio = (ours: number[], raw: number[]) => (median(ours) / median(raw)).toFixed(2);

async function timeStats(w: World, patientId: Id, statistics: string): Promise<number[]> {
  const url = `/FHIR/R5/Observation/$stats?subject=Patient/${patientId}&code=${HR}&period=2025-01-01/2025-12-31&statistic=${statistics}`;
  const first = await invoke('GET', url, w.practitioner);
  if (first.status !== 200) throw new Error(`$stats failed: ${JSON.stringify(first.json).slice(0, 300)}`);
  const times: number[] = [];
  for (let i = 0; i < CALLS; i += 1) times.push(await timeOnce(() => invoke('GET', url, w.practitioner)));
  return times;
}

export async function valuesBench(): Promise<void> {
  process.env.LOG_LEVEL = 'silent';
  const dataDir = mkdtempSync(join(tmpdir(), 'cdx-bench-values-'));
  const runtime = await startRuntime({ dataDir, port: 0, seed: false, inMemory: true });
  try {
    const w = await world(CODES);
    const hr = w.codes.find((c) => c.code === HR)!;
    const stored: Array<Record<string, string | number>> = [];
    const searches: Array<Record<string, string | number>> = [];
    const lastns: Array<Record<string, string | number>> = [];
    const statsRows: Array<Record<string, string | number>> = [];
    for (const size of SIZES) {
      const patientId = await w.newPatient();
      const t0 = performance.now();
      for (const minutes of chunksOf(Array.from({ length: size }, (_, i) => i), BATCH)) {
        await postBatch(w, minutes.map((m) => reading(w, patientId, m)), '201 Created');
      }
      const storeSeconds = (performance.now() - t0) / 1000;
      // One reading of every other code, after the heart rates end: `$lastn` answers every code.
      const others = CODES.filter((c) => c !== HR).map((c, i) => resourceOf(w, patientId, c, START + size * MINUTE + i * MINUTE));
      await postBatch(w, others, '201 Created');
      w.practitioner = await w.practitionerToken();
      stored.push({ readings: size, days: Math.ceil(size / 1440), 'store: s': storeSeconds.toFixed(1), 'store: readings / s': (size / storeSeconds).toFixed(0) });

      // (a) The first month: a value search vs the raw Query of the month's rows.
      const month = `patient=${patientId}&code=${HR}&date=ge2025-01-01&date=lt2025-01-31&_count=1000`;
      const monthQuery: ReadingsQuery = { patientId, order: 'effective', codeId: hr.id, ascending: false, time: { from: START, to: START + MONTH_MINUTES * MINUTE - 1 } };
      const matched = await searchAll(w, `${month}&value-quantity=gt120`);
      const all = await searchAll(w, `${month}&value-quantity=gt0`);
      const rawRows = await rawQuery(monthQuery, 1000);
      if ((await searchAll(w, `${month}&value-quantity=gt0`, false)) !== all) throw new Error('the Bundle head reading counted other rows than the parsed answers');
      // The service's path: the handler's answers (what API Gateway receives), against the raw Query.
      const [few, rawFew] = await interleaved(() => searchAll(w, `${month}&value-quantity=gt120`, false, false), () => rawQuery(monthQuery, 1000), RUNS, 2);
      const [every, rawEvery] = await interleaved(() => searchAll(w, `${month}&value-quantity=gt0`, false, false), () => rawQuery(monthQuery, 1000), RUNS, 2);
      // And with each answer decoded as a client would (bytes, text, JSON.parse), as this bench measured before.
      const [everyParsed, rawEveryParsed] = await interleaved(() => searchAll(w, `${month}&value-quantity=gt0`), () => rawQuery(monthQuery, 1000), RUNS, 2);
      searches.push({
        readings: size,
        'month rows (raw Query)': rawRows,
        'gt120: matches': matched,
        'gt120: p50 ms': median(few).toFixed(1),
        'raw month Query: p50 ms': median(rawFew).toFixed(1),
        'gt120 / raw': ratio(few, rawFew),
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
    printTable(`(a) A value search over the first month (every page at 1,000) vs the raw paginated Query of the month's rows (same index, range and projection, 1,000 a page); ${RUNS} runs each, interleaved`, searches);
    printTable(`(b) Observation/$lastn (max=1) over the ${CODES.length} codes vs ${CODES.length} raw Queries of Limit 1, 8 at once; ${LASTN_RUNS} runs each, interleaved`, lastns);
    printTable(`(c) Observation/$stats over a year's period (2025); ${CALLS} calls each`, statsRows);
  } finally {
    await runtime.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}
