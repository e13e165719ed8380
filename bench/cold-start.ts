/**
 * Lambda cold start, approximated on this machine: the bundle size of each family, and the time
 * a fresh Node process takes to import its bundle (module load and top-level work), median of
 * several fresh processes. Targets: under 1 MB minified, import under 150 ms. "minified KB" is
 * what a cold start loads (index.mjs and its static chunks); "lazy KB" the chunks loaded on first
 * use (the FHIRPath engine).
 */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import { bundleAll } from '../scripts/bundle';
import { median, printTable } from './table';

const RUNS = Number(process.env.BENCH_RUNS ?? 15);

const PROBE = `const t0 = performance.now(); await import(process.argv[1]); process.stdout.write(String(performance.now() - t0));`;

/**
 * A fresh process as Lambda starts one: this process's settings, minus what the local runtime set
 * for itself (it runs invocations concurrently and says so to Powertools; a bundle imported alone
 * has no runtime that would keep that promise), plus a function name: on Lambda the bundle loads
 * the Tracer and the X-Ray SDK during init, and the figure must include them.
 */
export function lambdaLikeEnvironment(): NodeJS.ProcessEnv {
  const { AWS_LAMBDA_MAX_CONCURRENCY: _local, ...env } = process.env;
  return { ...env, AWS_REGION: 'us-east-1', AWS_LAMBDA_FUNCTION_NAME: 'cold-start-probe', AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true' };
}

export async function coldStart(): Promise<void> {
  const rows = bundleAll().map((bundle) => {
    const times: number[] = [];
    for (let i = 0; i < RUNS; i++) {
      const out = spawnSync(process.execPath, ['--input-type=module', '-e', PROBE, bundle.file], {
        encoding: 'utf8',
        env: lambdaLikeEnvironment(),
      });
      if (out.status !== 0) throw new Error(`import of ${bundle.file} failed: ${out.stderr}`);
      times.push(Number(out.stdout));
    }
    const gz = gzipSync(readFileSync(bundle.file)).length;
    return {
      family: bundle.family,
      'minified KB': (bundle.bytes / 1024).toFixed(0),
      'lazy KB': (bundle.lazyBytes / 1024).toFixed(0),
      'gzip KB': (gz / 1024).toFixed(0),
      'import p50 ms': median(times).toFixed(1),
      'import max ms': Math.max(...times).toFixed(1),
      'under 1 MB': bundle.bytes < 1024 * 1024 ? 'yes' : 'NO',
      'under 150 ms': median(times) < 150 ? 'yes' : 'NO',
    };
  });
  printTable(`Cold start: bundle size and import time in a fresh Node ${process.version} process (${RUNS} runs)`, rows);
}
