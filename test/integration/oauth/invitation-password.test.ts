/**
 * A patient invited to the portal sets a password with the invitation (docs/access.md#invited-patients-set-a-password)
 * at `/o/password/`, then signs an assistant in at `/o/authorize/` and opens `/o/connections/` with
 * it. The invitation sets a password once and only while it could be redeemed; the form needs its
 * cookie; attempts are counted per source address; every refusal says why and changes nothing.
 */
import { decodeJwt } from 'jose';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { verifyPassword } from '../../../shared/auth/passwords';
import { config } from '../../../shared/config';
import type { OAuthClient } from '../../../shared/directory/model';
import { createOAuthClient } from '../../../shared/directory/oauth-clients';
import { getPatient } from '../../../shared/directory/patients';
import { getUser } from '../../../shared/directory/users';
import { resetClock, useClock } from '../../../shared/oauth/clock';
import { getInvitation } from '../../../shared/oauth/invitations';
import { ATTEMPTS_PER_WINDOW } from '../../../shared/oauth/invitation-passwords';
import { call, type TestResponse } from '../../support/invoke';
import { FORM, invitationWorld, invite, pkcePair, postForm, redeemAndExchange, serviceClients } from '../../support/oauth';
import { authorizeUrl, consentTo, cookieOf, exchangeCode, hiddenFields, isConsentPage, unescapeHtml, type FlowClient } from '../../support/oauth-flow';

const PASSWORD = 'a long enough passphrase';
const MCP_HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-06-18' };

let portal: OAuthClient;
let assistant: FlowClient;
/** Each test posts from an address of its own, so the attempt windows of the others do not count. */
let address = 0;
const nextAddress = () => `198.51.100.${(address += 1)}`;

beforeAll(async () => {
  ({ portal } = await serviceClients());
  const client = await createOAuthClient({
    name: 'Patient assistant',
    type: 'public',
    redirectUris: ['http://127.0.0.1:43999/callback'],
    grantTypes: ['authorization_code', 'refresh_token'],
    registration: 'dynamic',
    expiresAt: Math.floor(Date.now() / 1000) + 86400,
  });
  assistant = { clientId: client.clientId, redirectUri: client.redirectUris[0]! };
});

afterEach(() => resetClock());

/** An invited patient without a login account, and the invitation (its link and token). */
async function invited() {
  const { doctor, patient } = await invitationWorld();
  const invitation = await invite(doctor.token, patient.id, portal.id);
  return { doctor, patient, invitation };
}

/** Opens the password page (with the query it was linked with) and posts its form. */
async function setPassword(
  fields: { invitation: string; password?: string; repeated?: string },
  options: { query?: string; sourceIp?: string; cookie?: string | false; csrf?: string } = {},
): Promise<TestResponse> {
  const page = await call('GET', `/o/password/${options.query ? `?${options.query}` : ''}`);
  expect(page.status).toBe(200);
  const cookie = options.cookie === false ? undefined : (options.cookie ?? cookieOf(page, 'cdx_signin'));
  const form = { ...hiddenFields(page), ...(options.csrf ? { csrf: options.csrf } : {}), invitation: fields.invitation, password: fields.password ?? PASSWORD, repeated: fields.repeated ?? fields.password ?? PASSWORD };
  return call('POST', '/o/password/', { headers: { ...FORM, ...(cookie ? { cookie } : {}) }, body: new URLSearchParams(form).toString(), sourceIp: options.sourceIp ?? nextAddress() });
}

const errorOf = (page: TestResponse) => unescapeHtml(/<p class="error" role="alert">([^<]*)<\/p>/.exec(page.text)?.[1] ?? '');
const noticeOf = (page: TestResponse) => unescapeHtml(/<p role="status" id="notice">([^<]*)<\/p>/.exec(page.text)?.[1] ?? '');

/** The account of the patient (if any) and whether the invitation set a password. */
async function stateOf(patientId: number, invitationId: number) {
  const userId = (await getPatient(patientId))?.userId;
  const user = userId === undefined ? undefined : await getUser(userId);
  return { passwordHash: user?.passwordHash, passwordSetAt: (await getInvitation(invitationId))?.passwordSetAt };
}

/** Signs in on a sign-in page (its cookie and hidden fields, the email it shows filled in). */
function signInOn(page: TestResponse, password: string): Promise<TestResponse> {
  const fields = hiddenFields(page);
  const email = unescapeHtml(/name="email" type="email" autocomplete="username" required value="([^"]*)"/.exec(page.text)![1]!);
  const action = /<form method="post" action="([^"]+)">/.exec(page.text)![1]!;
  return call('POST', action, { headers: { ...FORM, cookie: cookieOf(page, 'cdx_signin')! }, body: new URLSearchParams({ ...fields, email, password }).toString() });
}

