/**
 * Fuzzing the OAuth token and revocation endpoints with forms of any shape: every grant type (and
 * made-up ones), every parameter with hostile text, duplicated and unknown parameters, Basic
 * credentials of any text, other content types, bodies that are no form at all, and mutations of
 * forms that would succeed (a live code with its verifier, a live refresh token, an API key's
 * credentials, a backend client's fresh assertion). Every answer is a token response or an RFC 6749 error (`{error,
 * error_description}`), never a 5xx; and an answer that refused changes no directory row but the
 * failed-attempt counters (which count by design). The registration endpoint (RFC 7591) gets JSON of
 * any shape, mutations of a registration it accepts and bodies that are no JSON: a 201 with a
 * client_id or an RFC 7591 error, never a 5xx, and a refusal stores nothing. The invitation's
 * password page gets forms of any shape and mutations of one that would set a password, with and
 * without its cookie: a page, never a 5xx, and a refusal changes nothing but the attempt counters.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { issueAuthorizationCode } from '../../shared/oauth/authorization-codes';
import { ensureServiceClients, PORTAL_CLIENT_ID, WEB_CLIENT_ID } from '../../shared/oauth/service-clients';
import { makeOrganization, makePractitioner, type WithToken } from '../support/directory';
import { CaseCount, expectWellFormed, fuzz, fuzzTimeout } from '../support/fuzz';
import { bodyText, hostileKey, hostileText, jsonObject, mutationsOf } from '../support/fuzz-inputs';
import { resetConfig } from '../../shared/config';
import { call, type TestResponse } from '../support/invoke';
import { backendKey, basic, FORM, invitationWorld, invite, pkcePair, registerBackendClient, serviceClients, signAssertion, type BackendKey } from '../support/oauth';
import { cookieOf, hiddenFields } from '../support/oauth-flow';
import { CLIENT_ASSERTION_TYPE } from '../../shared/oauth/client-assertion';
import { directoryRows } from '../support/store';
import type { Practitioner } from '../../shared/directory/model';

const CALLBACK = 'http://localhost:8000/auth/callback';
let doctor: Practitioner & WithToken;
let apiKey: { clientId: string; clientSecret: string };
let refreshToken: string;
let backend: { clientId: string; key: BackendKey };
const cases = new CaseCount('/o/ forms');

/** A fresh code for the doctor at the web client, with its verifier. */
async function liveCode(): Promise<{ code: string; verifier: string }> {
  const pkce = pkcePair();
  const { code } = await issueAuthorizationCode({ clientId: WEB_CLIENT_ID, redirectUri: CALLBACK, userId: doctor.id, kind: 'practitioner', scope: 'openid email', codeChallenge: pkce.challenge });
  return { code, verifier: pkce.verifier };
}

beforeAll(async () => {
  await ensureServiceClients();
  doctor = await makePractitioner({ organizations: [await makeOrganization()] });
  const key = await call('POST', '/api/v1/practitioner_clients', { token: doctor.token, body: { name: 'fuzz' }, headers: { 'content-type': 'application/json' } });
  apiKey = key.json;
  const { code, verifier } = await liveCode();
  const exchanged = await call('POST', '/o/token/', {
    headers: FORM,
    body: new URLSearchParams({ grant_type: 'authorization_code', code, redirect_uri: CALLBACK, client_id: WEB_CLIENT_ID, code_verifier: verifier }).toString(),
  });
  refreshToken = exchanged.json.refresh_token;
  const signer = await backendKey('ES384');
  backend = { key: signer, clientId: (await registerBackendClient(doctor.token, { jwks: { keys: [signer.jwk] } })).clientId };
});
afterAll(() => {
  delete process.env.REGISTRATIONS_PER_ADDRESS_PER_HOUR;
  resetConfig();
  console.log(cases.line());
});

const QUICK = 50;
vi.setConfig({ testTimeout: fuzzTimeout(QUICK * 2) });

const PARAMETERS = ['grant_type', 'code', 'redirect_uri', 'client_id', 'client_secret', 'code_verifier', 'refresh_token', 'scope', 'token', 'token_type_hint', 'client_assertion', 'client_assertion_type'];
const GRANTS = ['authorization_code', 'refresh_token', 'client_credentials', 'password', 'implicit', 'urn:ietf:params:oauth:grant-type:jwt-bearer', ''];

/** A form as pairs (a parameter may repeat), from a template and the case's changes. */
type Pairs = Array<[string, string]>;

const value = fc.oneof(hostileText, fc.constantFrom(...GRANTS, WEB_CLIENT_ID, PORTAL_CLIENT_ID, CALLBACK, 'openid', 'S256', CLIENT_ASSERTION_TYPE, 'system/*.rs'));
const anyPairs: fc.Arbitrary<Pairs> = fc.array(fc.tuple(fc.oneof(fc.constantFrom(...PARAMETERS), hostileKey), value), { maxLength: 8 });

