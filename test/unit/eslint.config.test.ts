/**
 * The linter's rules (eslint.config.mjs, docs/layout.md), each proven by a planted violation: the
 * planted source is linted as if it were the file at `file` (ESLint's `lintText` with that path, so
 * the config's zones apply to it as to real code), and the rule must refuse it with its own message.
 * A clean file passes. To prove a new rule, add a row to PLANTED.
 */
import { ESLint } from 'eslint';
import { mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

const REPO = join(import.meta.dirname, '..', '..');
/** The layers the config declares (a module of plain JavaScript: its lists typed here). */
const { DOMAIN_ORDER, PLATFORM, WIRING } = (await import(join(REPO, 'eslint.config.mjs'))) as Record<'DOMAIN_ORDER' | 'PLATFORM' | 'WIRING', string[]>;

interface Planted {
  /** What the row proves. */
  name: string;
  /** Where the source is linted as if it lived (relative to the repository; it need not exist). */
  file: string;
  source: string;
  /** The rule that must refuse it. */
  rule: string;
  /** Words of the rule's message, telling which zone of `import-x/no-restricted-paths` fired. */
  message?: string;
}

const PLATFORM_MESSAGE = 'Platform code (store, http, telemetry, config, FHIR core) imports no domain folder';
const WIRING_MESSAGE = 'Only the handlers (functions/), local/ and the tests choose the stores';
const ORDER_MESSAGE = 'imports only the domain folders before it in DOMAIN_ORDER';
const AWS_MESSAGE = 'The AWS SDK belongs to the store adapters';
const MCP_TYPED_MESSAGE = 'The assistants\' tools call the typed domain functions';

export const PLANTED: Planted[] = [
  { name: 'platform imports a domain folder', file: 'shared/http/planted.ts', source: "import { getUser } from '../directory/users';\nexport const f = getUser;\n", rule: 'import-x/no-restricted-paths', message: PLATFORM_MESSAGE },
  { name: 'a top-level platform file imports a domain folder', file: 'shared/config.ts', source: "import { getUser } from './directory/users';\nexport const f = getUser;\n", rule: 'import-x/no-restricted-paths', message: PLATFORM_MESSAGE },
  { name: 'the FHIR core imports the projections', file: 'shared/fhir/search/planted.ts', source: "import * as p from '../projections/resources';\nexport const f = p;\n", rule: 'import-x/no-restricted-paths', message: PLATFORM_MESSAGE },
  { name: 'platform imports the authenticator', file: 'shared/http/planted.ts', source: "import { authenticate } from '../auth/authenticate';\nexport const f = authenticate;\n", rule: 'import-x/no-restricted-paths', message: 'Platform code names only the caller type' },
  { name: 'a domain folder imports the wiring', file: 'shared/observations/planted.ts', source: "import { handlerBuilder } from '../stores';\nexport const f = handlerBuilder;\n", rule: 'import-x/no-restricted-paths', message: WIRING_MESSAGE },
  { name: 'a top-level file imports the wiring', file: 'shared/config.ts', source: "import { handlerBuilder } from './stores';\nexport const f = handlerBuilder;\n", rule: 'import-x/no-restricted-paths', message: WIRING_MESSAGE },
  { name: 'a top-level file imports the twins', file: 'shared/lists.ts', source: "import { memoryStores } from './memory-stores';\nexport const f = memoryStores;\n", rule: 'import-x/no-restricted-paths', message: WIRING_MESSAGE },
  { name: 'the deployed wiring imports the twins', file: 'shared/stores.ts', source: "import { memoryStores } from './memory-stores';\nexport const f = memoryStores;\n", rule: 'import-x/no-restricted-paths', message: 'The in-memory twins are for local/ and the tests' },
  { name: 'a Lambda imports the twins', file: 'functions/fhir/planted.ts', source: "import { memoryStores } from '../../shared/memory-stores';\nexport const f = memoryStores;\n", rule: 'import-x/no-restricted-paths', message: 'The in-memory twins are for local/ and the tests' },
  { name: 'the directory imports authentication (the auth <-> directory cycle)', file: 'shared/directory/planted.ts', source: "import { hashPassword } from '../auth/passwords';\nexport const f = hashPassword;\n", rule: 'import-x/no-restricted-paths', message: ORDER_MESSAGE },
  { name: 'authentication imports the OAuth server (the auth <-> oauth cycle)', file: 'shared/auth/planted.ts', source: "import { startGrant } from '../oauth/grants';\nexport const f = startGrant;\n", rule: 'import-x/no-restricted-paths', message: ORDER_MESSAGE },
  { name: 'a domain folder imports one after it', file: 'shared/observations/planted.ts', source: "import { prepareImport } from '../r4-import/import';\nexport const f = prepareImport;\n", rule: 'import-x/no-restricted-paths', message: ORDER_MESSAGE },
  { name: 'shared/ imports the local runtime', file: 'shared/observations/planted.ts', source: "import * as l from '../../local/runtime';\nexport const f = l;\n", rule: 'import-x/no-restricted-paths', message: 'shared/ is the library the entry points use' },
  { name: 'a Lambda imports the tests', file: 'functions/fhir/planted.ts', source: "import * as t from '../../test/support/store';\nexport const f = t;\n", rule: 'import-x/no-restricted-paths', message: 'Lambda code imports only what is deployed with it' },
  { name: 'a Lambda family imports another', file: 'functions/fhir/planted.ts', source: "import * as h from '../api/handler';\nexport const f = h;\n", rule: 'import-x/no-restricted-paths', message: 'A Lambda family imports no other family' },
  { name: 'the export worker imports a family', file: 'functions/export-worker/planted.ts', source: "import * as h from '../fhir/handler';\nexport const f = h;\n", rule: 'import-x/no-restricted-paths', message: 'A Lambda family imports no other family' },
  { name: 'the stack imports the local runtime', file: 'lib/planted.ts', source: "import * as l from '../local/runtime';\nexport const f = l;\n", rule: 'import-x/no-restricted-paths', message: 'The stack and its build import nothing of the local runtime' },
  { name: 'a domain file imports the authenticator', file: 'shared/observations/planted.ts', source: "import { authenticate } from '../auth/authenticate';\nexport const again = authenticate;\n", rule: 'import-x/no-restricted-paths', message: "Only a family's handler.ts imports the authenticator" },
  { name: "a family's route file imports the authenticator", file: 'functions/api/planted.ts', source: "import { authenticate } from '../../shared/auth/authenticate';\nexport const again = authenticate;\n", rule: 'import-x/no-restricted-paths', message: "Only a family's handler.ts imports the authenticator" },
  { name: 'a module imports itself', file: 'shared/lists.ts', source: "import { chunksOf } from './lists';\nexport const f = chunksOf;\n", rule: 'import-x/no-self-import' },
  { name: 'a domain file imports the AWS SDK', file: 'shared/observations/planted.ts', source: "import { DynamoDBClient } from '@aws-sdk/client-dynamodb';\nexport const f = DynamoDBClient;\n", rule: 'no-restricted-imports', message: AWS_MESSAGE },
  { name: 'a tool imports the AWS SDK', file: 'shared/mcp/tools/planted.ts', source: "import { DynamoDBClient } from '@aws-sdk/client-dynamodb';\nexport const f = DynamoDBClient;\n", rule: 'no-restricted-imports', message: AWS_MESSAGE },
  { name: 'a tool builds a FHIR query string', file: 'shared/mcp/tools/planted.ts', source: "export const q = new URLSearchParams([['patient', '1'], ['date', 'ge2026-01-01']]);\n", rule: 'no-restricted-syntax', message: MCP_TYPED_MESSAGE },
  { name: 'a tool reads a cursor out of a link', file: 'shared/mcp/planted.ts', source: "export const c = (link: string) => new URL(link).searchParams.get('_cursor');\n", rule: 'no-restricted-syntax', message: MCP_TYPED_MESSAGE },
  { name: 'a tool parses a FHIR search', file: 'shared/mcp/tools/planted.ts', source: "import { parseNativeQuery } from '../../observations/search/query';\nexport const f = parseNativeQuery;\n", rule: 'no-restricted-imports', message: MCP_TYPED_MESSAGE },
  { name: "a tool parses $stats' FHIR parameters", file: 'shared/mcp/tools/planted.ts', source: "import { parseStatsRequest } from '../../observations/stats/params';\nexport const f = parseStatsRequest;\n", rule: 'no-restricted-imports', message: MCP_TYPED_MESSAGE },
  { name: "a tool parses $lastn's FHIR parameters", file: 'shared/mcp/tools/planted.ts', source: "import { parseLastn } from '../../observations/lastn';\nexport const f = parseLastn;\n", rule: 'no-restricted-imports', message: MCP_TYPED_MESSAGE },
  { name: 'a tool runs the search on a FHIR query', file: 'shared/mcp/planted.ts', source: "import { searchObservations } from '../observations/search/execute';\nexport const f = searchObservations;\n", rule: 'no-restricted-imports', message: MCP_TYPED_MESSAGE },
  { name: 'a tool runs the auxiliary search on a query string', file: 'shared/mcp/tools/planted.ts', source: "import { searchAuxiliary } from '../../auxiliary/search';\nexport const f = searchAuxiliary;\n", rule: 'no-restricted-imports', message: MCP_TYPED_MESSAGE },
];

/** Imports every kind of rule above allows: platform, a folder below, the caller type, the wiring from a handler. */
const CLEAN: Array<{ file: string; source: string }> = [
  {
    file: 'shared/observations/planted.ts',
    source: [
      "import type { Caller } from '../auth/caller';",
      "import { getUser } from '../directory/users';",
      "import { badRequest } from '../http/errors';",
      "import { isObject } from '../json';",
      'export const f = [getUser, badRequest, isObject];',
      'export type C = Caller;',
      '',
    ].join('\n'),
  },
  { file: 'shared/http/planted.ts', source: "import type { Caller } from '../auth/caller';\nexport type C = Caller;\n" },
  {
    file: 'shared/mcp/tools/planted.ts',
    source: "import { findReadings } from '../../observations/series';\nimport { findAuxiliary } from '../../auxiliary/search';\nimport { MAX_PERIOD_MS } from '../../observations/stats/params';\nexport const f = [findReadings, findAuxiliary, MAX_PERIOD_MS];\n",
  },
  { file: 'shared/mcp/store/planted.ts', source: "import { DynamoDBClient } from '@aws-sdk/client-dynamodb';\nexport const f = DynamoDBClient;\n" },
  // The endpoint reads its requests as every route does: the site URL's origin.
  { file: 'shared/mcp/http.ts', source: "export const own = (siteUrl: string) => new URL(siteUrl).origin;\n" },
  { file: 'functions/fhir/planted.ts', source: "import { handlerBuilder } from '../../shared/stores';\nexport const f = handlerBuilder;\n" },
  { file: 'functions/api/handler.ts', source: "import { authenticator } from '../../shared/auth/authenticate';\nexport const f = authenticator;\n" },
];

const eslint = new ESLint({ cwd: REPO });

async function messagesOf(file: string, source: string) {
  const [result] = await eslint.lintText(source, { filePath: join(REPO, file) });
  return result!.messages;
}

describe('the linter refuses each planted violation', () => {
  it.each(PLANTED)('$name ($rule)', async ({ file, source, rule, message }) => {
    const messages = await messagesOf(file, source);
    const hits = messages.filter((m) => m.ruleId === rule);
    expect(hits, JSON.stringify(messages)).not.toHaveLength(0);
    if (message) expect(hits.map((m) => m.message).join('\n')).toContain(message);
  });

  it('passes a clean file', async () => {
    for (const { file, source } of CLEAN) expect(await messagesOf(file, source), file).toEqual([]);
  });
});

describe('import cycles', () => {
  const dir = mkdtempSync(join(REPO, 'test', 'lint-planted-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('refuses two modules importing each other, also through a dynamic import()', async () => {
    writeFileSync(join(dir, 'a.ts'), "import { b } from './b';\nexport const a = () => b;\n");
    writeFileSync(join(dir, 'b.ts'), "export const b = async () => (await import('./a')).a;\n");
    const [result] = await eslint.lintFiles([join(dir, 'a.ts')]);
    expect(result!.messages.map((m) => m.ruleId)).toContain('import-x/no-cycle');
  });
});

describe('the layers name every part of shared/', () => {
  it('puts each top-level file and folder of shared/ in the platform, a domain folder or the wiring', () => {
    const unplaced = readdirSync(join(REPO, 'shared')).flatMap((name) => {
      const path = `shared/${name}`;
      if (statSync(join(REPO, path)).isDirectory()) {
        if (name === 'fhir') return PLATFORM.includes('shared/fhir/*.ts') && DOMAIN_ORDER.includes('shared/fhir/projections') ? [] : [path];
        return DOMAIN_ORDER.includes(path) || PLATFORM.includes(`${path}/**`) ? [] : [path];
      }
      return PLATFORM.includes(path) || WIRING.includes(path) ? [] : [path];
    });
    expect(unplaced).toEqual([]);
  });

  it('orders folders that exist', () => {
    const missing = DOMAIN_ORDER.filter((folder) => !statSync(join(REPO, folder), { throwIfNoEntry: false })?.isDirectory());
    expect(missing.map((folder) => relative(REPO, join(REPO, folder)))).toEqual([]);
  });
});

const SDK = /The AWS SDK belongs to the store adapters/;
const ADAPTER = /A domain file reaches its store through the port and the current adapter/;
const OTHER_STORE = /never on another domain's store folder/;

/** What the linter says of `code` at `file`, a line a message: `rule: message`. */
const refusalsAt = async (file: string, code: string) => (await messagesOf(file, code)).map((m) => `${m.ruleId}: ${m.message}`);

/** The storage rules (docs/layout.md#storage-behind-the-ports): the SDK and the adapters stay behind the ports. */
describe('the storage rules of the linter', () => {
  it.each([
    ['a domain file imports the SDK', 'shared/observations/search/planted.ts', "import { QueryCommand } from '@aws-sdk/lib-dynamodb';\nexport const q = QueryCommand;\n", SDK],
    ['a domain file loads the SDK on demand', 'shared/auxiliary/planted.ts', "export const load = () => import('@aws-sdk/client-s3');\n", SDK],
    ['a domain file imports a type of the SDK', 'shared/directory/planted.ts', "import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';\nexport type C = DynamoDBClient;\n", SDK],
    ['platform code outside the store imports the SDK', 'shared/http/planted.ts', "import { S3Client } from '@aws-sdk/client-s3';\nexport const c = S3Client;\n", SDK],
    ['the site URL middleware reads SSM itself, not through the platform store', 'shared/http/middleware/site-url.ts', "export const load = () => import('@aws-sdk/client-ssm');\n", SDK],
    ['the signing keys call KMS outside their store folder', 'shared/auth/planted.ts', "import { KMSClient } from '@aws-sdk/client-kms';\nexport const k = KMSClient;\n", SDK],
    ['a handler imports the SDK', 'functions/fhir/planted.ts', "import { GetCommand } from '@aws-sdk/lib-dynamodb';\nexport const g = GetCommand;\n", SDK],
    ['a domain file imports its DynamoDB adapter', 'shared/observations/search/planted.ts', "import { dynamoSummaryStore } from '../store/dynamo-summaries';\nexport const s = dynamoSummaryStore;\n", ADAPTER],
    ['a domain file imports its in-memory twin', 'shared/observations/planted.ts', "import { memoryObservationStore } from './store/memory';\nexport const m = memoryObservationStore;\n", ADAPTER],
    ['a domain file imports an S3 adapter', 'shared/auxiliary/search/planted.ts', "import * as bodies from '../store/s3-bodies';\nexport const b = bodies;\n", ADAPTER],
    ['a domain file imports another domain\'s adapter', 'shared/export/planted.ts', "import { dynamoAuxiliaryStore } from '../auxiliary/store/dynamo';\nexport const a = dynamoAuxiliaryStore;\n", ADAPTER],
    ['an adapter builds on another domain\'s adapter', 'shared/oauth/store/planted.ts', "import { dynamoDirectoryStore } from '../../directory/store/dynamo';\nexport const d = dynamoDirectoryStore;\n", OTHER_STORE],
    ['a twin builds on another domain\'s twin', 'shared/auxiliary/store/planted.ts', "import { memoryDirectoryStore } from '../../directory/store/memory';\nexport const d = memoryDirectoryStore;\n", OTHER_STORE],
  ])('refuses: %s', async (_case, filePath, code, message) => {
    const found = await refusalsAt(filePath, code);
    expect(found.some((m) => message.test(m)), found.join('\n') || 'nothing refused').toBe(true);
  });

  it.each([
    ['a store adapter imports the SDK', 'shared/observations/store/planted.ts', "import { QueryCommand } from '@aws-sdk/lib-dynamodb';\nexport const q = QueryCommand;\n"],
    ['the platform store imports the SDK', 'shared/store/planted.ts', "import { DynamoDBClient } from '@aws-sdk/client-dynamodb';\nexport const c = DynamoDBClient;\n"],
    ['the local runtime imports the SDK', 'local/planted.ts', "import { DynamoDBClient } from '@aws-sdk/client-dynamodb';\nexport const c = DynamoDBClient;\n"],
    ['a domain file imports its port and current adapter', 'shared/observations/search/planted.ts', "import type { ReadingsQuery } from '../store/port';\nimport { observationStore } from '../store/current';\nexport const s = observationStore;\nexport type Q = ReadingsQuery;\n"],
    ['an adapter imports a sibling adapter', 'shared/observations/store/planted.ts', "import { dynamoSummaryStore } from './dynamo-summaries';\nexport const s = dynamoSummaryStore;\n"],
    ['an adapter builds on the platform\'s directory table', 'shared/oauth/store/planted.ts', "import { getItem } from '../../store/directory-table';\nexport const g = getItem;\n"],
    ['the wiring imports every adapter', 'shared/planted.ts', "import { dynamoSummaryStore } from './observations/store/dynamo-summaries';\nexport const s = dynamoSummaryStore;\n"],
  ])('allows: %s', async (_case, filePath, code) => {
    const found = await refusalsAt(filePath, code);
    expect(found.filter((m) => SDK.test(m) || ADAPTER.test(m) || OTHER_STORE.test(m))).toEqual([]);
  });
});
