/**
 * `npm run bench -- fuzz`: the long form of the fuzz suites (test/security/fuzz-*.test.ts), with
 * many more cases per property than `npm test` runs and a fresh seed each time, so every run tries
 * cases no earlier run tried. A failure prints the seed and the path that replay it
 * (`FUZZ_SEED=<seed> FUZZ_RUNS=<n> npx vitest run --project security test/security/fuzz-...`).
 */
import { spawnSync } from 'node:child_process';
import { REPO_ROOT } from '../scripts/bundle';

const RUNS = Number(process.env.FUZZ_RUNS ?? 400);

export async function fuzzBench(): Promise<void> {
  const seed = Number(process.env.FUZZ_SEED ?? Date.now() % 2 ** 31);
  console.log(`\nFuzz suites, long form: ${RUNS} cases a property, seed ${seed}`);
  const out = spawnSync('npx', ['vitest', 'run', '--project', 'security', 'test/security/fuzz-'], {
    cwd: REPO_ROOT,
    env: { ...process.env, FUZZ_RUNS: String(RUNS), FUZZ_SEED: String(seed) },
    encoding: 'utf8',
    maxBuffer: 256 * 1024 * 1024,
  });
  const text = `${out.stdout}\n${out.stderr}`;
  // The suites' own summary lines (cases per endpoint), then vitest's verdict.
  for (const line of text.split('\n')) if (/^fuzz |Tests |Test Files /.test(line.replace(/\x1b\[[0-9;]*m/g, '').trim())) console.log(line.replace(/\x1b\[[0-9;]*m/g, '').trim());
  if (out.status !== 0) {
    console.log(text.slice(-20_000));
    throw new Error(`the fuzz suites failed (seed ${seed}, ${RUNS} cases a property)`);
  }
}
