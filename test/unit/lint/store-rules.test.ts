/**
 * The linter's storage rules (eslint.config.mjs, docs/layout.md#storage-behind-the-ports), proven
 * by planted violations: each planted file is linted as if it sat at its path in the repository,
 * and each forbidden import must be refused with the rule's message, while its allowed twin passes.
 */
import { ESLint } from 'eslint';
import { describe, expect, it } from 'vitest';

const eslint = new ESLint({ cwd: process.cwd() });

/** The messages of the rules that refuse `code` at `filePath` (relative to the repository). */
async function refusals(filePath: string, code: string): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath });
  return result!.messages.map((m) => `${m.ruleId}: ${m.message}`);
}

const SDK = /The AWS SDK belongs to the store adapters/;
const ADAPTER = /A domain file reaches its store through the port and the current adapter/;
const OTHER_STORE = /never on another domain's store folder/;

describe('the storage rules of the linter', () => {
  it.each([
    ['a domain file imports the SDK', 'shared/observations/search/planted.ts', "import { QueryCommand } from '@aws-sdk/lib-dynamodb';\nexport const q = QueryCommand;\n", SDK],
    ['a domain file loads the SDK on demand', 'shared/auxiliary/planted.ts', "export const load = () => import('@aws-sdk/client-s3');\n", SDK],
    ['a domain file imports a type of the SDK', 'shared/directory/planted.ts', "import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';\nexport type C = DynamoDBClient;\n", SDK],
    ['platform code outside the store imports the SDK', 'shared/http/planted.ts', "import { S3Client } from '@aws-sdk/client-s3';\nexport const c = S3Client;\n", SDK],
    ['a handler imports the SDK', 'functions/fhir/planted.ts', "import { GetCommand } from '@aws-sdk/lib-dynamodb';\nexport const g = GetCommand;\n", SDK],
    ['a domain file imports its DynamoDB adapter', 'shared/observations/search/planted.ts', "import { readings } from '../store/dynamo-reads';\nexport const r = readings;\n", ADAPTER],
    ['a domain file imports its in-memory twin', 'shared/observations/planted.ts', "import { memoryObservationStore } from './store/memory';\nexport const m = memoryObservationStore;\n", ADAPTER],
    ['a domain file imports an S3 adapter', 'shared/auxiliary/search/planted.ts', "import * as bodies from '../store/s3-bodies';\nexport const b = bodies;\n", ADAPTER],
    ['a domain file imports another domain\'s adapter', 'shared/export/planted.ts', "import { dynamoAuxiliaryStore } from '../auxiliary/store/dynamo';\nexport const a = dynamoAuxiliaryStore;\n", ADAPTER],
    ['an adapter builds on another domain\'s adapter', 'shared/oauth/store/planted.ts', "import { dynamoDirectoryStore } from '../../directory/store/dynamo';\nexport const d = dynamoDirectoryStore;\n", OTHER_STORE],
    ['a twin builds on another domain\'s twin', 'shared/auxiliary/store/planted.ts', "import { memoryDirectoryStore } from '../../directory/store/memory';\nexport const d = memoryDirectoryStore;\n", OTHER_STORE],
  ])('refuses: %s', async (_case, filePath, code, message) => {
    const found = await refusals(filePath, code);
    expect(found.some((m) => message.test(m)), found.join('\n') || 'nothing refused').toBe(true);
  });

  it.each([
    ['a store adapter imports the SDK', 'shared/observations/store/planted.ts', "import { QueryCommand } from '@aws-sdk/lib-dynamodb';\nexport const q = QueryCommand;\n"],
    ['the platform store imports the SDK', 'shared/store/planted.ts', "import { DynamoDBClient } from '@aws-sdk/client-dynamodb';\nexport const c = DynamoDBClient;\n"],
    ['the local runtime imports the SDK', 'local/planted.ts', "import { DynamoDBClient } from '@aws-sdk/client-dynamodb';\nexport const c = DynamoDBClient;\n"],
    ['a domain file imports its port and current adapter', 'shared/observations/search/planted.ts', "import type { ReadingsQuery } from '../store/port';\nimport { observationStore } from '../store/current';\nexport const s = observationStore;\nexport type Q = ReadingsQuery;\n"],
    ['an adapter imports a sibling adapter', 'shared/observations/store/planted.ts', "import { readings } from './dynamo-reads';\nexport const r = readings;\n"],
    ['an adapter builds on the platform\'s directory table', 'shared/oauth/store/planted.ts', "import { getItem } from '../../store/directory-table';\nexport const g = getItem;\n"],
    ['the wiring imports every adapter', 'shared/planted.ts', "import { dynamoObservationStore } from './observations/store/dynamo';\nexport const o = dynamoObservationStore;\n"],
  ])('allows: %s', async (_case, filePath, code) => {
    const found = await refusals(filePath, code);
    expect(found.filter((m) => SDK.test(m) || ADAPTER.test(m) || OTHER_STORE.test(m))).toEqual([]);
  });
});
