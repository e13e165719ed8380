/**
 * `npm run invoke -- <family> <event.json>`: runs one family's handler with an API Gateway v2
 * event file, the way `sam local invoke` would, against the local stores (those of a running
 * `npm start` when there is one, else its own engines on the same data folder), and prints the
 * result.
 */
import { readFileSync } from 'node:fs';
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { FAMILIES, type Family } from '../shared/http/families';

import { invokeLambda } from './lambda-invoke';
import { loadHandlers } from './handlers';
import { DEFAULT_DATA_DIR } from './commands';
import { applyLocalEnvironment, readRuntimeInfo, startRuntime, type Runtime } from './runtime';

function usage(): never {
  console.error(`usage: npm run invoke -- <${FAMILIES.join('|')}> <event.json>`);
  process.exit(2);
}

export async function invoke(family: Family, event: APIGatewayProxyEventV2, dataDir: string) {
  let runtime: Runtime | undefined;
  const running = readRuntimeInfo(dataDir);
  if (running) {
    process.env.RESOURCE_PREFIX = running.resourcePrefix;
    applyLocalEnvironment({
      dynamodbEndpoint: running.dynamodbEndpoint,
      s3Endpoint: running.s3Endpoint,
      dataDir: running.dataDir,
      localCredentials: true,
      ...(running.url ? { siteUrl: running.url } : {}),
    });
  } else {
    runtime = await startRuntime({ dataDir, gateway: false });
  }
  try {
    const handlers = await loadHandlers();
    return await invokeLambda(handlers[family], event, family);
  } finally {
    await runtime?.stop();
  }
}

async function main() {
  process.env.LOG_TO_STDERR = '1';
  const [family, file] = process.argv.slice(2);
  if (!family || !file || !(FAMILIES as readonly string[]).includes(family)) usage();
  const event = JSON.parse(readFileSync(file, 'utf8')) as APIGatewayProxyEventV2;
  const result = await invoke(family as Family, event, process.env.DATA_DIR ?? DEFAULT_DATA_DIR);
  if (typeof result === 'object' && result && typeof result.body === 'string') {
    try {
      result.body = JSON.parse(result.body);
    } catch {
      // Not JSON: print the text as it is.
    }
  }
  console.log(JSON.stringify(result, null, 2));
  process.exit(0);
}

if (process.argv[1]?.endsWith('invoke.ts')) {
  main().catch((e) => {
    console.error(e instanceof Error ? e.message : e);
    process.exit(1);
  });
}
