/**
 * Load on the local gateway, the longer form of `test/security/load.test.ts`: simulated devices
 * (patients with logins) upload batches of heart-rate readings and retry, and afterwards the store
 * is counted against what the devices were told. The stores are `npm start`'s (DynamoDB Local on
 * disk, s3rver) in this process; the gateway runs in a child process of its own, whose RSS is
 * reported. Loopback only; every phase is bounded in requests and in time.
 *
 * By default a storm, twice: 40 devices post 5 batches of 40 readings each at once, every third
 * batch raced by its own retry (a lost answer), then re-post whatever was not acknowledged; once on
 * a quiet machine and once with two busy processes beside the service (a loaded host, or a slow
 * store). Each run reports whole-request 5xx, entries answered 503, readings re-sent, unique readings
 * a second and the batches' p50/p99. `BENCH_LOAD_VARIANTS=quiet` (or `loaded`) runs one.
 *
 * `BENCH_LOAD_PROFILE=mixed` runs the earlier mix instead: 100 devices with 4 batches of 10 readings
 * (every other one retried), apps searching, then both at once. Sizes: `BENCH_LOAD_DEVICES`,
 * `BENCH_LOAD_BATCHES`, `BENCH_LOAD_READINGS`, `BENCH_LOAD_SEARCHES`, `BENCH_LOAD_PHASE_SECONDS`;
 * `BENCH_LOAD_PHASES=upload,search,mixed` picks the mix's phases.
 */
import { randomUUID } from 'node:crypto';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BatchWriteCommand, PutCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import pMap from 'p-map';
import { startRuntime } from '../local/runtime';
import { config } from '../shared/config';
import { dynamo } from '../shared/store/clients';
import { forgetCodes } from '../test/support/directory';
import { makeFleet } from '../test/support/load-fleet';
import { startLoadGateway } from '../test/support/load-gateway';
import { failureSamples, stormRow, summaryLine, trafficRows } from '../test/support/load-report';
import { runLoad, type LoadOptions, type LoadReport } from '../test/support/load-run';
import { printTable } from './table';

const setting = (name: string, fallback: number) => Number(process.env[name] ?? fallback);

const STORM = { devices: 40, options: { phases: ['upload'], batches: 5, readings: 40, retryEvery: 3, retries: 'raced', retryConnections: 10, searchConnections: 0, searches: 0, phaseSeconds: 600 } } as const;

const MIXED = {
  devices: setting('BENCH_LOAD_DEVICES', 100),
  options: {
    phases: (process.env.BENCH_LOAD_PHASES ?? 'upload,search,mixed').split(',') as LoadOptions['phases'],
    batches: setting('BENCH_LOAD_BATCHES', 4),
    readings: setting('BENCH_LOAD_READINGS', 10),
    retryConnections: 10,
    searchConnections: 20,
    searches: setting('BENCH_LOAD_SEARCHES', 2000),
    phaseSeconds: setting('BENCH_LOAD_PHASE_SECONDS', 180),
  } satisfies LoadOptions,
};

/** Two processes that keep a core busy each, as other work on the host would. */
function busyProcesses(count: number): ChildProcess[] {
  return Array.from({ length: count }, () => spawn(process.execPath, ['-e', 'for (;;) {}'], { stdio: 'ignore' }));
}

