/**
 * `npm run bench -- mcp`: the assistants' endpoint against the FHIR requests its tools stand for,
 * both over HTTP to the same local runtime (`npm start`'s gateway and handlers, DynamoDB Local in
 * memory) with the same client (fetch; a tool call is a JSON-RPC `tools/call` body), as a
 * practitioner. The per-client rate limit stays on (set far above the bench's pace), so each tool
 * call pays its count in the directory table as on AWS.
 *
 * (a) Pairs, alternating, p50 of each and the ratio (target at most 1.2x): `count_readings` vs
 *     `_summary=count`, `get_readings` (FHIR, 20) vs a page of 20, `search_readings_by_value` vs the
 *     value search with `_total=accurate`, `reading_statistics` vs `$stats`, `latest_readings` vs
 *     `$lastn`, each over one patient of the study.
 * (b) A study summary: `count_readings` of the study (its readings by type) over `BENCH_MCP_PATIENTS`
 *     (50) patients x `BENCH_MCP_READINGS` (10,000) minute heart rates (target p50 under 1 s).
 *
 * Half a million readings through the API would take half an hour here, so they are seeded in bulk
 * as the store keeps them (`storeRawReadings`): rows with their lifted values written by
 * BatchWriteItem, and each day's summary made from those rows by the domain's `summariseDay` and
 * kept through the summary store, so `$stats`, the counts and the tools read what uploads would
 * have left.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pMap from 'p-map';
import { startRuntime } from '../local/runtime';
import type { Id } from '../shared/directory/model';
import { HR, storeRawReadings, world } from './observation-world';
import { interleaved, median, percentile, printTable, timeOnce } from './table';

const PATIENTS = Number(process.env.BENCH_MCP_PATIENTS ?? 50);
const READINGS = Number(process.env.BENCH_MCP_READINGS ?? 10_000);
const RUNS = Number(process.env.BENCH_MCP_RUNS ?? 40);
const STUDY_RUNS = Number(process.env.BENCH_MCP_STUDY_RUNS ?? 10);
/** The readings' first week (they start 2024-01-01, a minute apart). */
const WEEK = { from: '2024-01-01', to: '2024-01-07' };
const MCP_HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-06-18' };

