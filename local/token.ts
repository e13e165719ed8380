/**
 * `npm run --silent token -- <who> [--mcp]`: prints an access token for a demo account of the
 * running `npm start` (same DATA_DIR, and PORT when given), and nothing else on stdout. `<who>` is
 * an account's email, or `practitioner` / `patient` for the demo accounts; `--mcp` issues it for
 * `/mcp` (RFC 8707: `/mcp` takes no other token, and the APIs take none of those).
 */
import { issueAccessToken } from '../shared/auth/tokens';
import { getUserByEmail } from '../shared/directory/users';
import { DEMO_ACCOUNTS } from './demo-directory';
import { DEFAULT_DATA_DIR } from './commands';
import { applyLocalEnvironment, readRuntimeInfo } from './runtime';

// Logs (created lazily) go to stderr: stdout carries the token only.
process.env.LOG_TO_STDERR = '1';

function fail(message: string): never {
  console.error(message);
  process.exit(1);
}

async function main() {
  const args = process.argv.slice(2);
  const forMcp = args.includes('--mcp');
  const who = args.find((a) => a !== '--mcp');
  if (!who) fail(`usage: npm run --silent token -- <email | ${[...DEMO_ACCOUNTS.keys()].join(' | ')}> [--mcp]`);
  const dataDir = process.env.DATA_DIR ?? DEFAULT_DATA_DIR;
  const running = readRuntimeInfo(dataDir);
  if (!running) {
    fail(
      `No running service found for DATA_DIR=${dataDir}; start it with \`npm start\` first, or, if it runs with another data folder, ` +
        `give the same one: DATA_DIR=<that folder> npm run --silent token -- ${who} (the start banner prints the exact command).`,
    );
  }
  if (process.env.PORT && Number(process.env.PORT) !== running.port) {
    fail(`The service using DATA_DIR=${dataDir} listens on port ${running.port}, not ${process.env.PORT}.`);
  }
  process.env.RESOURCE_PREFIX = running.resourcePrefix;
  // Tokens must carry the issuer the service checks.
  if (running.siteUrl ?? running.url) process.env.SITE_URL = running.siteUrl ?? running.url;
  applyLocalEnvironment({
    dynamodbEndpoint: running.dynamodbEndpoint,
    s3Endpoint: running.s3Endpoint,
    dataDir: running.dataDir,
    localCredentials: true,
  });
  const email = DEMO_ACCOUNTS.get(who) ?? who;
  const user = await getUserByEmail(email);
  if (!user) fail(`No account with email ${email}.`);
  if (!user.active) fail(`The account ${email} is deactivated.`);
  const { accessToken } = await issueAccessToken({ userId: user.id, kind: user.kind, scope: 'openid email', ...(forMcp ? { resource: 'mcp' as const } : {}), ...(user.patientId !== undefined ? { patientId: user.patientId } : {}) });
  process.stdout.write(`${accessToken}\n`);
}

main()
  .then(() => process.exit(0))
  .catch((e) => fail(e instanceof Error ? e.message : String(e)));
