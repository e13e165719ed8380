/**
 * The token endpoint's grants, in process (no HTTP), against the raw store operations each one
 * performs, measured interleaved in the same run (this machine is noisy) and reported as ratios:
 * - authorization_code exchange: GetItem client + GetItem code + GetItem user + one
 *   TransactWriteItems of 3 actions (code used, grant, refresh pointer) + ES256 access token
 *   (+ id_token with `openid`);
 * - refresh_token rotation: GetItem client, pointer, grant and user + TransactWriteItems of 2;
 * - client_credentials: GetItem client + GetItem user + access token;
 * - invitation redemption: GetItem invitation + GetItem client + GetItem patient + TransactWriteItems of 2.
 * DynamoDB Local in memory; local ES256 key file.
 */
import { GetCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startRuntime } from '../local/runtime';
import { hashPassword } from '../shared/auth/passwords';
import { config } from '../shared/config';
import { getOAuthClient } from '../shared/directory/oauth-clients';
import { createOrganization } from '../shared/directory/organizations';
import { createPatient } from '../shared/directory/patients';
import { createPractitioner } from '../shared/directory/users';
import { keys } from '../shared/store/directory-keys';
import { createApiKey } from '../shared/oauth/api-keys';
import { issueAuthorizationCode } from '../shared/oauth/authorization-codes';
import { issueInvitation, redeemInvitation } from '../shared/oauth/invitations';
import { s256Challenge } from '../shared/oauth/pkce';
import { ensureServiceClients, PORTAL_CLIENT_ID, WEB_CLIENT_ID } from '../shared/oauth/service-clients';
import { handleTokenRequest } from '../shared/oauth/token-endpoint';
import { dynamo } from '../shared/store/clients';
import { median, percentile, printTable } from './table';

const RUNS = Number(process.env.BENCH_OAUTH_RUNS ?? 300);
const CALLBACK = 'http://localhost:8000/auth/callback';

async function time(op: () => Promise<unknown>): Promise<number> {
  const t0 = performance.now();
  await op();
  return performance.now() - t0;
}

const ms = (x: number) => x.toFixed(2);

export async function oauth(): Promise<void> {
  process.env.LOG_LEVEL = 'silent';
  const dataDir = mkdtempSync(join(tmpdir(), 'cdx-bench-oauth-'));
  const runtime = await startRuntime({ dataDir, gateway: false, seed: false, inMemory: true });
  try {
    await ensureServiceClients();
    const table = config().directoryTable;
    const org = await createOrganization({ name: 'Bench', type: 'prov' });
    const doctor = await createPractitioner({ email: 'bench@example.test', passwordHash: await hashPassword('x'), organizations: [{ organizationId: org.id, role: 'member' }] });
    const patient = await createPatient({ nameFamily: 'Bench', nameGiven: 'Pat', organizationIds: [org.id], account: { email: 'pat@example.test' } });
    const portal = (await getOAuthClient(PORTAL_CLIENT_ID))!;
    const key = await createApiKey(doctor.id, 'bench');
    const verifier = 'v'.repeat(43);
    const challenge = s256Challenge(verifier);
    const noHeaders = {};

    const get = (key: { pk: string; sk: string }) => dynamo().send(new GetCommand({ TableName: table, Key: key, ConsistentRead: true }));
    let n = 0;
    const rawTransact = (actions: number) =>
      dynamo().send(
        new TransactWriteCommand({
          TransactItems: Array.from({ length: actions }, () => ({ Put: { TableName: table, Item: { pk: `BENCH#${(n += 1)}`, sk: 'BENCH', at: Date.now() } } })),
        }),
      );

    const rows: Array<Record<string, string | number>> = [];
    const measure = async (name: string, prepare: () => Promise<() => Promise<unknown>>, raw: () => Promise<unknown>) => {
      const ours: number[] = [];
      const base: number[] = [];
      for (let i = 0; i < RUNS + 30; i += 1) {
        const op = await prepare();
        const a = await time(op);
        const b = await time(raw);
        if (i >= 30) {
          ours.push(a);
          base.push(b);
        }
      }
      rows.push({ operation: name, runs: RUNS, 'p50 ms': ms(median(ours)), 'p90 ms': ms(percentile(ours, 90)), 'raw store ops p50 ms': ms(median(base)), 'ratio (p50)': (median(ours) / median(base)).toFixed(2) });
    };

    const newCode = (scope: string) =>
      issueAuthorizationCode({ clientId: WEB_CLIENT_ID, redirectUri: CALLBACK, userId: doctor.id, kind: 'practitioner', scope, codeChallenge: challenge });
    const exchange = (code: string) => handleTokenRequest(noHeaders, { grant_type: 'authorization_code', code, redirect_uri: CALLBACK, client_id: WEB_CLIENT_ID, code_verifier: verifier });
    const rawExchange = async () => {
      await get(keys.oauthClient(WEB_CLIENT_ID));
      await get(keys.authorizationCode('x'));
      await get(keys.user(doctor.id));
      await rawTransact(3);
    };

    await measure('authorization_code (scope email: access token only)', async () => {
      const { code } = await newCode('email');
      return () => exchange(code);
    }, rawExchange);
    await measure('authorization_code (scope openid: + id_token)', async () => {
      const { code } = await newCode('openid email');
      return () => exchange(code);
    }, rawExchange);

    let refreshToken = (await exchange((await newCode('email')).code)).refresh_token!;
    await measure('refresh_token rotation', async () => async () => {
      refreshToken = (await handleTokenRequest(noHeaders, { grant_type: 'refresh_token', refresh_token: refreshToken, client_id: WEB_CLIENT_ID })).refresh_token!;
    }, async () => {
      await get(keys.oauthClient(WEB_CLIENT_ID));
      await get(keys.refreshToken('x'));
      await get(keys.grant('x'));
      await get(keys.user(doctor.id));
      await rawTransact(2);
    });

    await measure('client_credentials', async () => () => handleTokenRequest({ authorization: `Basic ${key.key}` }, { grant_type: 'client_credentials' }), async () => {
      await get(keys.oauthClient(key.clientId));
      await get(keys.user(doctor.id));
    });

    await measure('invitation redemption', async () => {
      const { token } = await issueInvitation({ patient, client: portal, sendEmail: false });
      return () => redeemInvitation(token);
    }, async () => {
      await get(keys.invitation('x'));
      await get(keys.oauthClient(PORTAL_CLIENT_ID));
      await get(keys.patient(patient.id));
      await rawTransact(2);
    });

    printTable(`OAuth grants in process (Node ${process.version}; DynamoDB Local in memory; ours vs its raw store operations, interleaved)`, rows);
  } finally {
    await runtime.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}
