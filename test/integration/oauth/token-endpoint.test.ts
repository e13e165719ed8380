/**
 * `/o/token/` against every attack of the brief: each gets a clear 4xx and changes nothing, except
 * the two replays (a used code, a rotated-out refresh token) that revoke what they led to.
 */
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { getOAuthClient } from '../../../shared/directory/oauth-clients';
import { updateUser } from '../../../shared/directory/users';
import type { OAuthClient } from '../../../shared/directory/model';
import { issueAuthorizationCode } from '../../../shared/oauth/authorization-codes';
import { nowMs, resetClock, useClock } from '../../../shared/oauth/clock';
import { ensureServiceClients, PORTAL_CLIENT_ID, WEB_CLIENT_ID } from '../../../shared/oauth/service-clients';
import { makeOrganization, makePractitioner } from '../../support/directory';
import { call } from '../../support/invoke';
import { pkcePair, postForm } from '../../support/oauth';

const CALLBACK = 'http://localhost:8000/auth/callback';
let web: OAuthClient;

beforeAll(async () => {
  await ensureServiceClients();
  web = (await getOAuthClient(WEB_CLIENT_ID))!;
});
afterEach(() => resetClock());

/** A code for a new practitioner at the web client, as the sign-in page would issue it. */
async function codeFor(options: { scope?: string; clientId?: string } = {}) {
  const org = await makeOrganization();
  const doctor = await makePractitioner({ organizations: [org] });
  const pkce = pkcePair();
  const { code } = await issueAuthorizationCode({
    clientId: options.clientId ?? web.clientId,
    redirectUri: CALLBACK,
    userId: doctor.id,
    kind: 'practitioner',
    scope: options.scope ?? 'openid email',
    codeChallenge: pkce.challenge,
    nonce: 'n-0S6_WzA2Mj',
  });
  const exchange = (overrides: Record<string, string | undefined> = {}) => {
    const params: Record<string, string> = {};
    for (const [k, v] of Object.entries({ grant_type: 'authorization_code', code, redirect_uri: CALLBACK, client_id: options.clientId ?? web.clientId, code_verifier: pkce.verifier, ...overrides })) {
      if (v !== undefined) params[k] = v;
    }
    return postForm('/o/token/', params);
  };
  return { doctor, code, pkce, exchange };
}

const userinfo = (token: string) => call('GET', '/o/userinfo/', { token });

