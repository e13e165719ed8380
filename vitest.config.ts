import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

/**
 * How long a test or hook may take before it counts as hung. These are guards against a hang, never
 * speed checks (speed is the benches'): CI shares its machine, and at a load of 10 on 2 cores a
 * test that takes 500 ms alone took over 5 s (a password hash, the linter's run over a file). Every
 * project spreads it: inline projects do not inherit the root's options.
 */
const HANG_GUARD = { testTimeout: 120_000, hookTimeout: 300_000 };

/** Engines (DynamoDB Local, s3rver) start once per run for the projects that need them. */
const withStores = {
  globalSetup: ['test/setup/engines.ts'],
  setupFiles: ['test/setup/isolated-stores.ts'],
};

/** Every store port on its in-memory twin, a fresh set per file: no engine, milliseconds a test. */
const inMemory = {
  setupFiles: ['test/setup/memory-stores.ts'],
};

/**
 * The integration files that keep DynamoDB Local and s3rver, each for what only the real adapter
 * has (docs/testing.md lists them): the contract suites, which run on both adapters; the shared
 * DynamoDB helpers and provisioning; the commands a path sends (key reads only, no Scan, no write on
 * a retry); faults injected into the AWS clients; the table copy of a layout migration and the rewrite of blocks in the current format; the items a
 * write leaves, key by key. Every other integration file runs on the twins.
 */
const ON_ENGINES = [
  'test/integration/*/store.test.ts',
  'test/integration/store/**/*.test.ts',
  'test/integration/auth/authenticate.test.ts',
  'test/integration/auxiliary/large-bodies.test.ts',
  'test/integration/auxiliary/search.test.ts',
  'test/integration/auxiliary/write-items.test.ts',
  'test/integration/export/store-access.test.ts',
  'test/integration/mcp/rate-limit.test.ts',
  'test/integration/observations/faults.test.ts',
  'test/integration/observations/layout-migration.test.ts',
  'test/integration/observations/repost.test.ts',
  'test/integration/observations/store-access.test.ts',
  'test/integration/observations/blocks.test.ts',
  'test/integration/observations/summaries-rebuild.test.ts',
  'test/integration/observations/block-recode.test.ts',
  'test/integration/observations/summary-store.test.ts',
  'test/integration/observations/summary-counts.test.ts',
  'test/integration/observations/stats-faults.test.ts',
  'test/integration/observations/cgm-summary-store.test.ts',
];

/**
 * The security suites that keep the engines: faults injected into the AWS clients, and the load run,
 * whose gateway runs in a process of its own and shares only the engines with the test.
 */
const SECURITY_ON_ENGINES = ['test/security/faults-*.test.ts', 'test/security/load.test.ts'];

export default defineConfig({
  test: {
    // Files run side by side on at least two workers, also on a 2-core machine (where vitest's own
    // default is one): much of the suite waits on DynamoDB Local, child processes and Chromium
    // rather than computing, and two workers took the suite from 337 s to 272 s there.
    maxWorkers: Math.max(2, availableParallelism() - 1),
    // `npm run coverage`: what the suite exercises of the product's code (docs/testing.md keeps the
    // figures before and after the in-memory stores).
    coverage: {
      provider: 'v8',
      include: ['shared/**/*.ts', 'functions/**/*.ts', 'lib/**/*.ts', 'local/**/*.ts'],
      reporter: ['text-summary', 'json-summary'],
      reportsDirectory: 'coverage',
    },
    // Quiet by default; the tests of log, audit and metric lines turn them on for themselves.
    env: { LOG_LEVEL: 'silent', POWERTOOLS_METRICS_DISABLED: 'true', AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true' },
    projects: [
      { test: { ...HANG_GUARD, name: 'unit', include: ['test/unit/**/*.test.ts'] } },
      { test: { ...HANG_GUARD, name: 'integration', include: ['test/integration/**/*.test.ts'], exclude: ON_ENGINES, ...inMemory } },
      { test: { ...HANG_GUARD, name: 'store', include: ON_ENGINES, ...withStores } },
      { test: { ...HANG_GUARD, name: 'security', include: ['test/security/**/*.test.ts'], exclude: SECURITY_ON_ENGINES, ...inMemory } },
      { test: { ...HANG_GUARD, name: 'security-store', include: SECURITY_ON_ENGINES, ...withStores } },
      { test: { ...HANG_GUARD, name: 'e2e', include: ['test/e2e/**/*.test.ts'], ...withStores } },
      { test: { ...HANG_GUARD, name: 'infra', include: ['test/infra/**/*.test.ts'] } },
      { test: { ...HANG_GUARD, name: 'browser', include: ['test/browser/**/*.test.ts'], ...withStores } },
    ],
  },
});
