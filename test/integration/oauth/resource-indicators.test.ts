/**
 * Tokens for one resource (RFC 8707, docs/access.md): the `resource` of the authorization request,
 * the code and the refresh grant; the audience it gives the access token; `/mcp` taking only its own
 * tokens and the FHIR and management APIs refusing them; `invalid_target`; and the authorization
 * server metadata MCP clients read (RFC 8414: S256, the `iss` of RFC 9207 on every redirect).
 */
import { decodeJwt } from 'jose';
import { beforeAll, describe, expect, it } from 'vitest';
import { hashPassword } from '../../../shared/auth/passwords';
import { config } from '../../../shared/config';
import { ensureServiceClients, WEB_CLIENT_ID } from '../../../shared/oauth/service-clients';
import { makeOrganization, makePractitioner } from '../../support/directory';
import { call, type TestResponse } from '../../support/invoke';
import { FORM, pkcePair, postForm } from '../../support/oauth';

const PASSWORD = 'correct horse battery staple';
let passwordHash: string;
let site: string;
let callback: string;
let mcp: string;
let fhirBase: string;

beforeAll(async () => {
  await ensureServiceClients();
  passwordHash = await hashPassword(PASSWORD);
  site = config().siteUrl;
  callback = `${site}/auth/callback`;
  mcp = `${site}/mcp`;
  fhirBase = `${site}/FHIR/R5`;
});

const MCP_HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-06-18' };
const initialize = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'resource-test', version: '1' } } };

const callMcp = (token: string) => call('POST', '/mcp', { token, headers: MCP_HEADERS, body: initialize });

function authorizeQuery(extra: Record<string, string>, challenge: string): string {
  return new URLSearchParams({ response_type: 'code', client_id: WEB_CLIENT_ID, redirect_uri: callback, scope: 'openid fhirUser user/*.rs offline_access', state: 'st-1', code_challenge: challenge, code_challenge_method: 'S256', ...extra }).toString();
}

/** Signs a new practitioner in at `/o/authorize/`, asking for `resource` when given; the code and its verifier. */
async function signIn(extra: Record<string, string> = {}): Promise<{ code: string; verifier: string; location: URL }> {
  const doctor = await makePractitioner({ organizations: [await makeOrganization()], passwordHash });
  const { verifier, challenge } = pkcePair();
  const page = await call('GET', `/o/authorize/?${authorizeQuery(extra, challenge)}`);
  expect(page.status, page.text.slice(0, 300)).toBe(200);
  const fields: Record<string, string> = {};
  for (const m of page.text.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)">/g)) {
    fields[m[1]!] = m[2]!.replace(/&#(\d+);/g, (_, c) => String.fromCharCode(Number(c)));
  }
  const cookie = page.cookies.find((c) => c.startsWith('cdx_signin='))!.split(';')[0]!;
  const done = await call('POST', '/o/authorize/', { headers: { ...FORM, cookie }, body: new URLSearchParams({ ...fields, email: doctor.email, password: PASSWORD }).toString() });
  expect(done.status).toBe(303);
  const location = new URL(done.headers['location']!);
  return { code: location.searchParams.get('code')!, verifier, location };
}

const exchange = (code: string, verifier: string, extra: Record<string, string> = {}) =>
  postForm('/o/token/', { grant_type: 'authorization_code', code, redirect_uri: callback, client_id: WEB_CLIENT_ID, code_verifier: verifier, ...extra });

const refresh = (refreshToken: string, extra: Record<string, string> = {}) =>
  postForm('/o/token/', { grant_type: 'refresh_token', refresh_token: refreshToken, client_id: WEB_CLIENT_ID, ...extra });

function tokensOf(res: TestResponse): { access_token: string; refresh_token: string } {
  expect(res.status, res.text).toBe(200);
  return res.json;
}

const audienceOf = (token: string) => decodeJwt(token).aud;

function expectInvalidTarget(res: TestResponse) {
  expect(res.status).toBe(400);
  expect(res.json.error).toBe('invalid_target');
}

describe('the authorization server metadata', () => {
  it('publishes RFC 8414 metadata with S256 only and the iss parameter, as OpenID and SMART discovery do', async () => {
    for (const path of ['/.well-known/oauth-authorization-server', '/.well-known/openid-configuration', '/.well-known/smart-configuration']) {
      const res = await call('GET', path);
      expect(res.status, path).toBe(200);
      expect(res.json, path).toMatchObject({ issuer: site, code_challenge_methods_supported: ['S256'], authorization_response_iss_parameter_supported: true });
    }
    const metadata = (await call('GET', '/.well-known/oauth-authorization-server')).json;
    expect(metadata).toMatchObject({ authorization_endpoint: `${site}/o/authorize/`, token_endpoint: `${site}/o/token/`, response_types_supported: ['code'] });
    expect(metadata).toMatchObject({ registration_endpoint: `${site}/o/register/`, client_id_metadata_document_supported: true });
  });

  it('sends iss beside code and state, and beside an error too (RFC 9207)', async () => {
    const { location } = await signIn({ resource: mcp });
    expect([location.searchParams.get('iss'), location.searchParams.get('state')]).toEqual([site, 'st-1']);
    expect(location.searchParams.get('code')).toBeTruthy();
    const refused = await call('GET', `/o/authorize/?${authorizeQuery({ resource: 'https://elsewhere.example/mcp' }, pkcePair().challenge)}`);
    expect(refused.status).toBe(303);
    const error = new URL(refused.headers['location']!);
    expect([error.searchParams.get('error'), error.searchParams.get('state'), error.searchParams.get('iss')]).toEqual(['invalid_target', 'st-1', site]);
    expect(error.searchParams.get('code')).toBeNull();
  });
});

