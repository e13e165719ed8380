/**
 * The whole service on one machine: engines, tables, demo data, and the gateway. `npm start`,
 * `npm run invoke`, the e2e tests and the benchmarks all start it through here.
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { mkdirSync, rmSync, writeFileSync, readFileSync, existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { config, resetConfig } from '../shared/config';
import { resetClients, s3 } from '../shared/store/clients';
import { forgetIdBlocks } from '../shared/store/counters';
import { ensureBucket, ensureTables } from '../shared/store/provision';
import { upgradeBlockFormat, upgradeObservationsTable } from './upgrade-tables';
import { startDynamoDbLocal, startS3Local, type Engine } from './engines';
import { startGateway, type Gateway } from './gateway';
import { loadHandlers, loadWorker } from './handlers';
import { startLocalExportWorker, type LocalExportWorker } from './export-worker';
import { seedDemoData } from './seed';
import { portalConfigFromEnv, type PortalConfig } from '../shared/portal/config';
import { buildPortalSite } from '../scripts/portal-site';

export const REPO_ROOT = resolve(import.meta.dirname, '..');

export interface RuntimeOptions {
  /** Port of the gateway; 0 picks a free one. Without a gateway only the stores are started. */
  port?: number;
  dataDir: string;
  seed?: boolean;
  gateway?: boolean;
  /** Keep DynamoDB in memory (tests). */
  inMemory?: boolean;
  /** The portal's launch configuration; default from SMART_ISS, SMART_CLIENT_ID, SMART_SCOPES. */
  portal?: PortalConfig;
}

export interface RuntimeInfo {
  pid: number;
  url: string | undefined;
  port: number | undefined;
  dataDir: string;
  dynamodbEndpoint: string;
  s3Endpoint: string;
  resourcePrefix: string;
  /** Public origin the service uses (token issuer, links). */
  siteUrl?: string;
}

export interface Runtime {
  info: RuntimeInfo;
  gateway: Gateway | undefined;
  /** The export worker (with the gateway): runs the same handler as the worker Lambda. */
  exportWorker: LocalExportWorker | undefined;
  seedNotes: string[];
  seeded: boolean;
  stop(): Promise<void>;
}

const RUNTIME_FILE = 'runtime.json';

/** What a running `npm start` wrote about itself, if it is still running. */
export function readRuntimeInfo(dataDir: string): RuntimeInfo | undefined {
  const file = join(dataDir, RUNTIME_FILE);
  if (!existsSync(file)) return undefined;
  try {
    const info = JSON.parse(readFileSync(file, 'utf8')) as RuntimeInfo;
    process.kill(info.pid, 0);
    return info;
  } catch {
    return undefined;
  }
}

/** Environment every local process shares; set before any handler module reads it. */
export function applyLocalEnvironment(values: {
  dynamodbEndpoint: string;
  s3Endpoint: string;
  dataDir: string;
  siteUrl?: string;
  /** The local engines accept only these credentials (s3rver checks them; DynamoDB Local does not). */
  localCredentials: boolean;
}) {
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = 'true';
  process.env.AWS_REGION ??= 'us-east-1';
  if (values.localCredentials) {
    process.env.AWS_ACCESS_KEY_ID = 'S3RVER';
    process.env.AWS_SECRET_ACCESS_KEY = 'S3RVER';
    delete process.env.AWS_SESSION_TOKEN;
    delete process.env.AWS_PROFILE;
  }
  process.env.AWS_ENDPOINT_URL_DYNAMODB = values.dynamodbEndpoint;
  process.env.AWS_ENDPOINT_URL_S3 = values.s3Endpoint;
  process.env.AWS_REQUEST_CHECKSUM_CALCULATION = 'WHEN_REQUIRED';
  process.env.AWS_RESPONSE_CHECKSUM_VALIDATION = 'WHEN_REQUIRED';
  process.env.DATA_DIR = values.dataDir;
  if (values.siteUrl) process.env.SITE_URL ??= values.siteUrl;
  resetConfig();
  resetClients();
}