describe('an invited patient sets a password', () => {
  it('with the invitation link, from an assistant\'s sign-in, then signs the assistant in for /mcp as themselves', async () => {
    const { patient, invitation } = await invited();
    const { challenge, verifier } = pkcePair();
    const authorize = await call('GET', authorizeUrl(assistant, challenge, { resource: `${config().siteUrl}/mcp`, scope: 'openid fhirUser patient/*.rs offline_access' }));
    expect(authorize.status).toBe(200);
    // The sign-in page links to the password page, carrying the authorization request.
    const link = unescapeHtml(/<a id="set-password" href="([^"]+)">/.exec(authorize.text)![1]!);
    expect(link.startsWith('/o/password/?')).toBe(true);
    const query = link.slice('/o/password/?'.length);
    const { csrf: _csrf, ...request } = hiddenFields(authorize);
    expect(Object.fromEntries(new URLSearchParams(query))).toEqual(request);

    const done = await setPassword({ invitation: invitation.invitationLink }, { query });
    expect(done.status, errorOf(done)).toBe(200);
    const account = (await getUser((await getPatient(patient.id))!.userId!))!;
    expect(noticeOf(done)).toBe(`Your password is set. Sign in with your email address, ${account.email}, and that password.`);
    expect(await verifyPassword(PASSWORD, account.passwordHash)).toBe(true);
    expect((await getInvitation(invitation.id))!.passwordSetAt).toBeDefined();
    // Back on the assistant's sign-in, its request carried through unchanged.
    expect(done.text).toContain('action="/o/authorize/"');
    expect(hiddenFields(done)).toMatchObject({ ...hiddenFields(authorize), csrf: expect.any(String) });

    const signedIn = await signInOn(done, PASSWORD);
    expect(isConsentPage(signedIn), signedIn.text.slice(0, 300)).toBe(true);
    expect(unescapeHtml(signedIn.text)).toContain('your readings (Observations)');
    const allowed = await consentTo(signedIn, cookieOf(done, 'cdx_signin')!, 'allow');
    expect(allowed.status).toBe(303);
    const code = new URL(allowed.headers['location']!).searchParams.get('code')!;
    const tokens = await exchangeCode(assistant, code, verifier, { resource: `${config().siteUrl}/mcp` });
    expect(tokens.status, tokens.text).toBe(200);
    expect(tokens.json.patient).toBe(String(patient.id));
    expect(decodeJwt(tokens.json.access_token)).toMatchObject({ kind: 'patient', sub: String(account.id), aud: `${config().siteUrl}/mcp` });
    const ping = await call('POST', '/mcp', { token: tokens.json.access_token, headers: MCP_HEADERS, body: { jsonrpc: '2.0', id: 1, method: 'ping' } });
    expect(ping.status).toBe(200);
  });

  it('with the code alone, from the connected applications page, then opens that page', async () => {
    const { patient, invitation } = await invited();
    const connections = await call('GET', '/o/connections/');
    expect(/<a id="set-password" href="([^"]+)">/.exec(connections.text)?.[1]).toBe('/o/password/');
    const code = decodeURIComponent(new URL(invitation.invitationLink).searchParams.get('code')!);
    const done = await setPassword({ invitation: code });
    expect(done.status, errorOf(done)).toBe(200);
    expect(done.text).toContain('action="/o/connections/"');
    const signedIn = await signInOn(done, PASSWORD);
    expect(signedIn.status).toBe(303);
    const session = cookieOf(signedIn, 'cdx_connections')!;
    const list = await call('GET', '/o/connections/', { headers: { cookie: session } });
    expect(list.status).toBe(200);
    expect(list.text).toContain('No application is connected to your account.');
    expect((await stateOf(patient.id, invitation.id)).passwordSetAt).toBeDefined();
  });

  it('once per invitation; a first password leaves the portal\'s session working', async () => {
    const { patient, invitation } = await invited();
    const portalTokens = await redeemAndExchange(invitation.token);
    expect((await setPassword({ invitation: invitation.token })).status).toBe(200);
    const set = await stateOf(patient.id, invitation.id);
    // The portal's refresh and access tokens still work: the account had no password to change.
    expect((await call('GET', '/o/userinfo/', { token: portalTokens.access_token })).status).toBe(200);
    expect((await postForm('/o/token/', { grant_type: 'refresh_token', refresh_token: portalTokens.refresh_token, client_id: portal.clientId })).status).toBe(200);

    const again = await setPassword({ invitation: invitation.token, password: 'another long passphrase' });
    expect(again.status).toBe(409);
    expect(errorOf(again)).toMatch(/used to set a password already/);
    expect(await stateOf(patient.id, invitation.id)).toEqual(set);
  });

  it('again with a new invitation, for a forgotten one: the old password stops working and the account\'s sessions end', async () => {
    const { doctor, patient, invitation } = await invited();
    expect((await setPassword({ invitation: invitation.token })).status).toBe(200);
    // The portal's grant starts a few seconds before the change (tokensNotBefore counts seconds).
    useClock(() => Date.now() - 5000);
    const portalTokens = await redeemAndExchange(invitation.token);
    resetClock();
    const renewed = await invite(doctor.token, patient.id, portal.id);
    const replaced = await setPassword({ invitation: renewed.invitationLink, password: 'the new long passphrase' });
    expect(replaced.status, errorOf(replaced)).toBe(200);
    const user = (await getUser((await getPatient(patient.id))!.userId!))!;
    expect(await verifyPassword('the new long passphrase', user.passwordHash)).toBe(true);
    expect(await verifyPassword(PASSWORD, user.passwordHash)).toBe(false);
    expect(user.tokensNotBefore).toBeDefined();
    const refreshed = await postForm('/o/token/', { grant_type: 'refresh_token', refresh_token: portalTokens.refresh_token, client_id: portal.clientId });
    expect(refreshed.json.error).toBe('invalid_grant');
  });

  it('with exactly one of two posts racing with the same invitation', async () => {
    const { patient, invitation } = await invited();
    const [a, b] = await Promise.all([setPassword({ invitation: invitation.token, password: 'first racing passphrase' }), setPassword({ invitation: invitation.token, password: 'second racing passphrase' })]);
    expect([a.status, b.status].sort()).toEqual([200, 409]);
    const winner = a.status === 200 ? 'first racing passphrase' : 'second racing passphrase';
    const loser = a.status === 200 ? 'second racing passphrase' : 'first racing passphrase';
    const { passwordHash } = await stateOf(patient.id, invitation.id);
    expect(await verifyPassword(winner, passwordHash)).toBe(true);
    expect(await verifyPassword(loser, passwordHash)).toBe(false);
  });
});

