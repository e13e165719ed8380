/**
 * Assistants' clients registering themselves (RFC 7591, docs/access.md#assistants-clients): what is
 * accepted and refused with which error, bounded and hostile bodies, the loopback redirect on any
 * port, the whole authorization code flow with PKCE and `resource=<site>/mcp` as a registered
 * client, the rate limit (429 with Retry-After), expiry of unused clients, and revocation ending a
 * client's tokens.
 */
import { decodeJwt } from 'jose';
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { hashPassword } from '../../../shared/auth/passwords';
import { config, resetConfig } from '../../../shared/config';
import { getOAuthClient } from '../../../shared/directory/oauth-clients';
import { KEPT_AFTER_USE_SECONDS, listRegisteredClients, noteClientUse, revokeRegisteredClient, UNUSED_CLIENT_SECONDS } from '../../../shared/oauth/clients';
import { runClientsCommand } from '../../../scripts/clients';
import { call, type TestResponse } from '../../support/invoke';
import { exchangeCode, refreshFor, signInFor, authorizeUrl, type FlowClient } from '../../support/oauth-flow';
import { pkcePair } from '../../support/oauth';

const PASSWORD = 'correct horse battery staple';
let passwordHash: string;
let site: string;
let addressCount = 0;

/** Each test registers from its own address, so the per-address limit is the rate-limit test's alone. */
const freshAddress = () => `203.0.113.${(addressCount += 1)}`;

const register = (body: unknown, options: { sourceIp?: string; headers?: Record<string, string> } = {}): Promise<TestResponse> =>
  call('POST', '/o/register/', { body, headers: { 'content-type': 'application/json', ...options.headers }, sourceIp: options.sourceIp ?? freshAddress() });

const LOOPBACK = 'http://127.0.0.1:33418/callback';

async function registered(metadata: Record<string, unknown> = {}): Promise<FlowClient & { body: Record<string, unknown> }> {
  const res = await register({ client_name: 'Test assistant', redirect_uris: [LOOPBACK], grant_types: ['authorization_code', 'refresh_token'], token_endpoint_auth_method: 'none', ...metadata });
  expect(res.status, res.text).toBe(201);
  return { clientId: res.json.client_id, redirectUri: (res.json.redirect_uris as string[])[0]!, body: res.json };
}

function expectRefused(res: TestResponse, error: 'invalid_client_metadata' | 'invalid_redirect_uri') {
  expect(res.status, res.text).toBe(400);
  expect(res.json.error).toBe(error);
  expect(typeof res.json.error_description).toBe('string');
}

beforeAll(async () => {
  passwordHash = await hashPassword(PASSWORD);
  site = config().siteUrl;
});

afterEach(() => {
  vi.useRealTimers();
  delete process.env.REGISTRATIONS_PER_ADDRESS_PER_HOUR;
  delete process.env.REGISTRATIONS_PER_HOUR;
  resetConfig();
});

