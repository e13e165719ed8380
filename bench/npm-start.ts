/**
 * `npm run bench -- npm-start`: how long `npm start` takes to come up on a fresh data folder (start
 * the engines, create the tables, seed the demo data, print its banner), and to start again on the
 * folder it made, as a new user runs it (its own process group, the test's `NpmStart`). Each run
 * on its own folder; `BENCH_NPM_START_RUNS` (3) of each.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { NpmStart } from '../test/support/npm-start';
import { median, printTable } from './table';

const RUNS = Number(process.env.BENCH_NPM_START_RUNS ?? 3);

export async function npmStartBench(): Promise<void> {
  const fresh: number[] = [];
  const again: number[] = [];
  for (let run = 0; run < RUNS; run += 1) {
    const dataDir = mkdtempSync(join(tmpdir(), 'cdx-bench-start-'));
    const service = new NpmStart(dataDir);
    try {
      fresh.push(await service.start());
      await service.stop();
      again.push(await service.start());
      await service.stop();
    } finally {
      await service.stop();
      rmSync(dataDir, { recursive: true, force: true });
    }
  }
  const row = (name: string, ms: number[]) => ({ start: name, runs: ms.length, 'p50 s': (median(ms) / 1000).toFixed(1), 'max s': (Math.max(...ms) / 1000).toFixed(1) });
  printTable(`npm start until its banner (load ${loadavg()[0]!.toFixed(1)})`, [row('fresh data folder (demo data seeded)', fresh), row('the same folder again', again)]);
}
