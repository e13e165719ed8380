/**
 * A device's retry against its first try: the same 1,000 heart-rate readings uploaded through the
 * FHIR handler (batches of 100, as a phone sends them), then posted again, round after round in one
 * run (DynamoDB Local on disk, as `npm start` runs it). Target: the re-post at most the first
 * upload's time. Beside them, the lookup the write path now starts with (BatchGetItem of the
 * readings' uuid claims, all absent) timed alone before each first upload: its share of a first upload.
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startRuntime } from '../local/runtime';
import { config } from '../shared/config';
import { chunksOf } from '../shared/lists';
import { blockKeys } from '../shared/observations/store/block-keys';
import { batchGetAll } from '../shared/store/batch';
import { HOUR, postBatch, reading, world, type World } from './observation-world';
import { median, printTable, timeOnce } from './table';

const READINGS = Number(process.env.BENCH_REPOST_READINGS ?? 1000);
const BATCH = Number(process.env.BENCH_REPOST_BATCH ?? 100);
const ROUNDS = Number(process.env.BENCH_REPOST_ROUNDS ?? 6);

/** Posts the readings in batches, one after another, each entry answering `status`. */
async function post(w: World, readings: unknown[], status: '201 Created' | '200 OK'): Promise<void> {
  for (const chunk of chunksOf(readings, BATCH)) await postBatch(w, chunk, status);
}

export async function repostBench(): Promise<void> {
  process.env.LOG_LEVEL = 'silent';
  const dataDir = mkdtempSync(join(tmpdir(), 'cdx-bench-repost-'));
  const runtime = await startRuntime({ dataDir, port: 0, seed: false, gateway: false });
  try {
    const w = await world();
    const rows: Array<Record<string, string | number>> = [];
    const ratios: number[] = [];
    const lookupShares: number[] = [];
    // Round 0 warms the engine and this process and is not reported.
    for (let round = 0; round <= ROUNDS; round++) {
      const patient = await w.newPatient();
      const from = Date.UTC(2024, 0, 1) + round * READINGS * HOUR;
      const uuids = Array.from({ length: READINGS }, () => randomUUID());
      const readings = uuids.map((uuid, i) => reading(w, patient, from + i * HOUR, uuid));
      const keys = uuids.map((uuid) => blockKeys.claim(patient, uuid));
      const lookup = await timeOnce(() => Promise.all(chunksOf(keys, BATCH).map((chunk) => batchGetAll(config().observationsTable, chunk))));
      const first = await timeOnce(() => post(w, readings, '201 Created'));
      const again = await timeOnce(() => post(w, readings, '200 OK'));
      if (round === 0) continue;
      ratios.push(again / first);
      lookupShares.push(lookup / first);
      rows.push({
        round,
        readings: READINGS,
        'first upload s': (first / 1000).toFixed(2),
        're-post s': (again / 1000).toFixed(2),
        're-post / first': (again / first).toFixed(2),
        'lookup alone ms': lookup.toFixed(0),
        'lookup / first': `${((lookup / first) * 100).toFixed(1)}%`,
      });
    }
    printTable(`Re-post of stored readings vs their first upload, through the handler (batches of ${BATCH}; DynamoDB Local on disk; target: re-post / first <= 1)`, rows);
    console.log(`\nrepost: a re-post of ${READINGS} stored readings takes ${median(ratios).toFixed(2)}x their first upload; the lookup is ${(median(lookupShares) * 100).toFixed(1)}% of a first upload (medians of ${ROUNDS} rounds)`);
  } finally {
    await runtime.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}
