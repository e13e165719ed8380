/**
 * Runs before each test file of the projects on the in-memory stores: every store port on its twin,
 * a new, empty set per file, and no engine. The AWS endpoints point at a closed loopback port, so a
 * call that went around a port to DynamoDB or S3 fails at once instead of passing unnoticed. The
 * test helpers that look at stored rows (test/support/store.ts) read these twins instead.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { applyLocalEnvironment } from '../../local/runtime';
import { memoryStores } from '../../shared/memory-stores';
import { useStores } from '../../shared/stores';
import { viewTwins } from '../support/store';

const CLOSED = 'http://127.0.0.1:9';

process.env.RESOURCE_PREFIX = 'memory-';
applyLocalEnvironment({
  dynamodbEndpoint: CLOSED,
  s3Endpoint: CLOSED,
  dataDir: mkdtempSync(join(tmpdir(), 'cdx-test-data-')),
  localCredentials: true,
});
const twins = memoryStores();
useStores(twins);
viewTwins(twins);
