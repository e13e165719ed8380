/**
 * Clients identified by a Client ID Metadata Document: the `client_id` is a URL the service fetches
 * from a loopback server this file runs (plain http to loopback is allowed only by
 * `JWKS_URI_LOOPBACK=1`, the tests' setting), checks and keeps as its Cache-Control says (five
 * minutes to a day). Such a client completes the authorization code flow with PKCE for `/mcp`;
 * documents that lie about their URL, ask for a secret or name bad redirect URIs are refused; and a
 * URL pointing at an internal address is refused without a request being made to it. The operator
 * lists those that exchanged a code and revokes them (or a URL never used here): authorize and
 * token then refuse the URL without fetching it, and its grants end.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { decodeJwt } from 'jose';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { hashPassword } from '../../../shared/auth/passwords';
import { config, resetConfig } from '../../../shared/config';
import { resetClock, useClock } from '../../../shared/oauth/clock';
import { forgetClientDocuments, MAX_DOCUMENT_BYTES, REFUSAL_KEEP_MS } from '../../../shared/oauth/metadata-documents';
import { GREATEST_WAIT_MS } from '../../../shared/oauth/public-fetch';
import { runClientsCommand } from '../../../scripts/clients';
import { getOAuthClient } from '../../../shared/directory/oauth-clients';
import { getUser } from '../../../shared/directory/users';
import { documentClient } from '../../../shared/oauth/metadata-documents';
import { KEPT_AFTER_USE_SECONDS, listRegisteredClients, noteClientUse, REVOKED_DOCUMENT } from '../../../shared/oauth/clients';
import { makeOrganization, makePractitioner } from '../../support/directory';
import { call } from '../../support/invoke';
import { pkcePair } from '../../support/oauth';
import { authorizeUrl, exchangeCode, refreshFor, signInFor, unescapeHtml, type FlowClient } from '../../support/oauth-flow';

const PASSWORD = 'correct horse battery staple';
const REDIRECT = 'http://127.0.0.1:43123/callback';
let passwordHash: string;
let server: Server;
let base: string;
/** What the fixture serves per path, and how often each was asked. */
const documents = new Map<string, { body: string; cacheControl?: string; status?: number; location?: string }>();
const hits = new Map<string, number>();
let anyHits = 0;

const documentOf = (path: string, extra: Record<string, unknown> = {}) =>
  JSON.stringify({ client_id: `${base}${path}`, client_name: 'Document assistant', redirect_uris: [REDIRECT], grant_types: ['authorization_code', 'refresh_token'], response_types: ['code'], token_endpoint_auth_method: 'none', ...extra });

function serve(path: string, doc: { body: string; cacheControl?: string; status?: number; location?: string }): FlowClient {
  documents.set(path, doc);
  return { clientId: `${base}${path}`, redirectUri: REDIRECT };
}

const useLoopback = (on: boolean) => {
  if (on) process.env.JWKS_URI_LOOPBACK = '1';
  else delete process.env.JWKS_URI_LOOPBACK;
  resetConfig();
};

