import { defineConfig } from 'vitest/config';

/** Engines (DynamoDB Local, s3rver) start once per run for the projects that need them. */
const withStores = {
  globalSetup: ['test/setup/engines.ts'],
  setupFiles: ['test/setup/isolated-stores.ts'],
  testTimeout: 30_000,
  hookTimeout: 120_000,
};

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
      { test: { name: 'integration', include: ['test/integration/**/*.test.ts'], ...withStores } },
      { test: { name: 'security', include: ['test/security/**/*.test.ts'], ...withStores } },
      { test: { name: 'e2e', include: ['test/e2e/**/*.test.ts'], ...withStores } },
      { test: { name: 'infra', include: ['test/infra/**/*.test.ts'], testTimeout: 120_000, hookTimeout: 120_000 } },
      { test: { name: 'browser', include: ['test/browser/**/*.test.ts'], ...withStores } },
    ],
  },
});