describe('a token issued for /mcp', () => {
  it('carries /mcp as its audience, works on /mcp and is refused by the FHIR and management APIs', async () => {
    const { code, verifier } = await signIn({ resource: mcp });
    const { access_token } = tokensOf(await exchange(code, verifier, { resource: mcp }));
    expect(audienceOf(access_token)).toBe(mcp);
    expect((await callMcp(access_token)).status).toBe(200);
    for (const path of ['/FHIR/R5/Patient', '/fhir/r5/Patient', '/api/v1/patients']) {
      const res = await call('GET', path, { token: access_token });
      expect(res.status, path).toBe(401);
      expect(res.headers['www-authenticate'], path).toContain('error="invalid_token"');
      expect(res.headers['www-authenticate'], path).toContain(`resource=${fhirBase}`);
    }
    // Userinfo is the authorization server's own: it tells any of the service's tokens who they are.
    expect((await call('GET', '/o/userinfo/', { token: access_token })).status).toBe(200);
  });

  it('needs no resource at the token request: the code remembers the one asked at authorize', async () => {
    const { code, verifier } = await signIn({ resource: mcp });
    expect(audienceOf(tokensOf(await exchange(code, verifier)).access_token)).toBe(mcp);
  });

  it('keeps its audience through refreshes; a refresh asking for another resource is invalid_target and changes nothing', async () => {
    const { code, verifier } = await signIn({ resource: mcp });
    const first = tokensOf(await exchange(code, verifier));
    expectInvalidTarget(await refresh(first.refresh_token, { resource: fhirBase }));
    expectInvalidTarget(await refresh(first.refresh_token, { resource: 'https://elsewhere.example/mcp' }));
    // The refused refreshes rotated nothing: the same refresh token still works, once.
    const second = tokensOf(await refresh(first.refresh_token));
    expect(audienceOf(second.access_token)).toBe(mcp);
    const third = tokensOf(await refresh(second.refresh_token, { resource: mcp }));
    expect(audienceOf(third.access_token)).toBe(mcp);
    expect((await callMcp(third.access_token)).status).toBe(200);
  });
});

describe('a token issued without resource (as before)', () => {
  it('keeps the audience of before, works on the FHIR API and is refused by /mcp with its challenge', async () => {
    const { code, verifier } = await signIn();
    const { access_token, refresh_token } = tokensOf(await exchange(code, verifier));
    expect(audienceOf(access_token)).toBe(site);
    expect((await call('GET', '/FHIR/R5/Patient', { token: access_token })).status).toBe(200);
    const res = await callMcp(access_token);
    expect(res.status).toBe(401);
    const challenge = res.headers['www-authenticate']!;
    expect(challenge).toContain(`resource_metadata="${site}/.well-known/oauth-protected-resource/mcp"`);
    expect(challenge).toContain('error="invalid_token"');
    expect(challenge).toContain(`error_description="The access token was not issued for this resource: ask for one with resource=${mcp}."`);
    // Its refresh keeps the audience, and may not move it to /mcp.
    expectInvalidTarget(await refresh(refresh_token, { resource: mcp }));
    expect(audienceOf(tokensOf(await refresh(refresh_token)).access_token)).toBe(site);
  });

  it('is what the FHIR base (either spelling) names as resource', async () => {
    for (const resource of [fhirBase, `${site}/fhir/r5`]) {
      const { code, verifier } = await signIn({ resource });
      const { access_token } = tokensOf(await exchange(code, verifier, { resource: fhirBase }));
      expect(audienceOf(access_token)).toBe(site);
    }
  });
});

describe('invalid_target', () => {
  it('for a resource this service does not serve, at the token endpoint, and the code still works after', async () => {
    const { code, verifier } = await signIn({ resource: mcp });
    for (const resource of ['https://elsewhere.example/mcp', `${site}/mcp/`, `${site}`, '/mcp', 'not a uri']) {
      expectInvalidTarget(await exchange(code, verifier, { resource }));
    }
    expect(audienceOf(tokensOf(await exchange(code, verifier, { resource: mcp })).access_token)).toBe(mcp);
  });

  it("for a token request naming another resource than the code's, either way", async () => {
    const forMcp = await signIn({ resource: mcp });
    expectInvalidTarget(await exchange(forMcp.code, forMcp.verifier, { resource: fhirBase }));
    const forApis = await signIn();
    expectInvalidTarget(await exchange(forApis.code, forApis.verifier, { resource: mcp }));
  });

  it('for a second resource (one value at most)', async () => {
    const { code, verifier } = await signIn({ resource: mcp });
    const body = `${new URLSearchParams({ grant_type: 'authorization_code', code, redirect_uri: callback, client_id: WEB_CLIENT_ID, code_verifier: verifier, resource: mcp })}&resource=${encodeURIComponent(fhirBase)}`;
    const res = await call('POST', '/o/token/', { headers: FORM, body });
    expect(res.status).toBe(400);
    expect(res.json.error).toBe('invalid_request');
  });
});
