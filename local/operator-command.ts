/**
 * How an operator's command (`npm run brands`, `npm run clients`) finds its tables and runs: on the
 * tables of the running `npm start` for DATA_DIR (else on its own engines over that data folder),
 * or, with its table setting set (`BRANDS_TABLE`, `DIRECTORY_TABLE`), on that table with whatever
 * credentials the AWS SDK finds (a deployed stack's). It prints the command's lines; a refusal
 * prints its message and exits with its code.
 */
import { DEFAULT_DATA_DIR } from './commands';
import { applyLocalEnvironment, readRuntimeInfo, startRuntime, type Runtime } from './runtime';

export interface OperatorCommand {
  /** The environment variable naming a deployed table to work on instead. */
  tableSetting: string;
  run: (argv: readonly string[]) => Promise<string[]>;
  /** The exit code of a refusal the command throws (a usage error, a refused file), else undefined. */
  refusalCode: (error: unknown) => number | undefined;
}

async function main({ tableSetting, run, refusalCode }: OperatorCommand): Promise<number> {
  process.env.LOG_TO_STDERR = '1';
  let runtime: Runtime | undefined;
  if (!process.env[tableSetting]) {
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
    for (const line of await run(process.argv.slice(2))) console.log(line);
    return 0;
  } catch (e) {
    const code = refusalCode(e);
    if (code === undefined) throw e;
    console.error((e as Error).message);
    return code;
  } finally {
    await runtime?.stop();
  }
}

export function runOperatorCommand(command: OperatorCommand): void {
  main(command)
    .then((code) => process.exit(code))
    .catch((e) => {
      console.error(e instanceof Error ? e.message : String(e));
      process.exit(1);
    });
}
