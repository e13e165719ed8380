/**
 * `npm run bench [-- name ...]`: runs the named benchmarks (all by default) and prints their tables.
 * Benchmarks are measurements, not tests: they compare our path with the raw store operation in
 * the same run, because this machine is noisy.
 */
import { auxiliaryBench } from './auxiliary';
import { cgmBench } from './cgm';
import { cgmReportBench } from './cgm-report';
import { cgmStudyBench } from './cgm-study';
import { coldStart } from './cold-start';
import { compareBench } from './compare';
import { earlyReadBench } from './early-read';
import { exportBench } from './export';
import { fuzzBench } from './fuzz';
import { httpLoad } from './http-load';
import { importBench } from './import';
import { loadBench } from './load';
import { mcpBench } from './mcp';
import { npmStartBench } from './npm-start';
import { oauth } from './oauth';
import { omh } from './omh';
import { patients } from './patients';
import { portalBench } from './portal';
import { tokens } from './tokens';
import { validationBench } from './validation';
import { observationsBench } from './observations';
import { repostBench } from './repost';
import { storageBench } from './storage';
import { valuesBench } from './values';

const BENCHMARKS: ReadonlyMap<string, () => Promise<void>> = new Map([
  ['cold-start', coldStart],
  ['http-load', httpLoad],
  ['load', loadBench],
  ['omh', omh],
  ['patients', patients],
  ['oauth', oauth],
  ['tokens', tokens],
  ['validation', validationBench],
  ['aux', auxiliaryBench],
  ['observations', observationsBench],
  ['early-read', earlyReadBench],
  ['export', exportBench],
  ['repost', repostBench],
  ['storage', storageBench],
  ['values', valuesBench],
  ['cgm', cgmBench],
  ['compare', compareBench],
  ['mcp', mcpBench],
  ['import', importBench],
  ['portal', portalBench],
  ['npm-start', npmStartBench],
  ['fuzz', fuzzBench],
  ['cgm-report', cgmReportBench],
  ['cgm-study', cgmStudyBench],
]);

async function main() {
  // The handlers' metric lines (EMF on stdout) would drown the tables.
  process.env.POWERTOOLS_METRICS_DISABLED ??= 'true';
  // They time our paths, not the per-caller limit: a full download at 20 a page sends a few
  // hundred requests a second from one caller, which the local gateway would answer 429.
  process.env.RATE_LIMIT_PER_SECOND ??= '0';
  const wanted = process.argv.slice(2);
  const names = wanted.length > 0 ? wanted : [...BENCHMARKS.keys()];
  for (const name of names) {
    const run = BENCHMARKS.get(name);
    if (!run) {
      console.error(`unknown benchmark ${name}; known: ${[...BENCHMARKS.keys()].join(', ')}`);
      process.exit(2);
    }
    await run();
  }
  process.exit(0);
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
