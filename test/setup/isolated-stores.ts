/**
 * Runs before each test file: points the code at the run's engines and gives the file its own
 * tables and bucket (a random name prefix), so files never see each other's rows.
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { randomBytes } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { inject } from 'vitest';
import { applyLocalEnvironment } from '../../local/runtime';
import { s3 } from '../../shared/store/clients';
import { ensureBucket, ensureTables } from '../../shared/store/provision';

process.env.RESOURCE_PREFIX = `t${randomBytes(4).toString('hex')}-`;
applyLocalEnvironment({
  dynamodbEndpoint: inject('dynamodbEndpoint'),
  s3Endpoint: inject('s3Endpoint'),
  dataDir: mkdtempSync(join(tmpdir(), 'cdx-test-data-')),
  localCredentials: true,
});
const raw = new DynamoDBClient({});
await ensureTables(raw);
raw.destroy();
await ensureBucket(await s3());
