/**
 * Starts DynamoDB Local (in memory) and s3rver on free loopback ports once per test run and
 * hands their endpoints to the test files. Each test file then gets tables of its own.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';
import { startDynamoDbLocal, startS3Local, type Engine } from '../../local/engines';

declare module 'vitest' {
  export interface ProvidedContext {
    dynamodbEndpoint: string;
    s3Endpoint: string;
  }
}

/** Shared by every project of the run: the first setup starts the engines, the last teardown stops them. */
const shared = globalThis as unknown as { cdxEngines?: { dynamo: Engine; s3: Engine; dir: string; users: number } };

export default async function setup(project: TestProject) {
  if (!shared.cdxEngines) {
    const dir = mkdtempSync(join(tmpdir(), 'cdx-test-s3-'));
    const [dynamo, s3] = await Promise.all([startDynamoDbLocal(), startS3Local({ dataDir: dir })]);
    shared.cdxEngines = { dynamo, s3, dir, users: 0 };
  }
  const engines = shared.cdxEngines;
  engines.users += 1;
  project.provide('dynamodbEndpoint', engines.dynamo.endpoint);
  project.provide('s3Endpoint', engines.s3.endpoint);
  return async () => {
    engines.users -= 1;
    if (engines.users > 0) return;
    shared.cdxEngines = undefined;
    await Promise.all([engines.dynamo.stop(), engines.s3.stop()]);
    rmSync(engines.dir, { recursive: true, force: true });
  };
}