beforeAll(async () => {
  passwordHash = await hashPassword(PASSWORD);
  server = createServer((req, res) => {
    anyHits += 1;
    const path = req.url ?? '/';
    hits.set(path, (hits.get(path) ?? 0) + 1);
    const doc = documents.get(path);
    if (!doc) {
      res.writeHead(404);
      return res.end();
    }
    if (path === '/slow.json') return void setTimeout(() => res.end(doc.body), GREATEST_WAIT_MS + 2000).unref();
    res.writeHead(doc.status ?? 200, { 'content-type': 'application/json', ...(doc.cacheControl ? { 'cache-control': doc.cacheControl } : {}), ...(doc.location ? { location: doc.location } : {}) });
    return res.end(doc.body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterEach(() => {
  resetClock();
  forgetClientDocuments();
  useLoopback(true);
});

afterAll(async () => {
  useLoopback(false);
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

/** The sign-in page's answer for the client: 200, or the 400 problem page and its text. */
const authorizePage = (client: FlowClient) => call('GET', authorizeUrl(client, pkcePair().challenge));

describe('a metadata-document client', () => {
  it('completes the authorization code flow with PKCE for resource=<site>/mcp and refreshes, on any loopback port', async () => {
    useLoopback(true);
    const client = serve('/assistant.json', { body: documentOf('/assistant.json') });
    const mcp = `${config().siteUrl}/mcp`;
    const onAnotherPort = { ...client, redirectUri: 'http://127.0.0.1:50111/callback' };
    const { code, verifier, location } = await signInFor(onAnotherPort, passwordHash, PASSWORD, { resource: mcp });
    expect(`${location.origin}${location.pathname}`).toBe('http://127.0.0.1:50111/callback');
    const tokens = await exchangeCode(onAnotherPort, code, verifier, { resource: mcp });
    expect(tokens.status, tokens.text).toBe(200);
    expect(decodeJwt(tokens.json.access_token).aud).toBe(mcp);
    const refreshed = await refreshFor(client, tokens.json.refresh_token);
    expect(refreshed.status, refreshed.text).toBe(200);
    // The page, its post, the exchange and the refresh used one fetch: the document was kept.
    expect(hits.get('/assistant.json')).toBe(1);
  });

  it('shows the document\'s name as text on the sign-in page', async () => {
    const client = serve('/named.json', { body: documentOf('/named.json', { client_name: '<img src=x onerror=alert(1)>' }) });
    const page = await authorizePage(client);
    expect(page.status).toBe(200);
    expect(page.text).not.toContain('<img src=x');
    expect(page.text).toContain('&#60;img src=x onerror=alert(1)&#62;');
  });

  it('is kept as its Cache-Control says, at least five minutes and at most a day', async () => {
    let now = Date.now();
    useClock(() => now);
    const short = serve('/short.json', { body: documentOf('/short.json'), cacheControl: 'max-age=10' });
    expect((await authorizePage(short)).status).toBe(200);
    now += 60_000;
    expect((await authorizePage(short)).status).toBe(200);
    expect(hits.get('/short.json')).toBe(1);
    now += 5 * 60_000;
    expect((await authorizePage(short)).status).toBe(200);
    expect(hits.get('/short.json')).toBe(2);

    const long = serve('/long.json', { body: documentOf('/long.json'), cacheControl: 'max-age=31536000' });
    expect((await authorizePage(long)).status).toBe(200);
    now += 23 * 3600_000;
    expect((await authorizePage(long)).status).toBe(200);
    expect(hits.get('/long.json')).toBe(1);
    now += 2 * 3600_000;
    expect((await authorizePage(long)).status).toBe(200);
    expect(hits.get('/long.json')).toBe(2);
  });

  it('may not redirect to a URI its document does not list', async () => {
    const client = serve('/strict.json', { body: documentOf('/strict.json') });
    const page = await authorizePage({ ...client, redirectUri: 'https://evil.example/callback' });
    expect(page.status).toBe(400);
    expect(page.headers['location']).toBeUndefined();
  });
});

describe('documents refused', () => {
  it('refuses a document that is not its URL\'s, asks for a secret, has bad redirect URIs, or is not a usable document', async () => {
    const cases: Array<[string, { body: string; status?: number; location?: string }, RegExp]> = [
      ['/other-id.json', { body: documentOf('/other-id.json', { client_id: 'https://elsewhere.example/client.json' }) }, /client_id is not its own URL/],
      ['/no-id.json', { body: JSON.stringify({ redirect_uris: [REDIRECT] }) }, /client_id is not its own URL/],
      ['/secret.json', { body: documentOf('/secret.json', { token_endpoint_auth_method: 'client_secret_basic' }) }, /public clients/],
      ['/bad-redirect.json', { body: documentOf('/bad-redirect.json', { redirect_uris: ['http://evil.example/cb'] }) }, /must be https/],
      ['/fragment.json', { body: documentOf('/fragment.json', { redirect_uris: ['https://app.example/cb#x'] }) }, /fragment/],
      ['/not-json.json', { body: '<html>client</html>' }, /not JSON/],
      ['/list.json', { body: '[]' }, /client_id is not its own URL/],
      ['/missing.json', { body: '', status: 404 }, /answered 404/],
      ['/redirect.json', { body: '', status: 302, location: 'http://169.254.169.254/latest/meta-data' }, /answered 302/],
      ['/big.json', { body: documentOf('/big.json', { padding: 'x'.repeat(MAX_DOCUMENT_BYTES) }) }, /larger than/],
      ['/deep.json', { body: `{"client_id": "x", "a": ${'['.repeat(50)}${']'.repeat(50)}}` }, /nests too deeply/],
    ];
    for (const [path, doc, why] of cases) {
      const client = serve(path, doc);
      const page = await authorizePage(client);
      expect(page.status, path).toBe(400);
      expect(page.text, path).toMatch(why);
      const token = await refreshFor(client, 'a'.repeat(48));
      expect(token.status, path).toBe(401);
      expect(token.json.error, path).toBe('invalid_client');
    }
    // The redirect was not followed.
    expect(hits.get('/latest/meta-data')).toBeUndefined();
  });

  it('keeps a refusal a minute: a URL named again is not fetched again until then', async () => {
    let now = Date.now();
    useClock(() => now);
    const client = serve('/refused-once.json', { body: documentOf('/refused-once.json', { client_id: 'https://elsewhere.example/c.json' }) });
    for (let i = 0; i < 3; i += 1) expect((await authorizePage(client)).status).toBe(400);
    expect(hits.get('/refused-once.json')).toBe(1);
    serve('/refused-once.json', { body: documentOf('/refused-once.json') });
    now += REFUSAL_KEEP_MS + 1000;
    expect((await authorizePage(client)).status).toBe(200);
    expect(hits.get('/refused-once.json')).toBe(2);
  });

  it('gives up on a document that does not arrive in time', async () => {
    const client = serve('/slow.json', { body: documentOf('/slow.json') });
    const page = await authorizePage(client);
    expect(page.status).toBe(400);
    expect(page.text).toMatch(/no answer within/);
  });

  it('refuses URLs that name internal addresses, without a request being made to them', async () => {
    const port = new URL(base).port;
    serve('/internal.json', { body: documentOf('/internal.json') });
    const before = anyHits;
    for (const clientId of ['https://169.254.169.254/latest/client.json', 'https://10.0.0.1/client.json', 'https://192.168.0.10/client.json', 'https://[::1]/client.json', 'https://[fd00::1]/client.json', 'https://0.0.0.0/client.json', 'https://user:pw@app.example/client.json', 'https://app.example/', 'https://app.example/a/../client.json']) {
      const page = await authorizePage({ clientId, redirectUri: REDIRECT });
      expect(page.status, clientId).toBe(400);
    }
    // Without the tests' setting, the loopback server itself is internal: by address, and by a name resolving to it.
    useLoopback(false);
    for (const clientId of [`${base}/internal.json`, `https://127.0.0.1:${port}/internal.json`, `https://localhost:${port}/internal.json`]) {
      const page = await authorizePage({ clientId, redirectUri: REDIRECT });
      expect(page.status, clientId).toBe(400);
      expect(page.text, clientId).toMatch(/https URL|public host|not public/);
    }
    expect(anyHits).toBe(before);
  });
});

describe('the operator\'s list and revocation', () => {
  const mcp = () => `${config().siteUrl}/mcp`;
  const PING = { jsonrpc: '2.0', id: 1, method: 'ping' };
  const MCP_HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-06-18' };
  const lineOf = async (clientId: string) => (await runClientsCommand(['list'])).find((line) => line.startsWith(`${clientId} `));

  it('records a client at its first code exchange, with each grant and its last use; it is not recorded before', async () => {
    const client = serve('/listed.json', { body: documentOf('/listed.json', { client_name: 'Listed assistant' }) });
    const first = await signInFor(client, passwordHash, PASSWORD, { resource: mcp() });
    // Signing in shows pages and issues a code, but stores no client: only an exchange does.
    expect(await getOAuthClient(client.clientId)).toBeUndefined();
    expect((await exchangeCode(client, first.code, first.verifier, { resource: mcp() })).status).toBe(200);
    const now = Math.floor(Date.now() / 1000);
    const recorded = (await getOAuthClient(client.clientId))!;
    expect(recorded).toMatchObject({ registration: 'metadata-document', name: 'Listed assistant', redirectUris: [REDIRECT], type: 'public' });
    expect(recorded.lastUsedAt).toBeGreaterThanOrEqual(now - 5);
    expect(recorded.expiresAt! - now).toBeGreaterThan(KEPT_AFTER_USE_SECONDS - 10);
    expect(recorded.grants).toHaveLength(1);

    const second = await signInFor(client, passwordHash, PASSWORD, { resource: mcp() });
    expect((await exchangeCode(client, second.code, second.verifier, { resource: mcp() })).status).toBe(200);
    expect((await getOAuthClient(client.clientId))!.grants).toHaveLength(2);
    expect(await lineOf(client.clientId)).toMatch(
      new RegExp(`^${client.clientId.replace(/[.]/g, '\\.')} "Listed assistant" metadata document, first used \\S+, last used \\S+, expires \\S+, 2 grant\\(s\\); redirect ${REDIRECT}$`),
    );
    expect((await listRegisteredClients()).filter((c) => c.clientId === client.clientId)).toHaveLength(1);
  });

  it('revoking one refuses its URL at authorize and token without fetching it, and ends its refresh and access tokens', async () => {
    const client = serve('/revoked.json', { body: documentOf('/revoked.json', { client_name: 'To revoke' }) });
    const { code, verifier } = await signInFor(client, passwordHash, PASSWORD, { resource: mcp() });
    const tokens = await exchangeCode(client, code, verifier, { resource: mcp() });
    expect(tokens.status).toBe(200);
    const ping = () => call('POST', '/mcp', { token: tokens.json.access_token, headers: MCP_HEADERS, body: PING });
    expect((await ping()).status).toBe(200);

    expect(await runClientsCommand(['revoke', client.clientId])).toEqual([`revoked ${client.clientId} ("To revoke"): 1 grant(s) ended; authorize and token refuse it from now on`]);
    const record = (await getOAuthClient(client.clientId))!;
    expect(record.revokedAt).toBeGreaterThan(0);
    expect(record.expiresAt).toBeUndefined();
    expect(record.grants).toBeUndefined();
    expect(await lineOf(client.clientId)).toMatch(/ "To revoke" metadata document, revoked \S+: refused at authorize and token$/);

    forgetClientDocuments();
    const fetched = hits.get('/revoked.json');
    const page = await authorizePage(client);
    expect(page.status).toBe(400);
    expect(unescapeHtml(page.text)).toContain(REVOKED_DOCUMENT);
    const refresh = await refreshFor(client, tokens.json.refresh_token);
    expect(refresh.status).toBe(401);
    expect(refresh.json).toMatchObject({ error: 'invalid_client' });
    expect(refresh.json.error_description).toContain(REVOKED_DOCUMENT);
    expect(hits.get('/revoked.json')).toBe(fetched);
    expect((await ping()).status).toBe(401);

    expect(await runClientsCommand(['revoke', client.clientId])).toEqual([`${client.clientId} was revoked already, at ${new Date(record.revokedAt! * 1000).toISOString()}`]);
  });

  it('revokes a URL never used here: it is listed and refused from then on, its document never fetched', async () => {
    const client = serve('/never-used.json', { body: documentOf('/never-used.json') });
    const host = new URL(base).host;
    expect(await runClientsCommand(['revoke', client.clientId])).toEqual([`revoked ${client.clientId} ("${host}"): 0 grant(s) ended; authorize and token refuse it from now on`]);
    expect(await lineOf(client.clientId)).toMatch(/metadata document, revoked \S+: refused at authorize and token$/);
    expect((await authorizePage(client)).status).toBe(400);
    expect(hits.get('/never-used.json')).toBeUndefined();
  });

  it('revoking a URL that cannot be a metadata document, or an unknown client, changes nothing', async () => {
    const before = await runClientsCommand(['list']);
    for (const clientId of ['https://169.254.169.254/latest/client.json', 'https://app.example/', 'https://app.example/a/../c.json', `https://app.example/${'x'.repeat(600)}`, 'no-such-client']) {
      expect(await runClientsCommand(['revoke', clientId]), clientId).toEqual([`no registered client ${JSON.stringify(clientId)}`]);
    }
    expect(await runClientsCommand(['list'])).toEqual(before);
  });

  it('an exchange that races the revocation ends the grant it started', async () => {
    const client = serve('/raced.json', { body: documentOf('/raced.json') });
    const described = await documentClient(client.clientId);
    await runClientsCommand(['revoke', client.clientId]);
    const person = await makePractitioner({ organizations: [await makeOrganization()] });
    await noteClientUse(described, { grantId: 'raced-grant', userId: person.id });
    expect(Object.keys((await getUser(person.id))!.revocations ?? {})).toContain('sid:raced-grant');
    expect((await getOAuthClient(client.clientId))!.grants).toBeUndefined();
  });
});
