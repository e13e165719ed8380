/**
 * Consent (docs/access.md#consent): after sign-in, a client other than the service's own shows the
 * consent page before any code; Allow issues it, Deny sends access_denied; a forged or missing CSRF
 * value changes nothing; approvals are remembered (fewer scopes skip the page, more ask again); the
 * connected applications page lists a person's own approvals and withdraws them, which ends the
 * client's codes, refresh tokens and access tokens at once.
 */
import { decodeJwt } from 'jose';
import { beforeAll, describe, expect, it } from 'vitest';
import { hashPassword } from '../../../shared/auth/passwords';
import { config } from '../../../shared/config';
import type { OAuthClient, Practitioner } from '../../../shared/directory/model';
import { createOAuthClient } from '../../../shared/directory/oauth-clients';
import { approvalOf } from '../../../shared/oauth/approvals';
import { ensureServiceClients, WEB_CLIENT_ID } from '../../../shared/oauth/service-clients';
import { makeOrganization, makePractitioner } from '../../support/directory';
import { call, type TestResponse } from '../../support/invoke';
import { FORM, pkcePair, postForm } from '../../support/oauth';
import { consentTo, cookieOf, hiddenFields, unescapeHtml as unescape } from '../../support/oauth-flow';

const PASSWORD = 'correct horse battery staple';
const REDIRECT = 'https://assistant.example:8443/oauth/callback';
const HOSTILE_NAME = '<img src=x onerror=alert(1)> "Assistant" & Co';
const MCP_HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-06-18' };
const initialize = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'consent-test', version: '1' } } };

let passwordHash: string;
let site: string;
let mcp: string;
let assistant: OAuthClient;

beforeAll(async () => {
  await ensureServiceClients();
  passwordHash = await hashPassword(PASSWORD);
  site = config().siteUrl;
  mcp = `${site}/mcp`;
  assistant = await createOAuthClient({ name: HOSTILE_NAME, type: 'public', redirectUris: [REDIRECT], grantTypes: ['authorization_code', 'refresh_token'] });
});


const doctor = async () => makePractitioner({ organizations: [await makeOrganization()], passwordHash });

interface Asked {
  clientId?: string;
  redirectUri?: string;
  scope?: string;
  resource?: string;
}

/** Opens `/o/authorize/` and signs in; the answer to the sign-in, the sign-in cookie and the PKCE verifier. */
async function signInAt(who: Practitioner, asked: Asked = {}) {
  const { verifier, challenge } = pkcePair();
  const query = new URLSearchParams({
    response_type: 'code',
    client_id: asked.clientId ?? assistant.clientId,
    redirect_uri: asked.redirectUri ?? REDIRECT,
    scope: asked.scope ?? 'openid fhirUser user/*.rs offline_access',
    state: 'st-42',
    code_challenge: challenge,
    code_challenge_method: 'S256',
    resource: asked.resource ?? mcp,
  });
  const page = await call('GET', `/o/authorize/?${query}`);
  expect(page.status).toBe(200);
  const cookie = cookieOf(page, 'cdx_signin')!;
  const answer = await call('POST', '/o/authorize/', { headers: { ...FORM, cookie }, body: new URLSearchParams({ ...hiddenFields(page), email: who.email, password: PASSWORD }).toString() });
  return { answer, cookie, verifier };
}

const consent = consentTo;

function redirected(res: TestResponse): URL {
  expect(res.status, res.text.slice(0, 300)).toBe(303);
  const location = new URL(res.headers['location']!);
  expect(`${location.origin}${location.pathname}`).toBe(REDIRECT);
  return location;
}

const exchange = (code: string, verifier: string) => postForm('/o/token/', { grant_type: 'authorization_code', code, redirect_uri: REDIRECT, client_id: assistant.clientId, code_verifier: verifier });
const refresh = (refreshToken: string) => postForm('/o/token/', { grant_type: 'refresh_token', refresh_token: refreshToken, client_id: assistant.clientId });
const callMcp = (token: string) => call('POST', '/mcp', { token, headers: MCP_HEADERS, body: initialize });