export async function startRuntime(options: RuntimeOptions): Promise<Runtime> {
  const dataDir = resolve(options.dataDir);
  mkdirSync(dataDir, { recursive: true });
  const engines: Engine[] = [];
  const stopEngines = async () => {
    for (const engine of engines.reverse()) await engine.stop().catch(() => undefined);
  };
  let gateway: Gateway | undefined;
  let exportWorker: LocalExportWorker | undefined;
  try {
    // Endpoints given in the environment (real AWS, another DynamoDB server) win over the local engines.
    let dynamodbEndpoint = process.env.AWS_ENDPOINT_URL_DYNAMODB;
    if (!dynamodbEndpoint) {
      const engine = await startDynamoDbLocal(options.inMemory ? {} : { dataDir: join(dataDir, 'dynamodb') });
      engines.push(engine);
      dynamodbEndpoint = engine.endpoint;
    }
    let s3Endpoint = process.env.AWS_ENDPOINT_URL_S3;
    if (!s3Endpoint) {
      const engine = await startS3Local({ dataDir: join(dataDir, 's3') });
      engines.push(engine);
      s3Endpoint = engine.endpoint;
    }
    const wantsGateway = options.gateway ?? true;
    const port = options.port ?? 8000;
    applyLocalEnvironment({
      dynamodbEndpoint,
      s3Endpoint,
      dataDir,
      localCredentials: engines.length > 0,
      ...(wantsGateway && port !== 0 ? { siteUrl: `http://localhost:${port}` } : {}),
    });
    const raw = new DynamoDBClient({});
    const created = await ensureTables(raw);
    const moved = await upgradeObservationsTable(raw, created, join(dataDir, 'migrate-observations.json'));
    const recoded = await upgradeBlockFormat(created, join(dataDir, 'recode-blocks.json'));
    raw.destroy();
    await ensureBucket(await s3());

    const seed = options.seed === false ? { seeded: false, notes: [] } : await seedDemoData();
    const movedNotes = [
      ...(moved ? ['  Readings moved to the layout-3 observations table (docs/operations.md#moving-observations-to-layout-3):', ...moved.map((line) => `    ${line}`)] : []),
      ...(recoded ? ['  Blocks rewritten in the current format (docs/operations.md#rewriting-blocks-in-the-current-format):', ...recoded.map((line) => `    ${line}`)] : []),
    ];

    if (wantsGateway) {
      exportWorker = startLocalExportWorker(await loadWorker());
      gateway = await startGateway({
        handlers: await loadHandlers(),
        staticDir: buildPortalSite(),
        portal: options.portal ?? portalConfigFromEnv(process.env),
        port,
      });
      process.env.SITE_URL ??= gateway.url;
      resetConfig();
    }
    const info: RuntimeInfo = {
      pid: process.pid,
      url: gateway?.url,
      port: gateway?.port,
      dataDir,
      dynamodbEndpoint,
      s3Endpoint,
      resourcePrefix: process.env.RESOURCE_PREFIX ?? 'cdx-',
      siteUrl: config().siteUrl,
    };
    if (gateway) writeFileSync(join(dataDir, RUNTIME_FILE), JSON.stringify(info, null, 2));
    let stopped = false;
    return {
      info,
      gateway,
      exportWorker,
      seedNotes: [...movedNotes, ...seed.notes],
      seeded: seed.seeded,
      stop: async () => {
        if (stopped) return;
        stopped = true;
        if (gateway) {
          rmSync(join(dataDir, RUNTIME_FILE), { force: true });
          await gateway.close();
        }
        await exportWorker?.stop();
        resetClients();
        forgetIdBlocks();
        await stopEngines();
        // The endpoints of engines that are gone: a later start in this process starts its own.
        if (process.env.AWS_ENDPOINT_URL_DYNAMODB === dynamodbEndpoint && engines.some((e) => e.endpoint === dynamodbEndpoint)) delete process.env.AWS_ENDPOINT_URL_DYNAMODB;
        if (process.env.AWS_ENDPOINT_URL_S3 === s3Endpoint && engines.some((e) => e.endpoint === s3Endpoint)) delete process.env.AWS_ENDPOINT_URL_S3;
      },
    };
  } catch (e) {
    await gateway?.close();
    await exportWorker?.stop();
    await stopEngines();
    throw e;
  }
}