describe('what is refused, changing nothing', () => {
  it('a post without the form\'s cookie or with another CSRF value (403)', async () => {
    const { patient, invitation } = await invited();
    for (const options of [{ cookie: false as const }, { csrf: 'forged' }, { cookie: 'cdx_signin=someone-elses' }]) {
      const res = await setPassword({ invitation: invitation.token }, options);
      expect(res.status, JSON.stringify(options)).toBe(403);
      expect(errorOf(res)).toMatch(/expired or was not sent from this site/);
    }
    expect(await stateOf(patient.id, invitation.id)).toEqual({ passwordHash: undefined, passwordSetAt: undefined });
    expect((await getPatient(patient.id))!.userId).toBeUndefined();
  });

  it('a password too short, repeated wrong, one character, or no invitation (400); an invitation unknown, garbled or of another service (404)', async () => {
    const { patient, invitation } = await invited();
    const cases: Array<[{ invitation: string; password?: string; repeated?: string }, number, RegExp]> = [
      [{ invitation: invitation.token, password: 'short' }, 400, /at least 12 characters/],
      [{ invitation: invitation.token, password: PASSWORD, repeated: `${PASSWORD}!` }, 400, /not the same/],
      [{ invitation: invitation.token, password: 'aaaaaaaaaaaaaaaa' }, 400, /one character repeated/],
      [{ invitation: invitation.token, password: 'x'.repeat(1025) }, 400, /at most 1024/],
      [{ invitation: '   ' }, 400, /Paste the invitation link/],
      [{ invitation: 'B'.repeat(32) }, 404, /not an invitation we know/],
      [{ invitation: `localhost:8000_${'C'.repeat(32)}` }, 404, /not an invitation we know/],
      [{ invitation: 'not a code at all' }, 404, /not an invitation we know/],
      [{ invitation: 'http://localhost:8000/clients/portal/' }, 404, /not an invitation we know/],
      [{ invitation: `other.example_${invitation.token}` }, 404, /for another service \(other\.example\)/],
      [{ invitation: `https://other.example/clients/portal/?code=${encodeURIComponent(`other.example_${invitation.token}`)}` }, 404, /another service/],
    ];
    for (const [fields, status, why] of cases) {
      const res = await setPassword(fields);
      expect(res.status, JSON.stringify(fields).slice(0, 100)).toBe(status);
      expect(errorOf(res), JSON.stringify(fields).slice(0, 100)).toMatch(why);
      // The form comes back to be corrected, without the secrets typed.
      expect(res.text).not.toContain(invitation.token);
    }
    expect(await stateOf(patient.id, invitation.id)).toEqual({ passwordHash: undefined, passwordSetAt: undefined });
  });

  it('an authorization request carried back that does not hold: its problem page (400), before anything is set', async () => {
    const { patient, invitation } = await invited();
    const query = new URLSearchParams({ response_type: 'code', client_id: 'no-such-client', redirect_uri: assistant.redirectUri, code_challenge: pkcePair().challenge, code_challenge_method: 'S256' }).toString();
    const res = await setPassword({ invitation: invitation.token }, { query });
    expect(res.status).toBe(400);
    expect(res.text).toContain('This sign-in request cannot continue');
    expect(await stateOf(patient.id, invitation.id)).toEqual({ passwordHash: undefined, passwordSetAt: undefined });
    expect((await getPatient(patient.id))!.userId).toBeUndefined();
  });

  it('an invitation cancelled (403), expired (410), replaced (409) or redeemed more than 12 hours ago (409)', async () => {
    const cancelled = await invited();
    expect((await call('DELETE', `/api/v1/invitation/${cancelled.invitation.id}`, { token: cancelled.doctor.token })).status).toBeLessThan(300);
    const replaced = await invited();
    await invite(replaced.doctor.token, replaced.patient.id, portal.id);
    for (const [world, status, why] of [[cancelled, 403, /cancelled/], [replaced, 409, /replaced by a newer one/]] as const) {
      const res = await setPassword({ invitation: world.invitation.token });
      expect(res.status).toBe(status);
      expect(errorOf(res)).toMatch(why);
      expect(await stateOf(world.patient.id, world.invitation.id)).toEqual({ passwordHash: undefined, passwordSetAt: undefined });
    }

    const expiring = await invited();
    const redeemed = await invited();
    await redeemAndExchange(redeemed.invitation.token);
    const before = await stateOf(redeemed.patient.id, redeemed.invitation.id);
    let now = Date.now() + 13 * 3600_000;
    useClock(() => now);
    const late = await setPassword({ invitation: redeemed.invitation.token });
    expect(late.status).toBe(409);
    expect(errorOf(late)).toMatch(/already used/);
    expect(await stateOf(redeemed.patient.id, redeemed.invitation.id)).toEqual(before);
    now = Date.now() + 8 * 24 * 3600_000;
    const expired = await setPassword({ invitation: expiring.invitation.token });
    expect(expired.status).toBe(410);
    expect(errorOf(expired)).toMatch(/expired/);
    expect(await stateOf(expiring.patient.id, expiring.invitation.id)).toEqual({ passwordHash: undefined, passwordSetAt: undefined });
  });

  it(`more than ${ATTEMPTS_PER_WINDOW} attempts from one address in 15 minutes (429 with Retry-After), a good invitation too`, async () => {
    const { patient, invitation } = await invited();
    const sourceIp = nextAddress();
    for (let i = 0; i < ATTEMPTS_PER_WINDOW; i += 1) expect((await setPassword({ invitation: 'D'.repeat(32) }, { sourceIp })).status).toBe(404);
    const limited = await setPassword({ invitation: invitation.token }, { sourceIp });
    expect(limited.status).toBe(429);
    expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0);
    expect(Number(limited.headers['retry-after'])).toBeLessThanOrEqual(900);
    expect(errorOf(limited)).toMatch(/Too many attempts/);
    expect(await stateOf(patient.id, invitation.id)).toEqual({ passwordHash: undefined, passwordSetAt: undefined });
    // A mistyped password is no attempt at an invitation; another address has its own count.
    expect((await setPassword({ invitation: invitation.token, password: 'short' }, { sourceIp })).status).toBe(400);
    expect((await setPassword({ invitation: invitation.token })).status).toBe(200);
  });

  it('the page is protected like the sign-in page: CSP with no script, no framing, no caching', async () => {
    const page = await call('GET', '/o/password/');
    expect(page.headers['content-security-policy']).toMatch(/default-src 'none'/);
    expect(page.headers['content-security-policy']).toMatch(/form-action 'self'(;|$)/);
    expect(page.headers['content-security-policy']).not.toMatch(/script-src/);
    expect(page.headers['x-frame-options']).toBe('DENY');
    expect(page.headers['cache-control']).toBe('no-store');
    expect(page.cookies.find((c) => c.startsWith('cdx_signin='))).toMatch(/HttpOnly; SameSite=Strict/);
    // A repeated or control-laden parameter is shown as a problem, never carried.
    const repeated = await call('GET', '/o/password/?client_id=a&client_id=b');
    expect(repeated.status).toBe(400);
    // Only an authorization request's parameters are carried; values are escaped.
    const carried = await call('GET', `/o/password/?client_id=${encodeURIComponent('"><script>x</script>')}&password=leak`);
    expect(hiddenFields(carried)).toEqual({ client_id: '"><script>x</script>', csrf: expect.any(String) });
    expect(carried.text).not.toContain('<script>x');
  });
});