/** Signs in, approves, exchanges: the tokens of a connected assistant. */
async function connect(who: Practitioner, asked: Asked = {}) {
  const { answer, cookie, verifier } = await signInAt(who, asked);
  expect(answer.status).toBe(200);
  const code = redirected(await consent(answer, cookie, 'allow')).searchParams.get('code')!;
  const tokens = await exchange(code, verifier);
  expect(tokens.status, tokens.text).toBe(200);
  return tokens.json as { access_token: string; refresh_token: string; scope: string };
}

/** Signs in on the connections page; the session cookie. */
async function connectionsSession(who: Practitioner): Promise<string> {
  const form = await call('GET', '/o/connections/');
  expect(form.status).toBe(200);
  expect(form.text).toContain('Sign in to see the applications connected to your account');
  const cookie = cookieOf(form, 'cdx_signin')!;
  const done = await call('POST', '/o/connections/', { headers: { ...FORM, cookie }, body: new URLSearchParams({ ...hiddenFields(form), email: who.email, password: PASSWORD }).toString() });
  expect(done.status, done.text.slice(0, 300)).toBe(303);
  expect(done.headers['location']).toBe('/o/connections/');
  const session = done.cookies.find((c) => c.startsWith('cdx_connections='))!;
  expect(session).toMatch(/HttpOnly/);
  expect(session).toMatch(/SameSite=Strict/);
  expect(session).toMatch(/Max-Age=900/);
  return session.split(';')[0]!;
}

const connectionsPage = (session: string) => call('GET', '/o/connections/', { headers: { cookie: session } });

function withdraw(session: string, page: TestResponse, clientId: string, overrides: Record<string, string> = {}) {
  const csrf = hiddenFields(page).csrf!;
  return call('POST', '/o/connections/withdraw/', { headers: { ...FORM, cookie: session }, body: new URLSearchParams({ csrf, client_id: clientId, resource: 'mcp', ...overrides }).toString() });
}

describe('the consent page', () => {
  it('shows the escaped client name, the redirect host and what it will see, with the sign-in page protections', async () => {
    const { answer } = await signInAt(await doctor());
    expect(answer.status).toBe(200);
    expect(answer.headers['location']).toBeUndefined();
    expect(answer.text).toContain('<h1>Allow access?</h1>');
    expect(answer.text).not.toContain('<img src=x');
    expect(unescape(/<strong id="client-name">([^<]*)<\/strong>/.exec(answer.text)![1]!)).toBe(HOSTILE_NAME);
    expect(/<strong id="redirect-host">([^<]*)<\/strong>/.exec(answer.text)![1]).toBe('assistant.example:8443');
    const access = unescape(/<div id="access">(.*?)<\/div>/s.exec(answer.text)![1]!);
    expect(access).toContain("the readings (Observations) and clinical records of the patients you can see, and your organizations, studies and data sources, read-only, through the assistants' endpoint /mcp");
    expect(access).toContain('who you are: your account and your Practitioner record');
    expect(access).toContain('it stays connected while you are away');
    const csp = answer.headers['content-security-policy']!;
    expect(csp).toContain("default-src 'none'");
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).toContain("form-action 'self' https://assistant.example:8443");
    expect(csp).not.toContain('script-src');
    expect(answer.headers['x-frame-options']).toBe('DENY');
    expect(answer.headers['cache-control']).toBe('no-store');
    expect(answer.text).not.toMatch(/<script\b/);
    expect(Object.keys(hiddenFields(answer)).sort()).toEqual(['csrf', 'session']);
  });

  it('Allow issues a code with state and iss; the tokens are for /mcp and work there', async () => {
    const who = await doctor();
    const { answer, cookie, verifier } = await signInAt(who);
    const location = redirected(await consent(answer, cookie, 'allow'));
    expect([location.searchParams.get('state'), location.searchParams.get('iss')]).toEqual(['st-42', site]);
    const tokens = await exchange(location.searchParams.get('code')!, verifier);
    expect(tokens.status).toBe(200);
    expect(decodeJwt(tokens.json.access_token).aud).toBe(mcp);
    expect((await callMcp(tokens.json.access_token)).status).toBe(200);
    expect(await approvalOf(who.id, assistant.clientId, 'mcp')).toMatchObject({ scope: 'openid fhirUser user/*.rs offline_access' });
  });

  it('Deny sends access_denied with state and iss, issues nothing and remembers nothing', async () => {
    const who = await doctor();
    const { answer, cookie } = await signInAt(who);
    const location = redirected(await consent(answer, cookie, 'deny'));
    expect([location.searchParams.get('error'), location.searchParams.get('state'), location.searchParams.get('iss')]).toEqual(['access_denied', 'st-42', site]);
    expect(location.searchParams.get('code')).toBeNull();
    expect(await approvalOf(who.id, assistant.clientId, 'mcp')).toBeUndefined();
    // The page was answered: it cannot be answered again.
    expect((await consent(answer, cookie, 'allow')).status).toBe(403);
  });

  it('refuses a post with a missing or forged CSRF cookie or value, or a forged session, and issues nothing; the page still works after', async () => {
    const who = await doctor();
    const { answer, cookie } = await signInAt(who);
    const fields = hiddenFields(answer);
    const forged: Array<[string, Record<string, string>]> = [
      ['', {}],
      ['cdx_signin=forged', {}],
      [cookie, { csrf: 'forged' }],
      ['cdx_signin=forged', { csrf: 'forged' }],
      [cookie, { session: 'A'.repeat(43) }],
      [cookie, { session: '' }],
      [cookie, { csrf: '' }],
    ];
    for (const [sent, overrides] of forged) {
      const res = await consent(answer, sent, 'allow', overrides);
      expect(res.status, JSON.stringify([sent, overrides])).toBe(403);
      expect(res.headers['location']).toBeUndefined();
    }
    expect((await consent(answer, cookie, 'maybe')).status).toBe(400);
    expect(await approvalOf(who.id, assistant.clientId, 'mcp')).toBeUndefined();
    expect(fields.session).toMatch(/^[A-Za-z0-9]{43}$/);
    expect(redirected(await consent(answer, cookie, 'allow')).searchParams.get('code')).toBeTruthy();
  });

  it("is not asked by the service's own client", async () => {
    const { answer } = await signInAt(await doctor(), { clientId: WEB_CLIENT_ID, redirectUri: `${site}/auth/callback` });
    expect(answer.status).toBe(303);
    expect(new URL(answer.headers['location']!).searchParams.get('code')).toBeTruthy();
  });
});