describe('authorization_code', () => {
  it('answers a token response with an id_token, and the token works', async () => {
    const { doctor, exchange } = await codeFor({ scope: 'openid email profile fhirUser' });
    const res = await exchange();
    expect(res.status).toBe(200);
    expect(res.headers['cache-control']).toBe('no-store');
    expect(res.headers['pragma']).toBe('no-cache');
    expect(res.json).toMatchObject({ token_type: 'Bearer', expires_in: 900, scope: 'openid email profile fhirUser' });
    expect(res.json.patient).toBeUndefined();
    const idToken = JSON.parse(Buffer.from(res.json.id_token.split('.')[1], 'base64url').toString());
    expect(idToken).toMatchObject({ iss: 'http://localhost:8000', sub: String(doctor.id), aud: WEB_CLIENT_ID, nonce: 'n-0S6_WzA2Mj', email: doctor.email, fhirUser: `http://localhost:8000/FHIR/R5/Practitioner/${doctor.id}` });
    expect((await userinfo(res.json.access_token)).json.sub).toBe(String(doctor.id));
  });

  it('refuses a wrong verifier with invalid_grant and changes nothing', async () => {
    const { exchange } = await codeFor();
    const wrong = await exchange({ code_verifier: pkcePair().verifier });
    expect(wrong.status).toBe(400);
    expect(wrong.json).toMatchObject({ error: 'invalid_grant' });
    expect(wrong.json.error_description).toMatch(/code_verifier/);
    expect((await exchange()).status).toBe(200);
  });

  it('refuses a missing verifier and a plain-method verifier (the challenge itself)', async () => {
    const { exchange, pkce } = await codeFor();
    const missing = await exchange({ code_verifier: undefined });
    expect(missing.status).toBe(400);
    expect(missing.json.error).toBe('invalid_request');
    const plain = await exchange({ code_verifier: pkce.challenge });
    expect(plain.json.error).toBe('invalid_grant');
    expect((await exchange()).status).toBe(200);
  });

  it('refuses a redirect URI that differs by one byte, and changes nothing', async () => {
    const { exchange } = await codeFor();
    for (const uri of [`${CALLBACK}/`, CALLBACK.replace('callback', 'callbacK'), `${CALLBACK}?`, CALLBACK.replace('http:', 'https:'), 'http://localhost:8000/auth/callbac']) {
      const res = await exchange({ redirect_uri: uri });
      expect(res.status).toBe(400);
      expect(res.json.error).toBe('invalid_grant');
    }
    expect((await exchange({ redirect_uri: undefined })).json.error).toBe('invalid_request');
    expect((await exchange()).status).toBe(200);
  });

  it('refuses an expired code (60 s) and changes nothing', async () => {
    const { exchange } = await codeFor();
    const issued = nowMs();
    useClock(() => issued + 61_000);
    const late = await exchange();
    expect(late.status).toBe(400);
    expect(late.json).toMatchObject({ error: 'invalid_grant', error_description: 'The authorization code has expired.' });
    useClock(() => issued + 30_000);
    expect((await exchange()).status).toBe(200);
  });

  it('refuses a reused code and revokes the tokens issued from it (RFC 6749 §4.1.2)', async () => {
    const { exchange } = await codeFor();
    const first = await exchange();
    expect(first.status).toBe(200);
    expect((await userinfo(first.json.access_token)).status).toBe(200);
    const again = await exchange();
    expect(again.status).toBe(400);
    expect(again.json.error).toBe('invalid_grant');
    expect((await userinfo(first.json.access_token)).status).toBe(401);
    const refresh = await postForm('/o/token/', { grant_type: 'refresh_token', refresh_token: first.json.refresh_token, client_id: WEB_CLIENT_ID });
    expect(refresh.json.error).toBe('invalid_grant');
  });

  it('lets exactly one of two simultaneous exchanges win, and revokes the winner', async () => {
    const { exchange } = await codeFor();
    const results = await Promise.all([exchange(), exchange()]);
    expect(results.map((r) => r.status).sort()).toEqual([200, 400]);
    const winner = results.find((r) => r.status === 200)!;
    expect((await userinfo(winner.json.access_token)).status).toBe(401);
  });

  it("refuses another client's code", async () => {
    const { exchange } = await codeFor();
    expect((await exchange({ client_id: PORTAL_CLIENT_ID })).json.error).toBe('invalid_grant');
    expect((await exchange()).status).toBe(200);
  });

  it('refuses a code whose account was deactivated since', async () => {
    const { exchange, doctor } = await codeFor();
    await updateUser(doctor.id, { active: false });
    expect((await exchange()).json.error).toBe('invalid_grant');
  });

  it('refuses unknown and malformed codes', async () => {
    const { exchange } = await codeFor();
    for (const code of ['x'.repeat(43), "' OR '1'='1", '../../etc/passwd', 'é'.repeat(10)]) {
      const res = await exchange({ code });
      expect(res.status).toBe(400);
      expect(res.json.error).toBe('invalid_grant');
    }
  });
});

