/**
 * `npm run clients -- list|revoke <client_id>` (scripts/clients.ts lists the commands): on the
 * tables of the running `npm start` for DATA_DIR (else on its own engines over that data folder), or,
 * with `DIRECTORY_TABLE` set, on that table with whatever credentials the AWS SDK finds (a deployed
 * stack's `<namePrefix>directory`: docs/operations.md#assistants-registered-clients).
 */
import { runClientsCommand, UsageError } from '../scripts/clients';
import { DEFAULT_DATA_DIR } from './commands';
import { applyLocalEnvironment, readRuntimeInfo, startRuntime, type Runtime } from './runtime';

process.env.LOG_TO_STDERR = '1';

async function main(): Promise<number> {
  let runtime: Runtime | undefined;
  if (!process.env.DIRECTORY_TABLE) {
    const dataDir = process.env.DATA_DIR ?? DEFAULT_DATA_DIR;
    const running = readRuntimeInfo(dataDir);
    if (running) {
      process.env.RESOURCE_PREFIX = running.resourcePrefix;
      applyLocalEnvironment({ dynamodbEndpoint: running.dynamodbEndpoint, s3Endpoint: running.s3Endpoint, dataDir: running.dataDir, localCredentials: true });
    } else {
      runtime = await startRuntime({ dataDir, gateway: false, seed: false });
    }
  }
  try {
    for (const line of await runClientsCommand(process.argv.slice(2))) console.log(line);
    return 0;
  } catch (e) {
    if (e instanceof UsageError) {
      console.error(e.message);
      return 2;
    }
    throw e;
  } finally {
    await runtime?.stop();
  }
}

main()
  .then((code) => process.exit(code))
  .catch((e) => {
    console.error(e instanceof Error ? e.message : String(e));
    process.exit(1);
  });