describe('remembered approvals', () => {
  it('skip the page for the same or fewer scopes, ask again for more, and then hold both', async () => {
    const who = await doctor();
    await connect(who, { scope: 'openid user/*.rs' });
    for (const scope of ['openid user/*.rs', 'user/*.rs', 'openid']) {
      const again = await signInAt(who, { scope });
      const code = redirected(again.answer).searchParams.get('code')!;
      expect((await exchange(code, again.verifier)).json.scope, scope).toBe(scope);
    }
    const wider = await signInAt(who, { scope: 'openid user/*.rs email' });
    expect(wider.answer.status).toBe(200);
    expect(wider.answer.text).toContain('It asks for more than you allowed before.');
    expect(unescape(wider.answer.text)).toContain('your email address');
    redirected(await consent(wider.answer, wider.cookie, 'allow'));
    expect((await approvalOf(who.id, assistant.clientId, 'mcp'))!.scope).toBe('openid user/*.rs email');
    expect(redirected((await signInAt(who, { scope: 'email user/*.rs' })).answer).searchParams.get('code')).toBeTruthy();
  });

  it('are per resource: an approval for /mcp does not cover the FHIR API', async () => {
    const who = await doctor();
    await connect(who, { scope: 'openid' });
    const forApis = await signInAt(who, { scope: 'openid', resource: `${site}/FHIR/R5` });
    expect(forApis.answer.status).toBe(200);
    expect(unescape(forApis.answer.text)).toContain('read them, and add and change records as you can yourself, through the FHIR and management APIs');
  });
});

