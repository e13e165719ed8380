/**
 * Load on the local gateway, the longer form of `test/security/load.test.ts`: 100 simulated devices
 * (patients with logins) upload batches of heart-rate readings and retry, apps search, then both at
 * once; afterwards the store is counted against what the devices were told. The stores are
 * `npm start`'s (DynamoDB Local on disk, s3rver) in this process; the gateway runs in a child
 * process of its own, whose RSS is reported. Loopback only; every phase is bounded in requests and
 * in time. Sizes: `BENCH_LOAD_DEVICES`, `BENCH_LOAD_BATCHES`, `BENCH_LOAD_READINGS`,
 * `BENCH_LOAD_SEARCHES`, `BENCH_LOAD_PHASE_SECONDS`; `BENCH_LOAD_PHASES=upload,search,mixed` picks phases.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startRuntime } from '../local/runtime';
import { makeFleet } from '../test/support/load-fleet';
import { startLoadGateway } from '../test/support/load-gateway';
import { failureSamples, summaryLine, trafficRows } from '../test/support/load-report';
import { runLoad, type LoadOptions } from '../test/support/load-run';
import { printTable } from './table';

const setting = (name: string, fallback: number) => Number(process.env[name] ?? fallback);

const DEVICES = setting('BENCH_LOAD_DEVICES', 100);
const OPTIONS: LoadOptions = {
  phases: (process.env.BENCH_LOAD_PHASES ?? 'upload,search,mixed').split(',') as LoadOptions['phases'],
  batches: setting('BENCH_LOAD_BATCHES', 4),
  readings: setting('BENCH_LOAD_READINGS', 10),
  retryConnections: 10,
  searchConnections: 20,
  searches: setting('BENCH_LOAD_SEARCHES', 2000),
  phaseSeconds: setting('BENCH_LOAD_PHASE_SECONDS', 180),
};

export async function loadBench(): Promise<void> {
  process.env.LOG_LEVEL = 'silent';
  const dataDir = mkdtempSync(join(tmpdir(), 'cdx-bench-load-'));
  const runtime = await startRuntime({ dataDir, port: 0, seed: false, gateway: false });
  const gateway = await startLoadGateway().catch(async (e) => {
    await runtime.stop();
    throw e;
  });
  try {
    const fleet = await makeFleet(DEVICES);
    const report = await runLoad(gateway, fleet, OPTIONS);
    printTable(`Load on the local gateway (loopback, DynamoDB Local on disk, gateway in its own process): ${DEVICES} devices`, trafficRows(report));
    console.log(`\n${summaryLine(report)}`);
    const failures = failureSamples(report);
    if (failures.length > 0) console.log(`\nfailed answers (first few of each kind):\n${failures.join('\n')}`);
    const { count } = report;
    if (count.lost.length + count.unacknowledged.length + count.duplicates.length + report.settle.left.length > 0) {
      throw new Error(`the store does not match the acknowledgements: ${JSON.stringify({ ...count, left: report.settle.left }).slice(0, 600)}`);
    }
  } finally {
    await gateway.stop();
    await runtime.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}