/** A form that would succeed, then changed: a parameter dropped, replaced, repeated, or one added. */
function changed(template: () => Promise<Pairs>): fc.Arbitrary<() => Promise<Pairs>> {
  const change = fc.record({ kind: fc.constantFrom('drop', 'replace', 'repeat', 'add'), at: fc.nat(), key: fc.oneof(fc.constantFrom(...PARAMETERS), hostileKey), value });
  return fc.array(change, { minLength: 1, maxLength: 3 }).map((changes) => async () => {
    const pairs = await template();
    for (const c of changes) {
      const i = c.at % Math.max(1, pairs.length);
      if (c.kind === 'drop') pairs.splice(i, 1);
      else if (c.kind === 'replace' && pairs[i]) pairs[i] = [pairs[i]![0], c.value];
      else if (c.kind === 'repeat' && pairs[i]) pairs.push([pairs[i]![0], c.value]);
      else pairs.push([c.key, c.value]);
    }
    return pairs;
  });
}

const LIVE_FORMS: Array<() => Promise<Pairs>> = [
  async () => {
    const { code, verifier } = await liveCode();
    return [['grant_type', 'authorization_code'], ['code', code], ['redirect_uri', CALLBACK], ['client_id', WEB_CLIENT_ID], ['code_verifier', verifier]];
  },
  async () => [['grant_type', 'refresh_token'], ['client_id', WEB_CLIENT_ID], ['refresh_token', refreshToken]],
  async () => [['grant_type', 'client_credentials'], ['client_id', apiKey.clientId], ['client_secret', apiKey.clientSecret]],
  async () => [
    ['grant_type', 'client_credentials'],
    ['scope', 'system/*.rs'],
    ['client_assertion_type', CLIENT_ASSERTION_TYPE],
    ['client_assertion', await signAssertion(backend.key, backend.clientId)],
  ],
];

const headersOf = fc.record({
  contentType: fc.constantFrom('application/x-www-form-urlencoded', 'application/x-www-form-urlencoded; charset=utf-8', 'application/json', 'text/plain', 'multipart/form-data; boundary=x', ''),
  authorization: fc.option(
    fc.oneof(
      fc.constant(basic(WEB_CLIENT_ID, '').authorization!),
      fc.tuple(hostileText, hostileText).map(([id, secret]) => basic(id, secret).authorization!),
      hostileText.map((t) => `Basic ${t}`),
      hostileText.map((t) => `Bearer ${t}`),
    ),
    { nil: undefined },
  ),
});

/** Sends one case to a form endpoint and checks the answer; a refusal must change nothing but the counters. */
async function posted(endpoint: string, path: string, body: string, headers: { contentType: string; authorization: string | undefined }): Promise<TestResponse> {
  cases.tried(endpoint);
  const before = await directoryRows({ withoutSignIns: true });
  const res = await call('POST', path, {
    body,
    headers: { ...(headers.contentType ? { 'content-type': headers.contentType } : {}), ...(headers.authorization ? { authorization: headers.authorization } : {}) },
  });
  const what = `POST ${path} ${headers.contentType} ${headers.authorization ?? ''} ${body.slice(0, 200)}`;
  expectWellFormed(res, 'oauth', what);
  if (res.status === 200 && path === '/o/token/') expect(typeof res.json.access_token, what).toBe('string');
  if (res.status >= 400) expect(await directoryRows({ withoutSignIns: true }), what).toEqual(before);
  return res;
}