describe('refresh_token', () => {
  async function signedIn() {
    const { exchange } = await codeFor({ scope: 'openid email profile' });
    return (await exchange()).json as { access_token: string; refresh_token: string };
  }
  const refresh = (token: string, extra: Record<string, string> = {}) =>
    postForm('/o/token/', { grant_type: 'refresh_token', refresh_token: token, client_id: WEB_CLIENT_ID, ...extra });

  it('rotates: each refresh token works once, a replay revokes the whole grant', async () => {
    const first = await signedIn();
    const second = (await refresh(first.refresh_token)).json;
    const third = (await refresh(second.refresh_token)).json;
    expect(third.refresh_token).toMatch(/^[A-Za-z0-9]{48}$/);
    expect((await userinfo(third.access_token)).status).toBe(200);

    const replay = await refresh(first.refresh_token);
    expect(replay.status).toBe(400);
    expect(replay.json.error).toBe('invalid_grant');
    // The live token of the family and every access token of it are gone too.
    expect((await refresh(third.refresh_token)).json.error).toBe('invalid_grant');
    for (const t of [first, second, third]) expect((await userinfo(t.access_token)).status).toBe(401);
  });

  it('may narrow the scope but not widen it', async () => {
    const first = await signedIn();
    const wider = await refresh(first.refresh_token, { scope: 'openid email user/*.cruds' });
    expect(wider.json.error).toBe('invalid_scope');
    const narrower = await refresh(first.refresh_token, { scope: 'openid' });
    expect(narrower.status).toBe(200);
    expect(narrower.json.scope).toBe('openid');
  });

  it("refuses another client's refresh token without revoking it", async () => {
    const first = await signedIn();
    expect((await refresh(first.refresh_token, { client_id: PORTAL_CLIENT_ID })).json.error).toBe('invalid_grant');
    expect((await refresh(first.refresh_token)).status).toBe(200);
  });

  it('expires 30 days after it was issued', async () => {
    const first = await signedIn();
    const issued = nowMs();
    useClock(() => issued + 31 * 24 * 3600 * 1000);
    expect((await refresh(first.refresh_token)).json.error).toBe('invalid_grant');
  });

  it('stops when the password changes (tokens issued before are refused)', async () => {
    const { exchange, doctor } = await codeFor();
    // A first password ends no session (docs/access.md#invited-patients-set-a-password): this one is a change.
    await updateUser(doctor.id, { passwordHash: 'scrypt$first' });
    // The grant starts a few seconds before the change (tokensNotBefore has one-second resolution).
    const start = nowMs() - 5000;
    useClock(() => start);
    const tokens = (await exchange()).json;
    resetClock();
    await updateUser(doctor.id, { passwordHash: 'scrypt$changed' });
    expect((await refresh(tokens.refresh_token)).json.error).toBe('invalid_grant');
  });
});

describe('malformed requests', () => {
  it('answers RFC 6749 errors for bad grant types, bodies and parameters', async () => {
    const cases: Array<[string | undefined, Record<string, string>, number, string]> = [
      [undefined, { grant_type: 'password', username: 'a', password: 'b', client_id: WEB_CLIENT_ID }, 400, 'unsupported_grant_type'],
      [undefined, { client_id: WEB_CLIENT_ID }, 400, 'invalid_request'],
      [undefined, { grant_type: 'refresh_token', refresh_token: 'x', client_id: 'no-such-client' }, 401, 'invalid_client'],
      [undefined, { grant_type: 'refresh_token', refresh_token: 'x', client_id: WEB_CLIENT_ID, client_secret: 'guess' }, 401, 'invalid_client'],
      [undefined, { grant_type: 'client_credentials', client_id: WEB_CLIENT_ID }, 400, 'unauthorized_client'],
      [undefined, { grant_type: 'refresh_token', refresh_token: 'x'.repeat(5000), client_id: WEB_CLIENT_ID }, 400, 'invalid_request'],
      [undefined, { grant_type: 'refresh_token', refresh_token: 'a\u0000b', client_id: WEB_CLIENT_ID }, 400, 'invalid_request'],
    ];
    for (const [, params, status, error] of cases) {
      const res = await postForm('/o/token/', params);
      expect([res.status, res.json.error]).toEqual([status, error]);
      expect(res.headers['cache-control']).toBe('no-store');
    }
    const twice = await call('POST', '/o/token/', { headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: `grant_type=refresh_token&grant_type=authorization_code&client_id=${WEB_CLIENT_ID}` });
    expect([twice.status, twice.json.error]).toEqual([400, 'invalid_request']);
    const asJson = await call('POST', '/o/token/', { headers: { 'content-type': 'application/json' }, body: { grant_type: 'refresh_token', client_id: WEB_CLIENT_ID } });
    expect([asJson.status, asJson.json.error]).toEqual([400, 'invalid_request']);
    expect((await call('GET', '/o/token/')).status).toBe(405);
  });
});