async function run(devices: number, options: LoadOptions, busy = 0): Promise<LoadReport> {
  const dataDir = mkdtempSync(join(tmpdir(), 'cdx-bench-load-'));
  const runtime = await startRuntime({ dataDir, port: 0, seed: false, gateway: false });
  const gateway = await startLoadGateway().catch(async (e) => {
    await runtime.stop();
    throw e;
  });
  const load = busyProcesses(busy);
  try {
    // Each run has stores of its own: the code table this process remembers is the previous run's.
    forgetCodes();
    const fleet = await makeFleet(devices);
    const report = await runLoad(gateway, fleet, options);
    const failures = failureSamples(report);
    if (failures.length > 0) console.log(`\nfailed answers (first few of each kind):\n${failures.join('\n')}`);
    if (!matchesAcknowledgements(report)) console.log(`\nthe store does not match the acknowledgements: ${JSON.stringify({ ...report.count, left: report.settle.left }).slice(0, 600)}`);
    return report;
  } finally {
    for (const p of load) p.kill('SIGKILL');
    await gateway.stop();
    await runtime.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

/** The storm's target: every acknowledged reading stored once, none lost, none stored unacknowledged, none left unsent. */
function matchesAcknowledgements({ count, settle }: LoadReport): boolean {
  return count.lost.length + count.unacknowledged.length + count.duplicates.length + settle.left.length === 0 && count.acknowledged === count.stored;
}

/**
 * What the engine itself takes, in the same run: 1,000 row-sized items written as the service
 * writes a reading's row (a conditional put each, 16 at a time), in transactions of 50 (as the
 * first layout wrote rows with their pointers) and in BatchWriteItem of 25 (no condition), on disk
 * as `npm start` keeps them. DynamoDB Local commits each request to its SQLite file on its own, so
 * the request count, not the write units, sets its pace.
 */
async function engineWrites(busy: number): Promise<Record<string, string>> {
  const dataDir = mkdtempSync(join(tmpdir(), 'cdx-bench-raw-'));
  const runtime = await startRuntime({ dataDir, port: 0, seed: false, gateway: false });
  const load = busyProcesses(busy);
  try {
    const table = config().observationsTable;
    let n = 0;
    const item = () => ({ pk: `P#${1 + (n % 40)}`, sk: `U#${randomUUID()}`, id: ++n, effSk: `2025-01-01T00:00:00.000Z#${String(n).padStart(15, '0')}`, data: Buffer.alloc(400, n % 256) });
    const rate = async (write: () => Promise<void>) => {
      const started = performance.now();
      await write();
      return (1000 / ((performance.now() - started) / 1000)).toFixed(0);
    };
    return {
      'conditional puts, items/s': await rate(() => pMap(Array.from({ length: 1000 }, item), (Item) => dynamo().send(new PutCommand({ TableName: table, Item, ConditionExpression: 'attribute_not_exists(pk)' })).then(() => undefined), { concurrency: 16 }).then(() => undefined)),
      'transactions of 50, items/s': await rate(() =>
        pMap(Array.from({ length: 20 }), () => dynamo().send(new TransactWriteCommand({ TransactItems: Array.from({ length: 50 }, () => ({ Put: { TableName: table, Item: item(), ConditionExpression: 'attribute_not_exists(pk)' } })) })).then(() => undefined), { concurrency: 4 }).then(() => undefined),
      ),
      'BatchWriteItem of 25, items/s': await rate(() =>
        pMap(Array.from({ length: 40 }), () => dynamo().send(new BatchWriteCommand({ RequestItems: { [table]: Array.from({ length: 25 }, () => ({ PutRequest: { Item: item() } })) } })).then(() => undefined), { concurrency: 4 }).then(() => undefined),
      ),
    };
  } finally {
    for (const p of load) p.kill('SIGKILL');
    await runtime.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

export async function loadBench(): Promise<void> {
  process.env.LOG_LEVEL = 'silent';
  if (process.env.BENCH_LOAD_PROFILE === 'mixed') {
    const report = await run(MIXED.devices, MIXED.options);
    printTable(`Load on the local gateway (loopback, DynamoDB Local on disk, gateway in its own process): ${MIXED.devices} devices`, trafficRows(report));
    console.log(`\n${summaryLine(report)}`);
    return;
  }
  const variants = (process.env.BENCH_LOAD_VARIANTS ?? 'quiet,loaded').split(',');
  const rows: Array<Record<string, string | number>> = [];
  const engine: Array<Record<string, string>> = [];
  for (const variant of variants) {
    const busy = variant === 'loaded' ? 2 : 0;
    const name = busy > 0 ? 'loaded host (2 busy processes)' : 'quiet';
    const report = await run(STORM.devices, STORM.options, busy);
    console.log(`\n${variant}: ${summaryLine(report)}`);
    const { count } = report;
    rows.push({ ...stormRow(name, report), 'acknowledged / stored / lost / duplicated': `${count.acknowledged} / ${count.stored} / ${count.lost.length} / ${count.duplicates.length} ${matchesAcknowledgements(report) ? 'met' : 'missed'}` });
    engine.push({ variant: name, ...(await engineWrites(busy)) });
  }
  printTable('DynamoDB Local on disk, right after each storm: 1,000 row-sized items a way', engine);
  printTable(
    `Storm (command: npm run bench -- load): ${STORM.devices} devices x ${STORM.options.batches} batches of ${STORM.options.readings} heart-rate readings at once, every ${STORM.options.retryEvery}rd batch raced by its retry, then re-posts of what was not acknowledged (target: 0 lost, 0 duplicated, acknowledged = stored)`,
    rows,
  );
}
