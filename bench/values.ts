/**
 * `npm run bench -- values`: minute heart rates of one patient stored through POST /FHIR/R5/ (batches
 * of 200, as a device sends them, each keeping its day summaries), then `Observation/$stats` over
 * the whole stretch: count, minimum, maximum, average and std-dev (from the day summaries' figures),
 * and with median and quartiles (their histograms too). Three sizes, to show how each grows; on
 * DynamoDB Local (in memory) by default. A patient-year of minute readings is 525,600: set
 * `BENCH_VALUES_SIZES` (comma-separated reading counts) to go that far.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { startRuntime } from '../local/runtime';
import { chunksOf } from '../shared/lists';
import { encodePayload, samplePayload } from '../shared/omh/samples';
import type { Id } from '../shared/directory/model';
import { HR, invoke, postBatch, world, type World } from './observation-world';
import { median, percentile, printTable, timeOnce } from './table';

const SIZES = (process.env.BENCH_VALUES_SIZES ?? '10080,40320,100800').split(',').map(Number);
const BATCH = 200;
const MINUTE = 60_000;
const CALLS = Number(process.env.BENCH_VALUES_CALLS ?? 20);
const START = Date.UTC(2025, 0, 1);

/** A minute heart rate: a day's curve with noise, whole beats (about 100 distinct values a day, as a wearable's). */
function reading(w: World, patientId: Id, minute: number) {
  const at = START + minute * MINUTE;
  const payload = samplePayload(HR, { at, form: 'date_time', uuid: randomUUID() });
  const hour = (minute / 60) % 24;
  payload.body.heart_rate = { value: Math.round(65 + 20 * Math.sin((hour / 24) * 2 * Math.PI) + 15 * Math.random()), unit: 'beats/min' };
  return {
    resourceType: 'Observation',
    status: 'final',
    code: { coding: [{ system: 'https://w3id.org/openmhealth', code: HR }] },
    subject: { reference: `Patient/${patientId}` },
    device: { reference: `Device/${w.device}` },
    valueAttachment: { contentType: 'application/json', data: encodePayload(payload) },
  };
}

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
    const w = await world([HR]);
    const rows: Array<Record<string, string | number>> = [];
    for (const size of SIZES) {
      const patientId = await w.newPatient();
      const t0 = performance.now();
      for (const minutes of chunksOf(Array.from({ length: size }, (_, i) => i), BATCH)) {
        await postBatch(w, minutes.map((m) => reading(w, patientId, m)), '201 Created');
      }
      const storeSeconds = (performance.now() - t0) / 1000;
      w.practitioner = await w.practitionerToken();
      const basic = await timeStats(w, patientId, 'count,minimum,maximum,average,std-dev');
      const quantiles = await timeStats(w, patientId, 'count,minimum,maximum,average,std-dev,median,4-lower,4-upper');
      rows.push({
        readings: size,
        days: Math.ceil(size / 1440),
        'store: s': storeSeconds.toFixed(1),
        'store: readings / s': (size / storeSeconds).toFixed(0),
        '$stats basic: p50 ms': median(basic).toFixed(1),
        '$stats basic: p90 ms': percentile(basic, 90).toFixed(1),
        '$stats + median, quartiles: p50 ms': median(quantiles).toFixed(1),
        '$stats + median, quartiles: p90 ms': percentile(quantiles, 90).toFixed(1),
      });
    }
    printTable(`Observation/$stats over a year's period (2025), minute heart rates of one patient stored through POST /FHIR/R5/ in batches of ${BATCH}; DynamoDB Local in memory; ${CALLS} calls each`, rows);
  } finally {
    await runtime.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}
