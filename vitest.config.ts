import { defineConfig } from 'vitest/config';

/** Engines (DynamoDB Local, s3rver) start once per run for the projects that need them. */
const withStores = {
  globalSetup: ['test/setup/engines.ts'],
  setupFiles: ['test/setup/isolated-stores.ts'],
  testTimeout: 30_000,
  hookTimeout: 120_000,
};

/** Every store port on its in-memory twin, a fresh set per file: no engine, milliseconds a test. */
const inMemory = {
  setupFiles: ['test/setup/memory-stores.ts'],
  testTimeout: 30_000,
};

/**
 * The integration files that keep DynamoDB Local and s3rver: what they check is the real adapter
 * (each contract suite runs on both adapters), the requests it sends, rows as the table holds them,
 * or faults injected into the AWS clients. Every other integration file runs on the twins.
 */
const ON_ENGINES = [
  'test/integration/*-store.test.ts',
  'test/integration/store-provisioning.test.ts',
  'test/integration/store/**/*.test.ts',
  'test/integration/purge.test.ts',
  'test/integration/auth/authenticate.test.ts',
  'test/integration/auxiliary/large-bodies.test.ts',
  'test/integration/auxiliary/search.test.ts',
  'test/integration/oauth/client-credentials.test.ts',
  'test/integration/oauth/hostile-input.test.ts',
  'test/integration/oauth/invitations.test.ts',
  'test/integration/api/attacks.test.ts',
  'test/integration/observations/faults.test.ts',
  'test/integration/observations/layout-migration.test.ts',
  'test/integration/observations/repost.test.ts',
  'test/integration/observations/store-access.test.ts',
  // Still read rows as the tables hold them to prove a refused request changed nothing (to move).
  'test/integration/api/*.test.ts',
  'test/integration/auxiliary/cleanup.test.ts',
  'test/integration/auxiliary/write.test.ts',
  'test/integration/directory/organizations.test.ts',
  'test/integration/directory/patients.test.ts',
  'test/integration/directory/users.test.ts',
  'test/integration/import/endpoint.test.ts',
  'test/integration/observations/duplicates.test.ts',
  'test/integration/observations/upload-errors.test.ts',
  'test/integration/observations/upload.test.ts',
];

export default defineConfig({
  test: {
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
      { test: { name: 'unit', include: ['test/unit/**/*.test.ts'] } },
      { test: { name: 'integration', include: ['test/integration/**/*.test.ts'], exclude: ON_ENGINES, ...inMemory } },
      { test: { name: 'store', include: ON_ENGINES, ...withStores } },
      { test: { name: 'security', include: ['test/security/**/*.test.ts'], ...withStores } },
      { test: { name: 'e2e', include: ['test/e2e/**/*.test.ts'], ...withStores } },
      { test: { name: 'infra', include: ['test/infra/**/*.test.ts'], testTimeout: 120_000, hookTimeout: 120_000 } },
      { test: { name: 'browser', include: ['test/browser/**/*.test.ts'], ...withStores } },
    ],
  },
});