describe('the connected applications page', () => {
  it('lists the approval, and withdrawing it ends the refresh token and the access tokens at once', async () => {
    const who = await doctor();
    const tokens = await connect(who);
    const session = await connectionsSession(who);
    const page = await connectionsPage(session);
    expect(page.status).toBe(200);
    expect(page.headers['content-security-policy']).toContain("frame-ancestors 'none'");
    expect(page.text).not.toContain('<img src=x');
    expect(unescape(page.text)).toContain(HOSTILE_NAME);
    expect(unescape(page.text)).toContain("read-only, through the assistants' endpoint /mcp");
    expect(page.text).toMatch(/approved <time>\d{4}-\d\d-\d\d \d\d:\d\d UTC<\/time>/);

    expect((await callMcp(tokens.access_token)).status).toBe(200);
    const done = await withdraw(session, page, assistant.clientId);
    expect(done.status).toBe(303);
    expect(done.headers['location']).toBe('/o/connections/?done=withdrawn');
    expect(await approvalOf(who.id, assistant.clientId, 'mcp')).toBeUndefined();
    const after = await call('GET', '/o/connections/?done=withdrawn', { headers: { cookie: session } });
    expect(after.text).toContain('No application is connected to your account.');
    expect(after.text).toContain('its tokens no longer work');

    expect((await callMcp(tokens.access_token)).status).toBe(401);
    const refused = await refresh(tokens.refresh_token);
    expect(refused.status).toBe(400);
    expect(refused.json.error).toBe('invalid_grant');
    // Withdrawing again finds nothing; connecting again (past the second of the withdrawal, whose
    // tokens are all refused: `iat` counts seconds) asks again, and its tokens work.
    expect((await withdraw(session, page, assistant.clientId)).status).toBe(404);
    await new Promise((resolve) => setTimeout(resolve, 1100));
    const again = await connect(who);
    expect((await callMcp(again.access_token)).status).toBe(200);
    expect((await refresh(again.refresh_token)).status).toBe(200);
  });

  it('refuses a code issued before the withdrawal at its exchange', async () => {
    const who = await doctor();
    await connect(who);
    const pending = await signInAt(who);
    const code = redirected(pending.answer).searchParams.get('code')!;
    const session = await connectionsSession(who);
    expect((await withdraw(session, await connectionsPage(session), assistant.clientId)).status).toBe(303);
    const res = await exchange(code, pending.verifier);
    expect(res.status).toBe(400);
    expect(res.json.error).toBe('invalid_grant');
  });

  it("never lists or withdraws another person's approvals", async () => {
    const [alice, bob] = [await doctor(), await doctor()];
    const tokens = await connect(alice);
    const bobSession = await connectionsSession(bob);
    const bobPage = await connectionsPage(bobSession);
    expect(bobPage.text).toContain('No application is connected to your account.');
    expect(bobPage.text).not.toContain(assistant.clientId);
    expect((await withdraw(bobSession, bobPage, assistant.clientId)).status).toBe(404);
    expect(await approvalOf(alice.id, assistant.clientId, 'mcp')).toBeDefined();
    expect((await callMcp(tokens.access_token)).status).toBe(200);
    expect((await refresh(tokens.refresh_token)).status).toBe(200);
  });

  it('refuses a withdrawal without the session cookie or with a forged CSRF token, changing nothing; signs out', async () => {
    const who = await doctor();
    await connect(who);
    const session = await connectionsSession(who);
    const page = await connectionsPage(session);
    expect((await withdraw('', page, assistant.clientId)).status).toBe(403);
    expect((await withdraw('cdx_connections=forged', page, assistant.clientId)).status).toBe(403);
    expect((await withdraw(session, page, assistant.clientId, { csrf: 'forged' })).status).toBe(403);
    expect((await withdraw(session, page, assistant.clientId, { resource: 'everything' })).status).toBe(400);
    expect(await approvalOf(who.id, assistant.clientId, 'mcp')).toBeDefined();

    const out = await call('POST', '/o/connections/sign-out/', { headers: { ...FORM, cookie: session }, body: new URLSearchParams({ csrf: hiddenFields(page).csrf! }).toString() });
    expect(out.status).toBe(303);
    expect(out.cookies.find((c) => c.startsWith('cdx_connections='))).toMatch(/Max-Age=0/);
    expect((await connectionsPage(session)).text).toContain('Sign in to see the applications');
    expect((await withdraw(session, page, assistant.clientId)).status).toBe(403);
    expect(await approvalOf(who.id, assistant.clientId, 'mcp')).toBeDefined();
  });

  it('refuses a sign-in post without its CSRF cookie', async () => {
    const who = await doctor();
    const form = await call('GET', '/o/connections/');
    const res = await call('POST', '/o/connections/', { headers: FORM, body: new URLSearchParams({ ...hiddenFields(form), email: who.email, password: PASSWORD }).toString() });
    expect(res.status).toBe(403);
    expect(res.cookies.find((c) => c.startsWith('cdx_connections='))).toBeUndefined();
  });
});