describe('the registration endpoint', () => {
  it('is advertised in the RFC 8414 and OpenID metadata, with metadata documents supported', async () => {
    for (const path of ['/.well-known/oauth-authorization-server', '/.well-known/openid-configuration']) {
      const res = await call('GET', path);
      expect(res.json, path).toMatchObject({ registration_endpoint: `${site}/o/register/`, client_id_metadata_document_supported: true });
    }
  });

  it('registers a public client and answers 201 with its information', async () => {
    const before = Math.floor(Date.now() / 1000);
    const res = await register({ client_name: 'Claude', redirect_uris: ['https://claude.ai/api/mcp/auth_callback', LOOPBACK], grant_types: ['authorization_code', 'refresh_token'], response_types: ['code'], token_endpoint_auth_method: 'none', scope: 'user/*.rs', logo_uri: 'https://x.test/l.png' });
    expect(res.status, res.text).toBe(201);
    expect(res.headers['cache-control']).toBe('no-store');
    expect(res.json).toEqual({
      client_id: expect.stringMatching(/^[A-Za-z0-9]{32}$/),
      client_id_issued_at: expect.any(Number),
      client_name: 'Claude',
      redirect_uris: ['https://claude.ai/api/mcp/auth_callback', LOOPBACK],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
    });
    expect(res.json.client_id_issued_at).toBeGreaterThanOrEqual(before - 1);
    const stored = await getOAuthClient(res.json.client_id);
    expect(stored).toMatchObject({ type: 'public', registration: 'dynamic', name: 'Claude', redirectUris: ['https://claude.ai/api/mcp/auth_callback', LOOPBACK] });
    expect(stored!.secretHash).toBeUndefined();
    expect(stored!.expiresAt! - before).toBeGreaterThanOrEqual(UNUSED_CLIENT_SECONDS - 1);
    expect(stored!.expiresAt! - before).toBeLessThanOrEqual(UNUSED_CLIENT_SECONDS + 1);
  });

  it('takes the defaults: the authorization code grant, and a name when none is given', async () => {
    const res = await register({ redirect_uris: ['https://app.example/cb'] });
    expect(res.status, res.text).toBe(201);
    expect(res.json).toMatchObject({ grant_types: ['authorization_code'], response_types: ['code'], token_endpoint_auth_method: 'none', client_name: 'Unnamed assistant' });
  });

  it('accepts https and loopback http redirect URIs (127.0.0.1, [::1], localhost)', async () => {
    for (const uri of ['https://app.example/cb?x=1', 'http://127.0.0.1/cb', 'http://127.0.0.1:8080/cb', 'http://[::1]:9000/cb', 'http://localhost:6274/oauth/callback']) {
      expect((await register({ redirect_uris: [uri] })).status, uri).toBe(201);
    }
  });

  it('refuses redirect URIs that are not https or loopback http, carry a fragment or credentials, or are missing: invalid_redirect_uri', async () => {
    for (const redirect_uris of [
      undefined,
      [],
      ['http://app.example/cb'],
      ['http://192.168.1.2/cb'],
      ['http://127.0.0.2/cb'],
      ['https://app.example/cb#frag'],
      ['https://user:pw@app.example/cb'],
      ['javascript:alert(1)'],
      ['com.example.app:/cb'],
      ['/relative/cb'],
      ['not a uri'],
      [`https://app.example/${'a'.repeat(600)}`],
      ['https://app.example/cb', 'http://evil.example/cb'],
    ]) {
      expectRefused(await register({ redirect_uris }), 'invalid_redirect_uri');
    }
  });

  it('refuses confidential clients, other grants and response types, and wrong types: invalid_client_metadata', async () => {
    const ok = { redirect_uris: ['https://app.example/cb'] };
    for (const extra of [
      { token_endpoint_auth_method: 'client_secret_basic' },
      { token_endpoint_auth_method: 'client_secret_post' },
      { token_endpoint_auth_method: 'private_key_jwt' },
      { token_endpoint_auth_method: 7 },
      { grant_types: ['client_credentials'] },
      { grant_types: ['implicit'] },
      { grant_types: ['refresh_token'] },
      { grant_types: 'authorization_code' },
      { response_types: ['token'] },
      { response_types: ['code', 'id_token'] },
      { client_name: 42 },
      { client_name: 'x'.repeat(101) },
      { client_name: 'bell\u0007' },
      { redirect_uris: 'https://app.example/cb' },
      { redirect_uris: [42] },
      { redirect_uris: Array.from({ length: 11 }, (_, i) => `https://app.example/${i}`) },
    ]) {
      expectRefused(await register({ ...ok, ...extra }), 'invalid_client_metadata');
    }
  });

  it('refuses a body that is not a JSON object, or not JSON, and stores nothing', async () => {
    const before = (await listRegisteredClients()).length;
    for (const body of [[], 'null', '"text"', '42']) expectRefused(await register(body), 'invalid_client_metadata');
    const form = await call('POST', '/o/register/', { headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'redirect_uris=https://app.example/cb', sourceIp: freshAddress() });
    expectRefused(form, 'invalid_client_metadata');
    const malformed = await register('{"redirect_uris": [', {});
    expect(malformed.status).toBeGreaterThanOrEqual(400);
    expect(malformed.status).toBeLessThan(500);
    expect((await listRegisteredClients()).length).toBe(before);
  });

  it('is unharmed by __proto__ and constructor keys, deep nesting and oversized bodies', async () => {
    const hostile = await register('{"__proto__": {"token_endpoint_auth_method": "client_secret_basic", "isAdmin": true}, "constructor": {"prototype": {"x": 1}}, "redirect_uris": ["https://app.example/cb"]}');
    expect(hostile.status, hostile.text).toBe(201);
    expect(hostile.json.token_endpoint_auth_method).toBe('none');
    expect(({} as Record<string, unknown>).isAdmin).toBeUndefined();
    const protoUris = await register('{"__proto__": {"redirect_uris": ["https://app.example/cb"]}}');
    expectRefused(protoUris, 'invalid_redirect_uri');
    const deep = await register(`{"redirect_uris": ["https://app.example/cb"], "x": ${'['.repeat(200)}${']'.repeat(200)}}`);
    expect(deep.status).toBe(400);
    const huge = await register({ redirect_uris: ['https://app.example/cb'], padding: 'x'.repeat(config().maxBodyBytes + 10) });
    expect(huge.status).toBe(413);
  });
});