const formText = (pairs: Pairs) => pairs.map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(v)}`).join('&');

describe('/o/token/', () => {
  it('answers any form, any credentials and any body well', async () => {
    const body = fc.oneof({ weight: 3, arbitrary: anyPairs.map(formText) }, { weight: 1, arbitrary: bodyText });
    await fuzz(QUICK, fc.tuple(body, headersOf), async ([text, headers]) => {
      await posted('token: any form', '/o/token/', text, headers);
    });
  });

  it('answers changed forms of every grant well', async () => {
    const form = fc.nat().chain((n) => changed(LIVE_FORMS[n % LIVE_FORMS.length]!));
    await fuzz(QUICK * 2, form, async (make) => {
      const res = await posted('token: changed live form', '/o/token/', formText(await make()), { contentType: 'application/x-www-form-urlencoded', authorization: undefined });
      // A rotation retires the token sent: the next case starts from the live one (a replay of a
      // retired token revokes its grant, by design, which is not a refusal that changes nothing).
      if (res.status === 200 && typeof res.json.refresh_token === 'string') refreshToken = res.json.refresh_token;
    });
  });
});

describe('/o/revoke_token/', () => {
  it('answers any form well', async () => {
    const template = async (): Promise<Pairs> => [['token', refreshToken], ['client_id', WEB_CLIENT_ID], ['token_type_hint', 'refresh_token']];
    const body = fc.oneof(anyPairs.map(formText), changed(template));
    await fuzz(QUICK, fc.tuple(body, headersOf), async ([text, headers]) => {
      await posted('revoke', '/o/revoke_token/', typeof text === 'string' ? text : formText(await text()), headers);
    });
  });
});

describe('/o/register/', () => {
  const REGISTRATION = () => ({
    client_name: 'Fuzzed assistant',
    redirect_uris: ['https://app.example/cb', 'http://127.0.0.1:33418/callback'],
    grant_types: ['authorization_code', 'refresh_token'],
    response_types: ['code'],
    token_endpoint_auth_method: 'none',
  });
  const REGISTRATION_ERRORS = ['invalid_client_metadata', 'invalid_redirect_uri', 'invalid_request'];

  it('answers any JSON, mutated registrations and bodies that are no JSON well, never a 5xx', async () => {
    // The cases come from one address: the per-address limit is not what this fuzzes.
    process.env.REGISTRATIONS_PER_ADDRESS_PER_HOUR = '100000';
    resetConfig();
    const body = fc.oneof(
      { weight: 3, arbitrary: mutationsOf(REGISTRATION).map((v) => JSON.stringify(v)) },
      { weight: 2, arbitrary: jsonObject.map((v) => JSON.stringify(v)) },
      { weight: 1, arbitrary: bodyText },
    );
    const contentType = fc.constantFrom('application/json', 'application/json; charset=utf-8', 'application/x-www-form-urlencoded', 'text/plain', '');
    await fuzz(QUICK * 2, fc.tuple(body, contentType), async ([text, type]) => {
      cases.tried('register');
      const before = await directoryRows({ withoutSignIns: true });
      const res = await call('POST', '/o/register/', { body: text, headers: type ? { 'content-type': type } : {} });
      const what = `POST /o/register/ ${type} ${text.slice(0, 200)}`;
      expectWellFormed(res, 'oauth', what);
      expect(res.status, what).toBeLessThan(500);
      if (res.status === 201) {
        expect(res.json.client_id, what).toMatch(/^[A-Za-z0-9]{32}$/);
        expect(res.json.token_endpoint_auth_method, what).toBe('none');
      } else {
        if (res.status === 400 && type.startsWith('application/json')) expect(REGISTRATION_ERRORS, what).toContain(res.json.error);
        expect(await directoryRows({ withoutSignIns: true }), what).toEqual(before);
      }
    });
  });
});

describe('/o/password/', () => {
  it('answers any form and changed forms of one that would set a password with a page, never a 5xx; a refusal changes nothing', async () => {
    const { portal } = await serviceClients();
    const { doctor: inviter, patient } = await invitationWorld();
    const invitation = await invite(inviter.token, patient.id, portal.id);
    const PASSWORD = 'a fuzzed long passphrase';
    let address = 0;
    const template = async (): Promise<Pairs> => [['invitation', invitation.invitationLink], ['password', PASSWORD], ['repeated', PASSWORD], ['client_id', WEB_CLIENT_ID]];
    const body = fc.oneof({ weight: 1, arbitrary: anyPairs.map((pairs) => async () => pairs) }, { weight: 2, arbitrary: changed(template) });
    await fuzz(QUICK, fc.tuple(body, fc.boolean(), fc.constantFrom('application/x-www-form-urlencoded', 'text/plain', '')), async ([make, withCookie, contentType]) => {
      cases.tried('password');
      const page = await call('GET', '/o/password/');
      const pairs: Pairs = [['csrf', hiddenFields(page).csrf!], ...(await make())];
      const before = await directoryRows({ withoutSignIns: true });
      address += 1;
      const res = await call('POST', '/o/password/', {
        body: formText(pairs),
        headers: { ...(contentType ? { 'content-type': contentType } : {}), ...(withCookie ? { cookie: cookieOf(page, 'cdx_signin')! } : {}) },
        sourceIp: `192.0.2.${address % 250}`,
      });
      const what = `POST /o/password/ ${contentType} ${withCookie} ${formText(pairs).slice(0, 200)}`;
      expect(res.status, what).toBeLessThan(500);
      if (contentType === 'application/x-www-form-urlencoded') expect(res.headers['content-type'], what).toMatch(/^text\/html/);
      if (res.status >= 400) expect(await directoryRows({ withoutSignIns: true }), what).toEqual(before);
    });
  });
});