export async function mcpBench(): Promise<void> {
  process.env.LOG_LEVEL = 'silent';
  // On, far above this bench's pace: each call pays its count as on AWS.
  process.env.MCP_RATE_LIMIT_PER_MINUTE ??= '100000000';
  const dataDir = mkdtempSync(join(tmpdir(), 'cdx-bench-mcp-'));
  const runtime = await startRuntime({ dataDir, port: 0, seed: false, inMemory: true });
  try {
    const base = runtime.info.url!;
    const w = await world([HR]);
    const t0 = performance.now();
    const patients: Id[] = [];
    for (let i = 0; i < PATIENTS; i += 1) patients.push(await w.newPatient());
    await pMap(patients, (patientId) => storeRawReadings(w, patientId, READINGS), { concurrency: 2 });
    const seedSeconds = (performance.now() - t0) / 1000;
    const fhirToken = await w.practitionerToken();
    const mcpToken = await w.practitionerToken('mcp');

    let id = 0;
    const tool = async (name: string, args: Record<string, unknown>) => {
      const res = await fetch(`${base}/mcp`, {
        method: 'POST',
        headers: { ...MCP_HEADERS, authorization: `Bearer ${mcpToken}` },
        body: JSON.stringify({ jsonrpc: '2.0', id: ++id, method: 'tools/call', params: { name, arguments: args } }),
      });
      const body = await res.json();
      if (res.status !== 200 || body.error || body.result?.isError) throw new Error(`${name} answered ${res.status}: ${JSON.stringify(body).slice(0, 300)}`);
      return body.result.structuredContent;
    };
    const fhir = async (path: string) => {
      const res = await fetch(`${base}/FHIR/R5/${path}`, { headers: { authorization: `Bearer ${fhirToken}`, accept: 'application/fhir+json' } });
      const body = await res.json();
      if (res.status !== 200) throw new Error(`${path} answered ${res.status}: ${JSON.stringify(body).slice(0, 300)}`);
      return body;
    };

    const p = patients[0]!;
    const pairs: Array<[string, () => Promise<unknown>, string, () => Promise<unknown>]> = [
      ['count_readings (patient, heart rate)', () => tool('count_readings', { patientId: p, readingType: HR }), `Observation?patient=${p}&code=${HR}&_summary=count`, () => fhir(`Observation?patient=${p}&code=${HR}&_summary=count`)],
      ['get_readings (fhir, 20)', () => tool('get_readings', { patientId: p, readingType: HR, format: 'fhir', pageSize: 20 }), `Observation?patient=${p}&code=${HR}&_sort=-date&_count=20`, () => fhir(`Observation?patient=${p}&code=${HR}&_sort=-date&_count=20`)],
      [
        'search_readings_by_value (gt 70, 20)',
        () => tool('search_readings_by_value', { patientId: p, readingType: HR, comparator: 'gt', value: 70, pageSize: 20 }),
        `...&value-quantity=gt70&_total=accurate&_count=20`,
        () => fhir(`Observation?patient=${p}&code=${HR}&value-quantity=gt70&_total=accurate&_sort=-date&_count=20`),
      ],
      [
        'reading_statistics (a week)',
        () => tool('reading_statistics', { patientId: p, readingType: HR, from: WEEK.from, to: WEEK.to, statistics: ['count', 'minimum', 'maximum', 'average'] }),
        `Observation/$stats?...&period=${WEEK.from}/${WEEK.to}`,
        () => fhir(`Observation/$stats?subject=Patient/${p}&code=${HR}&period=${WEEK.from}/${WEEK.to}&statistic=count,minimum,maximum,average`),
      ],
      ['latest_readings (max 1)', () => tool('latest_readings', { patientId: p }), `Observation/$lastn?patient=${p}&max=1`, () => fhir(`Observation/$lastn?patient=${p}&max=1`)],
    ];
    const rows: Array<Record<string, string | number>> = [];
    for (const [toolName, ours, request, theirs] of pairs) {
      const [a, b] = await interleaved(ours, theirs, RUNS, 5);
      rows.push({ 'tool call': toolName, 'p50 ms': median(a).toFixed(1), 'FHIR request': request, 'FHIR p50 ms': median(b).toFixed(1), 'tool / FHIR': (median(a) / median(b)).toFixed(2) });
    }

    const summary = (await tool('count_readings', { studyId: w.study })) as { total: number };
    if (summary.total !== PATIENTS * READINGS) throw new Error(`the study summary counted ${summary.total} readings, not ${PATIENTS * READINGS}`);
    const studyCount = `Observation?_has:Group:member:_id=${w.study}&code=${HR}&_summary=count`;
    const studyTimes: number[] = [];
    const oneCodeTimes: number[] = [];
    for (let i = 0; i < STUDY_RUNS; i += 1) {
      studyTimes.push(await timeOnce(() => tool('count_readings', { studyId: w.study })));
      oneCodeTimes.push(await timeOnce(() => fhir(studyCount)));
    }

    printTable(
      `Seeded in bulk as the store keeps them: ${PATIENTS} patients x ${READINGS.toLocaleString('en')} minute heart rates (BatchWriteItem of raw rows with their lifted values, each day's summary kept from those rows); DynamoDB Local in memory`,
      [{ readings: (PATIENTS * READINGS).toLocaleString('en'), 'seeded in s': seedSeconds.toFixed(1), 'readings / s': ((PATIENTS * READINGS) / seedSeconds).toFixed(0) }],
    );
    printTable(`(a) A tool call (POST /mcp, tools/call) vs the FHIR request it stands for, over HTTP to the same runtime, alternating; ${RUNS} runs each, one patient's ${READINGS.toLocaleString('en')} readings`, rows);
    printTable(`(b) A study summary (count_readings of the study: its readings by type) over ${PATIENTS} patients x ${READINGS.toLocaleString('en')} readings; ${STUDY_RUNS} runs`, [
      {
        total: summary.total.toLocaleString('en'),
        'count_readings (study): p50 ms': median(studyTimes).toFixed(0),
        'p90 ms': percentile(studyTimes, 90).toFixed(0),
        'one code: _summary=count of the study, p50 ms': median(oneCodeTimes).toFixed(0),
      },
    ]);
  } finally {
    await runtime.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}
