/**
 * The `/mcp` endpoint (docs/mcp.md) through the local gateway over HTTP, on the in-memory twins:
 * the SDK's own Client and Streamable HTTP transport as a patient, once pinned to 2026-07-28
 * (server/discover, tools/list, a tool call, resources/read, no initialize; requests whose headers
 * disagree with their body refused) and once on a 2025 revision (initialize), the audit line of a
 * tool call, the 2025 revisions answered statelessly, the 401 that points at the protected resource
 * metadata and that document (for a token of the FHIR API too: `/mcp` takes only tokens issued for
 * it), the 405s of a stateless server, the Origin rule (the site's own origin and the listed ones; the
 * conformance suite's DNS-rebinding check) and bodies that are not MCP (never a 5xx).
 */
import {
  CLIENT_CAPABILITIES_META_KEY,
  CLIENT_INFO_META_KEY,
  Client,
  LATEST_PROTOCOL_VERSION,
  PROTOCOL_VERSION_META_KEY,
  StreamableHTTPClientTransport,
  type CallToolResult,
  type ClientOptions,
  type FetchLike,
} from '@modelcontextprotocol/client';
import { mkdtempSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../../../local/engines';
import { startGateway, type Gateway } from '../../../local/gateway';
import { loadHandlers } from '../../../local/handlers';
import { config, resetConfig } from '../../../shared/config';
import { MCP_SERVER_INFO, TOOLS } from '../../../shared/mcp/server';
import { resetLoggers } from '../../../shared/telemetry/logger';
import { LOG_MESSAGE } from '../../../shared/telemetry/names';
import { forMcp } from '../../support/directory';
import { capturedLines } from '../../support/logs';
import { observation, observationWorld, upload, type ObservationWorld } from '../../support/observations';

// The audit lines are read here (set before the handlers load; the other test files keep them quiet).
process.env.LOG_LEVEL = 'info';
resetConfig();
resetLoggers();

const T = Date.UTC(2026, 0, 5, 8);
const ACCEPT = 'application/json, text/event-stream';

let gateway: Gateway;
let mcpUrl: string;
let a: ObservationWorld;
let b: ObservationWorld;
/** A's token issued for `/mcp` (RFC 8707): the only kind `/mcp` takes. */
let mcpA: string;
const clients: Client[] = [];

beforeAll(async () => {
  // The gateway is the site: the metadata's absolute URLs must name it.
  const port = await freePort();
  process.env.SITE_URL = `http://localhost:${port}`;
  resetConfig();
  gateway = await startGateway({ handlers: await loadHandlers(), staticDir: mkdtempSync(join(tmpdir(), 'cdx-mcp-site-')), port, host: '127.0.0.1' });
  mcpUrl = `${gateway.url}/mcp`;
  a = await observationWorld();
  b = await observationWorld();
  const hr = (world: ObservationWorld, value: number, minute: number) =>
    observation(world, { code: 'omh:heart-rate:2.0', at: T + minute * 60_000, form: 'date_time', members: { heart_rate: { value, unit: 'beats/min' } } });
  expect((await upload(a.patient.token, [hr(a, 70, 0), hr(a, 130, 1)])).status).toBe(200);
  expect((await upload(b.patient.token, [hr(b, 150, 0)])).status).toBe(200);
  mcpA = await forMcp(a.patient.token);
});

afterEach(() => {
  delete process.env.MCP_ALLOWED_ORIGINS;
  resetConfig();
});

afterAll(async () => {
  await Promise.all(clients.map((c) => c.close()));
  await gateway.close();
});

/** The current revision: no initialize, no session, every request carrying its revision and headers. */
const MODERN = '2026-07-28';
const PINNED: ClientOptions = { versionNegotiation: { mode: { pin: MODERN } } };

/** The SDK's client over HTTP: on a 2025 revision (its default, `initialize`) or with `options` (pinned to 2026-07-28). */
async function connect(token: string, options: ClientOptions = {}, fetchVia?: FetchLike): Promise<Client> {
  const transport = new StreamableHTTPClientTransport(new URL(mcpUrl), { requestInit: { headers: { Authorization: `Bearer ${token}` } }, ...(fetchVia ? { fetch: fetchVia } : {}) });
  const client = new Client({ name: 'endpoint-test', version: '1' }, options);
  await client.connect(transport);
  clients.push(client);
  return client;
}

/** What the 2026-07-28 revision asks of every request: the revision, the client and its capabilities in `_meta`. */
const envelope = { [PROTOCOL_VERSION_META_KEY]: MODERN, [CLIENT_INFO_META_KEY]: { name: 'raw', version: '1' }, [CLIENT_CAPABILITIES_META_KEY]: {} };
const modernCall = (name: string, args: Record<string, unknown>) =>
  JSON.stringify({ jsonrpc: '2.0', id: 5, method: 'tools/call', params: { name, arguments: args, _meta: envelope } });

/** A raw POST to `/mcp`, for what the SDK's client never sends. */
function post(body: string, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(mcpUrl, { method: 'POST', headers: { 'content-type': 'application/json', accept: ACCEPT, ...headers }, body });
}

/** A raw POST to `/mcp` over `node:http`, which (unlike fetch) sends the `Host` it is given, as a rebinding page's browser does. */
function postWithHost(body: string, headers: Record<string, string>): Promise<{ status: number; body: string }> {
  const { hostname, port } = new URL(mcpUrl);
  return new Promise((resolve, reject) => {
    const req = request({ hostname, port, path: '/mcp', method: 'POST', headers: { 'content-type': 'application/json', accept: ACCEPT, ...headers } }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.on('end', () => resolve({ status: res.statusCode!, body: text }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

const initialize = (protocolVersion: string) =>
  JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion, capabilities: {}, clientInfo: { name: 'raw', version: '1' } } });

describe('the SDK client pinned to 2026-07-28, as a patient', () => {
  it('discovers the server with no initialize and no session, lists every tool, calls one and reads a resource', async () => {
    const sent: string[] = [];
    const client = await connect(mcpA, PINNED, async (url, init) => {
      sent.push(String(JSON.parse(String(init?.body ?? '{}')).method));
      return fetch(url, init);
    });
    expect(client.getProtocolEra()).toBe('modern');
    expect(client.getNegotiatedProtocolVersion()).toBe(MODERN);
    expect(client.getDiscoverResult()).toMatchObject({ supportedVersions: [MODERN], capabilities: { tools: {}, resources: {} } });
    expect(client.getServerVersion()).toEqual(MCP_SERVER_INFO);
    expect((client.transport as StreamableHTTPClientTransport).sessionId).toBeUndefined();

    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toEqual(TOOLS.map((t) => t.name));
    expect(tools.every((t) => t.inputSchema.type === 'object' && t.outputSchema?.type === 'object')).toBe(true);
    const result = (await client.callTool({ name: 'search_readings_by_value', arguments: { readingType: 'heart-rate', comparator: 'gt', value: 120 } })) as CallToolResult;
    expect(result.isError, JSON.stringify(result.content)).toBeFalsy();
    expect(result.structuredContent).toMatchObject({ patientId: a.patient.id, total: 1, readings: [{ values: [{ name: 'heart_rate', value: 130 }] }] });
    const { contents } = await client.readResource({ uri: 'omh://schema/omh:heart-rate:2.0' });
    expect(JSON.parse((contents[0] as { text: string }).text)).toMatchObject({ code: 'omh:heart-rate:2.0' });
    expect(sent).toEqual(['server/discover', 'tools/list', 'tools/call', 'resources/read']);
  });

  it('answers in one JSON body, and puts the tool call in the audit trail', async () => {
    const client = await connect(mcpA, PINNED);
    const { lines } = await capturedLines(() => client.callTool({ name: 'get_readings', arguments: { readingType: 'heart-rate' } }));
    const audit = lines.filter((l) => l.message === LOG_MESSAGE.audit).map((l) => l.audit);
    expect(audit).toEqual([
      { action: 'read', resourceType: '/mcp', route: 'POST /mcp', who: { kind: 'patient', userId: a.patient.userId }, patients: [a.patient.id], result: 200, operations: ['tools/call get_readings'] },
    ]);
    const res = await post(modernCall('get_readings', { readingType: 'heart-rate' }), {
      authorization: `Bearer ${mcpA}`, 'mcp-protocol-version': MODERN, 'mcp-method': 'tools/call', 'mcp-name': 'get_readings',
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('application/json');
    expect(res.headers.get('mcp-session-id')).toBeNull();
    expect((await res.json()).result.structuredContent.readings).toHaveLength(2);
  });

  it("refuses a tool call whose Mcp-Name header names another tool than its body (the client's own request, altered on the way)", async () => {
    const client = await connect(mcpA, PINNED, async (url, init) => {
      const headers = new Headers(init?.headers);
      if (headers.get('mcp-method') === 'tools/call') headers.set('mcp-name', 'list_studies');
      return fetch(url, { ...init, headers });
    });
    let refusal: unknown;
    const { lines } = await capturedLines(() => client.callTool({ name: 'get_readings', arguments: { readingType: 'heart-rate' } }).catch((error: unknown) => (refusal = error)));
    expect(refusal).toMatchObject({ code: -32020 });
    const audit = lines.filter((l) => l.message === LOG_MESSAGE.audit).map((l) => l.audit);
    // Every altered call refused (the client tries once more after refreshing the tool list), before any tool ran: no patient's data read.
    const calls = audit.filter((line) => line.operations.includes('tools/call get_readings'));
    expect(calls.length).toBeGreaterThan(0);
    for (const line of calls) expect(line).toMatchObject({ result: 400, patients: [] });
  });

  it('refuses requests whose headers disagree with their body with a 400 JSON-RPC error, before any tool runs', async () => {
    const auth = { authorization: `Bearer ${mcpA}` };
    const body = modernCall('get_readings', { readingType: 'heart-rate' });
    const headersOf = (overrides: Record<string, string | undefined>) =>
      Object.fromEntries(Object.entries({ ...auth, 'mcp-protocol-version': MODERN, 'mcp-method': 'tools/call', 'mcp-name': 'get_readings', ...overrides }).filter(([, v]) => v !== undefined)) as Record<string, string>;
    for (const overrides of [{ 'mcp-method': 'tools/list' }, { 'mcp-name': 'list_studies' }, { 'mcp-protocol-version': '2025-11-25' }, { 'mcp-method': undefined }]) {
      const res = await post(body, headersOf(overrides));
      const answer = await res.json();
      expect(res.status, JSON.stringify(overrides)).toBe(400);
      expect(answer, JSON.stringify(overrides)).toMatchObject({ jsonrpc: '2.0', error: { code: expect.any(Number) } });
      expect(answer.result).toBeUndefined();
    }
    // The same request with headers that agree is answered.
    expect((await post(body, headersOf({}))).status).toBe(200);
    // A revision this server does not serve is named as such, with the one it does.
    const unknown = await post(body.replace(MODERN, '2099-01-01'), headersOf({ 'mcp-protocol-version': '2099-01-01' }));
    expect(unknown.status).toBe(400);
    expect((await unknown.json()).error).toMatchObject({ code: -32022, data: { supported: [MODERN] } });
  });
});

describe('2026-07-28 requests a stateless endpoint ends at once', () => {
  it('acknowledges a subscriptions/listen with nothing to follow and closes it (the lists never change)', async () => {
    const listen = JSON.stringify({ jsonrpc: '2.0', id: 9, method: 'subscriptions/listen', params: { notifications: { toolsListChanged: true, resourcesListChanged: true }, _meta: envelope } });
    const started = Date.now();
    const res = await post(listen, { authorization: `Bearer ${mcpA}`, 'mcp-protocol-version': MODERN, 'mcp-method': 'subscriptions/listen' });
    expect(res.status).toBe(200);
    const events = (await res.text()).split('\n').filter((line) => line.startsWith('data: ')).map((line) => JSON.parse(line.slice(6)));
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(events).toMatchObject([{ method: 'notifications/subscriptions/acknowledged' }, { id: 9, result: { resultType: 'complete' } }]);
    // Nothing honoured: no list ever changes.
    expect(events[0].params.notifications).toEqual({});
  });
});

describe('the SDK client on a 2025 revision, as a patient', () => {
  it('initializes on the latest revision the SDK has, lists every tool and calls one', async () => {
    const client = await connect(mcpA);
    expect(client.getServerVersion()).toEqual(MCP_SERVER_INFO);
    expect(client.getProtocolEra()).toBe('legacy');
    expect((client.transport as StreamableHTTPClientTransport).protocolVersion).toBe(LATEST_PROTOCOL_VERSION);
    // Stateless: no session to carry from one request to the next.
    expect((client.transport as StreamableHTTPClientTransport).sessionId).toBeUndefined();
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toEqual(TOOLS.map((t) => t.name));

    const result = (await client.callTool({ name: 'search_readings_by_value', arguments: { readingType: 'heart-rate', comparator: 'gt', value: 120 } })) as CallToolResult;
    expect(result.isError, JSON.stringify(result.content)).toBeFalsy();
    expect(result.structuredContent).toMatchObject({ patientId: a.patient.id, total: 1, readings: [{ values: [{ name: 'heart_rate', value: 130 }] }] });
  });

  it('reads a schema resource', async () => {
    const client = await connect(mcpA);
    const { contents } = await client.readResource({ uri: 'omh://schema/omh:heart-rate:2.0' });
    expect(contents[0]).toMatchObject({ uri: 'omh://schema/omh:heart-rate:2.0', mimeType: 'application/json' });
    expect(JSON.parse((contents[0] as { text: string }).text)).toMatchObject({ code: 'omh:heart-rate:2.0' });
  });

  it("answers another organization's patient exactly as an unknown one", async () => {
    const client = await connect(mcpA);
    const other = (await client.callTool({ name: 'get_patient', arguments: { patientId: b.patient.id } })) as CallToolResult;
    const unknown = (await client.callTool({ name: 'get_patient', arguments: { patientId: 987_654_321 } })) as CallToolResult;
    expect(other.isError).toBe(true);
    const text = (r: CallToolResult) => (r.content[0] as { text: string }).text;
    expect(text(other).replace(String(b.patient.id), 'N')).toBe(text(unknown).replace('987654321', 'N'));
    expect(text(other)).not.toContain(b.patient.nameFamily);
  });

  it('puts each tool call in the audit trail: who, which tool, which patients', async () => {
    const client = await connect(mcpA);
    const { lines } = await capturedLines(() => client.callTool({ name: 'get_readings', arguments: { readingType: 'heart-rate' } }));
    const audit = lines.filter((l) => l.message === LOG_MESSAGE.audit).map((l) => l.audit);
    expect(audit).toEqual([
      { action: 'read', resourceType: '/mcp', route: 'POST /mcp', who: { kind: 'patient', userId: a.patient.userId }, patients: [a.patient.id], result: 200, operations: ['tools/call get_readings'] },
    ]);
  });
});

describe('the 2025 revisions, answered statelessly', () => {
  it.each(['2025-03-26', '2025-06-18', '2025-11-25'])('initialize at %s answers that revision, with no session id', async (revision) => {
    const res = await post(initialize(revision), { authorization: `Bearer ${mcpA}` });
    expect(res.status).toBe(200);
    expect(res.headers.get('mcp-session-id')).toBeNull();
    expect(res.headers.get('content-type')).toContain('application/json');
    const body = await res.json();
    expect(body.result).toMatchObject({ protocolVersion: revision, serverInfo: MCP_SERVER_INFO, capabilities: { tools: {}, resources: {} } });
  });

  it('answers a tools/list sent with no initialize before it (any instance answers any request)', async () => {
    const res = await post(JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'tools/list' }), { authorization: `Bearer ${mcpA}`, 'mcp-protocol-version': '2025-06-18' });
    expect(res.status).toBe(200);
    expect((await res.json()).result.tools).toHaveLength(TOOLS.length);
  });
});

describe('discovery for a client without a token', () => {
  it.each([
    ['no token', {}],
    ['an invalid token', { authorization: 'Bearer not-a-token' }],
  ])('%s is a 401 whose challenge names the protected resource metadata and the scopes', async (_name, headers) => {
    const res = await post(initialize(LATEST_PROTOCOL_VERSION), headers);
    expect(res.status).toBe(401);
    const challenge = res.headers.get('www-authenticate')!;
    expect(challenge).toMatch(/^Bearer realm="cdx", /);
    expect(challenge).toContain(`resource_metadata="${gateway.url}/.well-known/oauth-protected-resource/mcp"`);
    expect(challenge).toContain('scope="openid fhirUser patient/*.rs user/*.rs"');
  });

  it("a token of the FHIR API (issued without resource=<site>/mcp) is the same 401, saying it was not issued for /mcp", async () => {
    const res = await post(initialize(LATEST_PROTOCOL_VERSION), { authorization: `Bearer ${a.patient.token}` });
    expect(res.status).toBe(401);
    const challenge = res.headers.get('www-authenticate')!;
    expect(challenge).toMatch(/^Bearer realm="cdx", /);
    expect(challenge).toContain(`resource_metadata="${gateway.url}/.well-known/oauth-protected-resource/mcp"`);
    expect(challenge).toContain('error="invalid_token"');
    expect(challenge).toContain(`error_description="The access token was not issued for this resource: ask for one with resource=${mcpUrl}."`);
  });

  it('serves the metadata: the resource, this service as its authorization server, the scopes, header tokens only', async () => {
    const res = await fetch(`${gateway.url}/.well-known/oauth-protected-resource/mcp`);
    expect(res.status).toBe(200);
    expect(res.headers.get('access-control-allow-origin')).toBe('*');
    expect(await res.json()).toEqual({
      resource: mcpUrl,
      authorization_servers: [gateway.url],
      scopes_supported: ['openid', 'fhirUser', 'patient/*.rs', 'user/*.rs', 'system/*.rs'],
      bearer_methods_supported: ['header'],
    });
    // The authorization server it names publishes its own metadata.
    const issuer = await (await fetch(`${gateway.url}/.well-known/oauth-authorization-server`)).json();
    expect(issuer).toMatchObject({ issuer: gateway.url, code_challenge_methods_supported: ['S256'], authorization_response_iss_parameter_supported: true });
  });

  it('names the site URL, never the Host the client sent', async () => {
    const res = await fetch(`${gateway.url}/.well-known/oauth-protected-resource/mcp`, { headers: { 'x-forwarded-host': 'evil.example' } });
    expect(JSON.stringify(await res.json())).not.toContain('evil');
  });
});

describe('what a stateless server refuses', () => {
  it.each(['GET', 'DELETE'])('%s /mcp is a 405 allowing POST (and the preflight OPTIONS) only: no session, no SSE stream', async (method) => {
    const res = await fetch(mcpUrl, { method, headers: { authorization: `Bearer ${mcpA}`, accept: ACCEPT } });
    expect(res.status).toBe(405);
    expect(res.headers.get('allow')).toBe('POST, OPTIONS');
  });

  it('refuses a foreign Origin with 403 before anyone is asked; an allowed one passes', async () => {
    const foreign = await post(initialize(LATEST_PROTOCOL_VERSION), { authorization: `Bearer ${mcpA}`, origin: 'https://evil.example' });
    expect(foreign.status).toBe(403);
    expect(foreign.headers.get('www-authenticate')).toBeNull();
    expect((await post(initialize(LATEST_PROTOCOL_VERSION), { origin: 'https://evil.example' })).status).toBe(403);
    process.env.MCP_ALLOWED_ORIGINS = 'https://inspector.example, http://localhost:6274';
    resetConfig();
    expect((await post(initialize(LATEST_PROTOCOL_VERSION), { authorization: `Bearer ${mcpA}`, origin: 'http://localhost:6274' })).status).toBe(200);
    expect((await post(initialize(LATEST_PROTOCOL_VERSION), { authorization: `Bearer ${mcpA}`, origin: 'https://other.example' })).status).toBe(403);
  });

  it("takes the site's own origin without MCP_ALLOWED_ORIGINS; any other origin, its near neighbours included, is a 403", async () => {
    const site = new URL(config().siteUrl);
    const auth = { authorization: `Bearer ${mcpA}` };
    const initialized = await post(initialize(LATEST_PROTOCOL_VERSION), { ...auth, origin: site.origin });
    expect(initialized.status).toBe(200);
    expect((await initialized.json()).result).toMatchObject({ protocolVersion: LATEST_PROTOCOL_VERSION, serverInfo: MCP_SERVER_INFO });
    const listed = await post(JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list' }), { ...auth, origin: site.origin, 'mcp-protocol-version': LATEST_PROTOCOL_VERSION });
    expect(listed.status).toBe(200);
    expect((await listed.json()).result.tools).toHaveLength(TOOLS.length);
    // The origin passes; the token is still needed.
    expect((await post(initialize(LATEST_PROTOCOL_VERSION), { origin: site.origin })).status).toBe(401);
    // Origins are compared exactly: another port, scheme or spelling of the host is another origin.
    const port = Number(site.port);
    const near = ['https://evil.example', `http://localhost:${port + 1}`, `http://127.0.0.1:${port}`, `https://localhost:${port}`, 'http://localhost', `${site.origin}.evil.example`, 'null'];
    for (const origin of near) {
      const res = await post(initialize(LATEST_PROTOCOL_VERSION), { ...auth, origin });
      expect(res.status, origin).toBe(403);
      expect(res.headers.get('access-control-allow-origin'), origin).toBeNull();
    }
  });

  it('passes the DNS-rebinding check as the MCP conformance suite runs it (its Host and Origin, plus the token this server needs)', async () => {
    const site = new URL(config().siteUrl);
    const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'conformance-dns-rebinding-test', version: '1.0.0' } } });
    const send = (host: string) => postWithHost(body, { host, origin: `http://${host}`, authorization: `Bearer ${mcpA}` });
    const rebound = await send('evil.example.com');
    expect(rebound.status).toBe(403);
    const local = await send(site.host);
    expect(local.status).toBe(200);
    expect(JSON.parse(local.body).result.protocolVersion).toBe('2025-11-25');
  });

  it('answers bodies that are not MCP with a 4xx, never a 5xx', async () => {
    const auth = { authorization: `Bearer ${mcpA}` };
    const malformed = await post('{"jsonrpc": "2.0", "id": 1, "method":', auth);
    expect(malformed.status).toBe(400);
    // Valid JSON that is no JSON-RPC message: the SDK's own JSON-RPC error.
    const notRpc = await post(JSON.stringify({ hello: 'world' }), auth);
    expect(notRpc.status).toBe(400);
    expect(await notRpc.json()).toMatchObject({ jsonrpc: '2.0', error: { code: expect.any(Number) } });
    const unknownMethod = await post(JSON.stringify({ jsonrpc: '2.0', id: 3, method: 'no/such/method' }), auth);
    expect(unknownMethod.status).toBe(200);
    expect((await unknownMethod.json()).error.code).toBe(-32601);
    const empty = await fetch(mcpUrl, { method: 'POST', headers: { 'content-type': 'application/json', accept: ACCEPT, ...auth } });
    expect(empty.status).toBe(400);
    const text = await post(initialize(LATEST_PROTOCOL_VERSION), { ...auth, 'content-type': 'text/plain' });
    expect(text.status).toBe(415);
    const fhirJson = await post(initialize(LATEST_PROTOCOL_VERSION), { ...auth, 'content-type': 'application/fhir+json' });
    expect(fhirJson.status).toBe(415);
    const noAccept = await fetch(mcpUrl, { method: 'POST', headers: { 'content-type': 'application/json', ...auth }, body: initialize(LATEST_PROTOCOL_VERSION) });
    expect(noAccept.status).toBe(406);
    const big = await post(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping', params: { pad: 'x'.repeat(6 * 1024 * 1024) } }), auth);
    expect(big.status).toBe(413);
  });
});
