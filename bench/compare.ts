/**
 * `BENCH_BASELINE=<checkout> npm run bench -- compare`: this checkout against another one (an
 * earlier commit, its `npm ci` done: `git worktree add ../baseline <commit>`), on what a client
 * sees of one patient's minute heart rates, each side in a process of its own, alternately (the
 * order flips every round, so neither always meets the machine warmer):
 *
 * - `bench/client-figures.ts` (copied into the baseline's `bench/` for the run, removed after: it
 *   reaches the store only through the handler, HTTP and `storeRawReadings`, which each version
 *   has): the store rate of one device in uploads of 100, the download of 10,000 at 1,000 a page,
 *   a day's page of 100 (p50, p99);
 * - the small export of each checkout's own `npm run bench -- export` (`BENCH_PARTS=small`): one
 *   patient's 10,000 readings, kick-off to complete manifest (the status asked every 250 ms), and
 *   when the job itself was complete.
 *
 * Each ratio is the median of the rounds' ratios (ours / baseline; of two rounds, their mean), printed
 * against its target, beside each round's.
 * `BENCH_COMPARE_ROUNDS` (2), `BENCH_COMPARE_PARTS=store,download,day,export`.
 */
import { spawn } from 'node:child_process';
import { copyFileSync, existsSync, rmSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join, resolve } from 'node:path';
import { REPO_ROOT } from '../local/runtime';
import { median, printTable } from './table';

const ROUNDS = Number(process.env.BENCH_COMPARE_ROUNDS ?? 2);
const PARTS = new Set((process.env.BENCH_COMPARE_PARTS ?? 'store,download,day,export').split(','));
const FIGURES_FILE = 'bench/client-figures.ts';

type Figures = Record<string, number>;

const STORE = 'store: readings/s';
const DOWNLOAD = 'download 10,000 at 1,000 a page: ms';
const DAY_P50 = "a day's page of 100: p50 ms";
const DAY_P99 = "a day's page: p99 ms";
const EXPORT = 'small export, kick-off to manifest p50: s';
const EXPORT_JOB = 'small export, job complete p50: s';

/** Each figure compared, and its target as ours / baseline (the median of the rounds' ratios). */
const TARGETS: ReadonlyArray<{ figure: string; target?: { text: string; met: (ratio: number) => boolean } }> = [
  { figure: STORE, target: { text: 'at least 1x', met: (r) => r >= 1 } },
  { figure: DOWNLOAD, target: { text: 'at most 0.7x', met: (r) => r <= 0.7 } },
  { figure: DAY_P50 },
  { figure: DAY_P99 },
  { figure: EXPORT, target: { text: 'at most 0.5x', met: (r) => r <= 0.5 } },
  { figure: EXPORT_JOB },
];

/** Runs a TypeScript file of `dir` in a fresh Node process; its standard output. */
function run(dir: string, args: readonly string[], env: Record<string, string>): Promise<string> {
  return new Promise((done, fail) => {
    const child = spawn(process.execPath, ['--import', 'tsx', ...args], { cwd: dir, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString('utf8')));
    child.on('error', fail);
    child.on('close', (code) => (code === 0 ? done(out) : fail(new Error(`${args.join(' ')} in ${dir} exited ${code}: ${out.slice(-600)}`))));
  });
}

/** The figures of one checkout, measured in fresh processes. */
async function figuresOf(dir: string): Promise<Figures> {
  const figures: Figures = {};
  const wanted = ['store', 'download', 'day'].filter((p) => PARTS.has(p));
  if (wanted.length > 0) {
    const out = await run(dir, [FIGURES_FILE], { BENCH_FIGURES: wanted.join(',') });
    Object.assign(figures, JSON.parse(out.trim().split('\n').pop()!));
  }
  if (PARTS.has('export')) {
    const out = await run(dir, ['bench/run.ts', 'export'], { BENCH_PARTS: 'small' });
    const line = /kick-off to complete manifest: p50 ([\d.]+) s .*job itself complete at p50 ([\d.]+) s/.exec(out);
    if (!line) throw new Error(`no small-export line in ${dir}'s output: ${out.slice(-600)}`);
    figures[EXPORT] = Number(line[1]);
    figures[EXPORT_JOB] = Number(line[2]);
  }
  return figures;
}

const shown = (v: number | undefined) => (v === undefined ? '-' : v >= 100 ? v.toFixed(0) : v.toFixed(2));

export async function compareBench(): Promise<void> {
  const baseline = process.env.BENCH_BASELINE ? resolve(process.env.BENCH_BASELINE) : undefined;
  if (!baseline || !existsSync(join(baseline, 'node_modules')) || !existsSync(join(baseline, 'bench/observation-world.ts'))) {
    throw new Error('BENCH_BASELINE must name a checkout of the service with its npm ci done (git worktree add <dir> <commit>)');
  }
  const copied = !existsSync(join(baseline, FIGURES_FILE));
  if (copied) copyFileSync(join(REPO_ROOT, FIGURES_FILE), join(baseline, FIGURES_FILE));
  const ours: Figures[] = [];
  const theirs: Figures[] = [];
  const loads: string[] = [];
  try {
    for (let round = 0; round < ROUNDS; round++) {
      const sides: Array<[string, Figures[]]> = [[REPO_ROOT, ours], [baseline, theirs]];
      for (const [dir, into] of round % 2 === 0 ? sides : [...sides].reverse()) {
        into.push(await figuresOf(dir));
        loads.push(loadavg()[0]!.toFixed(1));
      }
      console.log(`\ncompare: round ${round + 1} of ${ROUNDS} done (load average after each side: ${loads.slice(-2).join(', ')})`);
    }
  } finally {
    if (copied) rmSync(join(baseline, FIGURES_FILE), { force: true });
  }
  const rows = TARGETS.filter(({ figure }) => ours.some((f) => f[figure] !== undefined)).map(({ figure, target }) => {
    const ratios = ours.map((f, i) => f[figure]! / theirs[i]![figure]!);
    const ratio = median(ratios);
    return {
      figure,
      'ours (each round)': ours.map((f) => shown(f[figure])).join(', '),
      'baseline (each round)': theirs.map((f) => shown(f[figure])).join(', '),
      'ours / baseline (each round)': ratios.map((r) => r.toFixed(2)).join(', '),
      'ours / baseline (median of rounds)': ratio.toFixed(2),
      target: target?.text ?? '',
      '': target ? (target.met(ratio) ? 'met' : 'missed') : '',
    };
  });
  if (ours.some((f) => f[DAY_P50] !== undefined)) {
    const spread = (side: Figures[]) => side.map((f) => (f[DAY_P99]! / f[DAY_P50]!).toFixed(2)).join(', ');
    const ratio = median(ours.map((f) => f[DAY_P99]! / f[DAY_P50]!));
    rows.push({ figure: "a day's page of 100: p99 / p50", 'ours (each round)': spread(ours), 'baseline (each round)': spread(theirs), 'ours / baseline (each round)': '', 'ours / baseline (median of rounds)': `${ratio.toFixed(2)} (ours)`, target: 'at most 1.5', '': ratio <= 1.5 ? 'met' : 'missed' });
  }
  printTable(`This checkout against ${baseline}, ${ROUNDS} rounds alternately (command: BENCH_BASELINE=${baseline} npm run bench -- compare; load average ${loads.join(', ')})`, rows);
}
