/**
 * CORS on `/mcp` (docs/mcp.md#cors-on-mcp), through the family's handler on the in-memory twins: a
 * page on an origin of MCP_ALLOWED_ORIGINS gets its preflight answered and every answer (refusals
 * included: a browser hides from the app what lacks them) names its origin; a foreign origin is a
 * 403, preflight too, and is never named; the site's own origin is allowed without being listed; a
 * request without `Origin` is no browser's.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { config, resetConfig } from '../../../shared/config';
import { forMcp } from '../../support/directory';
import { call } from '../../support/invoke';
import { observationWorld, type ObservationWorld } from '../../support/observations';

const ALLOWED = 'https://assistant.example';
const HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-06-18' };
const PING = { jsonrpc: '2.0', id: 1, method: 'ping' };
const MAX_BODY_BYTES = 4096;

let a: ObservationWorld;
let token: string;

beforeAll(async () => {
  process.env.MCP_ALLOWED_ORIGINS = `${ALLOWED}, http://localhost:6274`;
  process.env.MAX_BODY_BYTES = String(MAX_BODY_BYTES);
  resetConfig();
  a = await observationWorld();
  token = await forMcp(a.patient.token);
});

afterAll(() => {
  delete process.env.MCP_ALLOWED_ORIGINS;
  delete process.env.MAX_BODY_BYTES;
  resetConfig();
});

const preflight = (origin: string) =>
  call('OPTIONS', '/mcp', { headers: { origin, 'access-control-request-method': 'POST', 'access-control-request-headers': 'authorization, content-type, mcp-protocol-version, mcp-method, mcp-name' } });

describe('the preflight OPTIONS /mcp', () => {
  it('answers an allowed origin: POST, the headers MCP clients send, that origin only', async () => {
    const res = await preflight(ALLOWED);
    expect(res.status).toBe(204);
    expect(res.headers['access-control-allow-origin']).toBe(ALLOWED);
    expect(res.headers['vary']).toBe('Origin');
    expect(res.headers['access-control-allow-methods']).toBe('POST');
    const allowed = res.headers['access-control-allow-headers']!.toLowerCase().split(', ');
    expect(allowed).toEqual(expect.arrayContaining(['authorization', 'content-type', 'accept', 'mcp-protocol-version', 'mcp-session-id', 'mcp-method', 'mcp-name']));
    expect(res.headers['access-control-allow-credentials']).toBeUndefined();
  });

  it('refuses a foreign origin with 403 and names no origin', async () => {
    const res = await preflight('https://evil.example');
    expect(res.status).toBe(403);
    expect(res.headers['access-control-allow-origin']).toBeUndefined();
    expect(res.headers['access-control-allow-methods']).toBeUndefined();
    // An allowed origin's look-alikes are foreign too.
    for (const origin of [`${ALLOWED}.evil.example`, 'http://assistant.example', `${ALLOWED}:8443`]) expect((await preflight(origin)).status, origin).toBe(403);
  });

  it('without Origin (no browser) says which methods the path has', async () => {
    const res = await call('OPTIONS', '/mcp');
    expect(res.status).toBe(204);
    expect(res.headers['allow']).toBe('POST, OPTIONS');
    expect(res.headers['access-control-allow-origin']).toBeUndefined();
  });
});

describe('answers to an allowed origin', () => {
  it('name it, vary on Origin and expose what a client reads, on a 200, a 401 and a transport refusal', async () => {
    const expose = (res: { headers: Record<string, string> }) => res.headers['access-control-expose-headers']!.toLowerCase().split(', ');
    const ok = await call('POST', '/mcp', { token, headers: { ...HEADERS, origin: ALLOWED }, body: PING });
    expect(ok.status).toBe(200);
    expect(ok.json).toMatchObject({ jsonrpc: '2.0', id: 1, result: {} });
    expect(ok.headers['access-control-allow-origin']).toBe(ALLOWED);
    expect(ok.headers['vary']).toBe('Origin');
    expect(expose(ok)).toEqual(expect.arrayContaining(['www-authenticate', 'mcp-session-id', 'retry-after']));

    const unauthenticated = await call('POST', '/mcp', { headers: { ...HEADERS, origin: 'http://localhost:6274' }, body: PING });
    expect(unauthenticated.status).toBe(401);
    expect(unauthenticated.headers['www-authenticate']).toContain('resource_metadata=');
    expect(unauthenticated.headers['access-control-allow-origin']).toBe('http://localhost:6274');
    expect(expose(unauthenticated)).toContain('www-authenticate');

    const notAccepted = await call('POST', '/mcp', { token, headers: { ...HEADERS, accept: 'text/html', origin: ALLOWED }, body: PING });
    expect(notAccepted.status).toBe(406);
    expect(notAccepted.headers['access-control-allow-origin']).toBe(ALLOWED);
  });

  it("the site's own origin is allowed without being listed: its preflight, and its answers naming it", async () => {
    const own = new URL(config().siteUrl).origin;
    expect(config().mcpAllowedOrigins).not.toContain(own);
    const preflighted = await preflight(own);
    expect(preflighted.status).toBe(204);
    expect(preflighted.headers['access-control-allow-methods']).toBe('POST');
    const ok = await call('POST', '/mcp', { token, headers: { ...HEADERS, origin: own }, body: PING });
    expect(ok.status).toBe(200);
    expect(ok.headers['access-control-allow-origin']).toBe(own);
    expect(ok.headers['vary']).toBe('Origin');
  });

  it('a foreign origin stays a 403 naming no origin; no Origin passes without CORS headers', async () => {
    const foreign = await call('POST', '/mcp', { token, headers: { ...HEADERS, origin: 'https://evil.example' }, body: PING });
    expect(foreign.status).toBe(403);
    expect(foreign.headers['access-control-allow-origin']).toBeUndefined();
    expect(foreign.headers['vary']).toBe('Origin');
    const desktop = await call('POST', '/mcp', { token, headers: HEADERS, body: PING });
    expect(desktop.status).toBe(200);
    expect(desktop.headers['access-control-allow-origin']).toBeUndefined();
  });
});

describe('answers made before the route is reached', () => {
  const from = (origin: string | undefined): Record<string, string> => (origin === undefined ? {} : { origin });
  /** What the middleware and the router refuse before the MCP handler runs, each with the status it must keep. */
  const early: Array<{ name: string; status: number; send: (origin: string | undefined) => ReturnType<typeof call> }> = [
    { name: 'a body over the limit (413)', status: 413, send: (origin) => call('POST', '/mcp', { token, headers: { ...HEADERS, ...from(origin) }, body: JSON.stringify({ ...PING, params: { pad: 'x'.repeat(MAX_BODY_BYTES) } }) }) },
    { name: 'a Content-Type that is no JSON (415)', status: 415, send: (origin) => call('POST', '/mcp', { token, headers: { ...HEADERS, 'content-type': 'text/plain', ...from(origin) }, body: 'ping' }) },
    { name: 'malformed JSON (400)', status: 400, send: (origin) => call('POST', '/mcp', { token, headers: { ...HEADERS, ...from(origin) }, body: '{"jsonrpc": "2.0", "id": 1,' }) },
    { name: 'JSON nested too deeply (400)', status: 400, send: (origin) => call('POST', '/mcp', { token, headers: { ...HEADERS, ...from(origin) }, body: `${'['.repeat(150)}${']'.repeat(150)}` }) },
    { name: 'GET, which /mcp does not serve (405)', status: 405, send: (origin) => call('GET', '/mcp', { token, headers: { accept: 'text/event-stream', ...from(origin) } }) },
  ];

  it.each(early)('$name carries the CORS headers for an allowed origin, with its own status and body', async ({ status, send }) => {
    const res = await send(ALLOWED);
    expect(res.status).toBe(status);
    expect(res.json).toHaveProperty('detail');
    expect(res.headers['access-control-allow-origin']).toBe(ALLOWED);
    expect(res.headers['vary']).toBe('Origin');
    expect(res.headers['access-control-expose-headers']!.toLowerCase().split(', ')).toEqual(expect.arrayContaining(['www-authenticate', 'retry-after']));
  });

  it.each(early)('$name names no origin for a foreign one, and none without Origin', async ({ status, send }) => {
    const foreign = await send('https://evil.example');
    expect(foreign.status).toBe(status);
    expect(foreign.headers['access-control-allow-origin']).toBeUndefined();
    expect(foreign.headers['access-control-expose-headers']).toBeUndefined();
    expect(foreign.headers['vary']).toBe('Origin');
    const noOrigin = await send(undefined);
    expect(noOrigin.status).toBe(status);
    expect(noOrigin.headers['access-control-allow-origin']).toBeUndefined();
  });
});
