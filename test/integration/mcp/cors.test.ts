/**
 * CORS on `/mcp` (docs/mcp.md#cors-on-mcp), through the family's handler on the in-memory twins: a
 * page on an origin of MCP_ALLOWED_ORIGINS gets its preflight answered and every answer (refusals
 * included: a browser hides from the app what lacks them) names its origin; a foreign origin is a
 * 403, preflight too, and is never named; a request without `Origin` is no browser's.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resetConfig } from '../../../shared/config';
import { forMcp } from '../../support/directory';
import { call } from '../../support/invoke';
import { observationWorld, type ObservationWorld } from '../../support/observations';

const ALLOWED = 'https://assistant.example';
const HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-06-18' };
const PING = { jsonrpc: '2.0', id: 1, method: 'ping' };

let a: ObservationWorld;
let token: string;

beforeAll(async () => {
  process.env.MCP_ALLOWED_ORIGINS = `${ALLOWED}, http://localhost:6274`;
  resetConfig();
  a = await observationWorld();
  token = await forMcp(a.patient.token);
});

afterAll(() => {
  delete process.env.MCP_ALLOWED_ORIGINS;
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