describe('a registered client', () => {
  it('completes the authorization code flow with PKCE for resource=<site>/mcp, on any loopback port, and refreshes', async () => {
    const client = await registered();
    const mcp = `${site}/mcp`;
    // The client listens on whatever port it got: the registered port does not bind it (RFC 8252 §7.3).
    const onAnotherPort = { ...client, redirectUri: 'http://127.0.0.1:51234/callback' };
    const { code, verifier, location } = await signInFor(onAnotherPort, passwordHash, PASSWORD, { resource: mcp });
    expect(`${location.origin}${location.pathname}`).toBe('http://127.0.0.1:51234/callback');
    expect(location.searchParams.get('iss')).toBe(site);
    const tokens = await exchangeCode(onAnotherPort, code, verifier, { resource: mcp });
    expect(tokens.status, tokens.text).toBe(200);
    expect(decodeJwt(tokens.json.access_token).aud).toBe(mcp);
    expect(decodeJwt(tokens.json.access_token).client_id ?? decodeJwt(tokens.json.access_token).azp).toBe(client.clientId);
    const mcpAnswer = await call('POST', '/mcp', {
      token: tokens.json.access_token,
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-06-18' },
      body: { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'dcr-test', version: '1' } } },
    });
    expect(mcpAnswer.status).toBe(200);
    const refreshed = await refreshFor(client, tokens.json.refresh_token);
    expect(refreshed.status, refreshed.text).toBe(200);
    expect(decodeJwt(refreshed.json.access_token).aud).toBe(mcp);
  });

  it('shows its name on the sign-in page as text, never markup', async () => {
    const client = await registered({ client_name: '<script>alert(1)</script>' });
    const page = await call('GET', authorizeUrl(client, pkcePair().challenge));
    expect(page.status).toBe(200);
    expect(page.text).not.toContain('<script>alert(1)</script>');
    expect(page.text).toContain('&#60;script&#62;alert(1)&#60;/script&#62;');
  });

  it('may not redirect elsewhere: another host, another loopback path or an https port change is refused on the page', async () => {
    const client = await registered({ redirect_uris: [LOOPBACK, 'https://app.example/cb'] });
    for (const redirectUri of ['http://127.0.0.1:33418/other', 'http://localhost:33418/callback', 'https://app.example:8443/cb', 'https://evil.example/cb', 'http://127.0.0.1:33418/callback/../x']) {
      const page = await call('GET', authorizeUrl({ ...client, redirectUri }, pkcePair().challenge));
      expect(page.status, redirectUri).toBe(400);
      expect(page.headers['location'], redirectUri).toBeUndefined();
    }
  });
});

describe('registration limits', () => {
  it('answers 429 with Retry-After past the per-address limit, while other addresses still register', async () => {
    process.env.REGISTRATIONS_PER_ADDRESS_PER_HOUR = '3';
    resetConfig();
    const address = freshAddress();
    const body = { redirect_uris: ['https://app.example/cb'] };
    for (let i = 0; i < 3; i += 1) expect((await register(body, { sourceIp: address })).status).toBe(201);
    const refused = await register(body, { sourceIp: address });
    expect(refused.status).toBe(429);
    const retryAfter = Number(refused.headers['retry-after']);
    expect(retryAfter).toBeGreaterThan(0);
    expect(retryAfter).toBeLessThanOrEqual(3600);
    expect(refused.json.error).toBe('temporarily_unavailable');
    expect((await register(body)).status).toBe(201);
  });

  it('answers 429 past the limit for everyone together', async () => {
    // Everyone's count already holds the registrations of this file; the limit is what it now is plus two.
    process.env.REGISTRATIONS_PER_HOUR = '1000000';
    resetConfig();
    expect((await register({ redirect_uris: ['https://app.example/cb'] })).status).toBe(201);
    const counted = (await listRegisteredClients()).length;
    process.env.REGISTRATIONS_PER_HOUR = String(counted + 2);
    resetConfig();
    const statuses: number[] = [];
    for (let i = 0; i < 12; i += 1) statuses.push((await register({ redirect_uris: ['https://app.example/cb'] })).status);
    expect(statuses).toContain(429);
    expect(statuses.indexOf(429)).toBeLessThan(10);
    expect(statuses.slice(statuses.indexOf(429)).every((s) => s === 429)).toBe(true);
  });
});

describe('expiry', () => {
  it('a client never used is gone after a day: authorize refuses it, the list no longer shows it', async () => {
    const client = await registered();
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(Date.now() + (UNUSED_CLIENT_SECONDS + 60) * 1000);
    expect(await getOAuthClient(client.clientId)).toBeUndefined();
    expect((await listRegisteredClients()).some((c) => c.clientId === client.clientId)).toBe(false);
    const page = await call('GET', authorizeUrl(client, pkcePair().challenge));
    expect(page.status).toBe(400);
    expect(page.text).toContain('not registered here');
  });

  it('a client that exchanged a code is kept months after its last use, and still works after the first day', async () => {
    const client = await registered();
    const { code, verifier } = await signInFor(client, passwordHash, PASSWORD);
    const tokens = await exchangeCode(client, code, verifier);
    expect(tokens.status).toBe(200);
    const used = (await getOAuthClient(client.clientId))!;
    const now = Math.floor(Date.now() / 1000);
    expect(used.lastUsedAt).toBeGreaterThanOrEqual(now - 5);
    expect(used.expiresAt! - now).toBeGreaterThan(KEPT_AFTER_USE_SECONDS - 10);
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(Date.now() + 2 * UNUSED_CLIENT_SECONDS * 1000);
    expect((await refreshFor(client, tokens.json.refresh_token)).status).toBe(200);
    vi.setSystemTime(Date.now() + (KEPT_AFTER_USE_SECONDS + 60) * 1000);
    expect(await getOAuthClient(client.clientId)).toBeUndefined();
  });
});

describe('revocation', () => {
  it('lists registered clients; revoking one deletes it: authorize refuses it, its refresh tokens and access tokens stop working', async () => {
    const client = await registered({ client_name: 'To revoke' });
    const { code, verifier } = await signInFor(client, passwordHash, PASSWORD);
    const tokens = await exchangeCode(client, code, verifier);
    expect(tokens.status).toBe(200);
    expect((await call('GET', '/FHIR/R5/Patient', { token: tokens.json.access_token })).status).toBe(200);
    const listed = (await runClientsCommand(['list'])).find((line) => line.startsWith(`${client.clientId} `));
    expect(listed).toMatch(/^[A-Za-z0-9]{32} "To revoke" registered \S+, last used \S+, expires \S+, 1 grant\(s\); redirect http:\/\/127\.0\.0\.1:33418\/callback$/);

    expect(await runClientsCommand(['revoke', client.clientId])).toEqual([`revoked ${client.clientId} ("To revoke"): 1 grant(s) ended`]);
    expect(await getOAuthClient(client.clientId)).toBeUndefined();
    expect((await listRegisteredClients()).map((c) => c.clientId)).not.toContain(client.clientId);
    const page = await call('GET', authorizeUrl(client, pkcePair().challenge));
    expect(page.status).toBe(400);
    const refresh = await refreshFor(client, tokens.json.refresh_token);
    expect(refresh.status).toBe(401);
    expect(refresh.json.error).toBe('invalid_client');
    expect((await call('GET', '/FHIR/R5/Patient', { token: tokens.json.access_token })).status).toBe(401);
    expect(await revokeRegisteredClient(client.clientId)).toBeUndefined();
    expect(await runClientsCommand(['revoke', client.clientId])).toEqual([`no registered client "${client.clientId}"`]);
  });

  it('the command refuses what it does not know with its usage', async () => {
    for (const argv of [[], ['nope'], ['revoke'], ['revoke', 'a', 'b'], ['list', 'x']]) await expect(runClientsCommand(argv), argv.join(' ')).rejects.toThrow(/usage: npm run clients/);
  });

  it('revokes only dynamically registered clients', async () => {
    expect(await revokeRegisteredClient('cdx-web')).toBeUndefined();
    expect(await getOAuthClient('cdx-web')).toBeDefined();
  });
});

describe('use of a registered client', () => {
  it('records every grant of exchanges racing each other', async () => {
    const client = await registered();
    const stored = (await getOAuthClient(client.clientId))!;
    await Promise.all([1, 2, 3].map((n) => noteClientUse(stored, { grantId: `race-${n}`, userId: n })));
    expect((await getOAuthClient(client.clientId))!.grants!.map((g) => g.grantId).sort()).toEqual(['race-1', 'race-2', 'race-3']);
  });
});
