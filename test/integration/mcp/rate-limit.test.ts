/**
 * The per-client rate limit of `/mcp` (docs/mcp.md#rate-limits) on DynamoDB Local, through the
 * family's handler: each (OAuth client, user) has its own window in the directory table, shared by
 * every instance; over it a 429 with `Retry-After` and a JSON-RPC error carrying the request's id,
 * and the next window passes; another client's or another user's window is untouched; when the
 * store fails, the request passes (fail open), logged and counted.
 */
import { decodeJwt } from 'jose';
import { randomUUID } from 'node:crypto';
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { signingKeys } from '../../../shared/auth/signing-keys';
import { ACCESS_TOKEN_TYPE } from '../../../shared/auth/tokens';
import { config, resetConfig } from '../../../shared/config';
import { RATE_LIMITED_CODE, RATE_WINDOW_SECONDS } from '../../../shared/mcp/rate-limit';
import { RATE_WINDOW_PREFIX } from '../../../shared/store/directory-keys';
import { forMcp } from '../../support/directory';
import { injectFault } from '../../support/faults';
import { call } from '../../support/invoke';
import { observationWorld, type ObservationWorld } from '../../support/observations';
import { tableItems } from '../../support/store';

const LIMIT = 3;
const HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-06-18' };

let a: ObservationWorld;
let b: ObservationWorld;

/** The same token as issued to another OAuth client (its `client_id`). */
async function issuedTo(token: string, clientId: string): Promise<string> {
  return (await signingKeys()).sign({ ...decodeJwt(token), client_id: clientId, jti: randomUUID() }, ACCESS_TOKEN_TYPE);
}

const ping = (token: string, id: number | string = 1) => call('POST', '/mcp', { token, headers: HEADERS, body: { jsonrpc: '2.0', id, method: 'ping' } });

/** A moment `seconds` into a fresh minute, well ahead of now (every test its own windows). */
let minute = Math.ceil(Date.now() / 60_000) + 5;
const inFreshWindow = (seconds = 10) => vi.setSystemTime((minute++ * 60 + seconds) * 1000);

beforeAll(async () => {
  process.env.MCP_RATE_LIMIT_PER_MINUTE = String(LIMIT);
  resetConfig();
  a = await observationWorld();
  b = await observationWorld();
});

afterEach(() => {
  vi.useRealTimers();
});

describe('the limit of one client for one user', () => {
  it('answers the request past the limit 429 with Retry-After and a JSON-RPC error with its id; the next window passes', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    inFreshWindow(15);
    const token = await issuedTo(await forMcp(a.patient.token), 'assistant-one');
    for (let i = 0; i < LIMIT; i += 1) expect((await ping(token, i)).status).toBe(200);
    const refused = await ping(token, 'over-the-limit');
    expect(refused.status).toBe(429);
    // The window ends 45 s later.
    expect(refused.headers['retry-after']).toBe(String(RATE_WINDOW_SECONDS - 15));
    expect(refused.json).toEqual({
      jsonrpc: '2.0',
      id: 'over-the-limit',
      error: { code: RATE_LIMITED_CODE, message: expect.stringContaining(`${LIMIT} a minute`), data: { retryAfterSeconds: 45, limitPerMinute: LIMIT } },
    });
    // A body that is no single request: no id to carry.
    const batch = await call('POST', '/mcp', { token, headers: HEADERS, body: [{ jsonrpc: '2.0', id: 9, method: 'ping' }] });
    expect(batch.status).toBe(429);
    expect(batch.json.id).toBeUndefined();

    vi.setSystemTime(Date.now() + 45_000);
    const next = await ping(token, 'next');
    expect(next.status).toBe(200);
    expect(next.json).toMatchObject({ jsonrpc: '2.0', id: 'next', result: {} });
  });

  it("leaves another client's window and another user's untouched; a token without a client is limited per user", async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    inFreshWindow();
    const mcpA = await forMcp(a.patient.token);
    const one = await issuedTo(mcpA, 'assistant-one');
    for (let i = 0; i <= LIMIT; i += 1) await ping(one);
    expect((await ping(one)).status).toBe(429);
    // The same user through another client, and another user through the same client.
    const other = await issuedTo(mcpA, 'assistant-two');
    const otherUser = await issuedTo(await forMcp(b.patient.token), 'assistant-one');
    for (let i = 0; i < LIMIT; i += 1) {
      expect((await ping(other)).status).toBe(200);
      expect((await ping(otherUser)).status).toBe(200);
    }
    expect((await ping(other)).status).toBe(429);
    // Tokens that name no client (the demo CLI's) share their user's window.
    for (let i = 0; i < LIMIT; i += 1) expect((await ping(mcpA)).status).toBe(200);
    expect((await ping(await forMcp(a.patient.token))).status).toBe(429);
  });

  it('keeps each window as one item of the directory table, expiring (TTL) a window after its end', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    inFreshWindow();
    const windowStart = Math.floor(Date.now() / 1000) - 10;
    const token = await issuedTo(await forMcp(b.patient.token), `https://assistant.example/client-${randomUUID()}`);
    const answers = await Promise.all(Array.from({ length: LIMIT + 3 }, () => ping(token)));
    expect(answers.map((r) => r.status).sort()).toEqual([...Array(LIMIT).fill(200), ...Array(3).fill(429)]);
    const windows = (await tableItems(config().directoryTable)).filter((item) => String(item.pk).startsWith(RATE_WINDOW_PREFIX) && item.sk === String(windowStart));
    // Racing requests never both take the last place: exactly the limit counted, the others refused.
    expect(windows).toHaveLength(1);
    expect(windows[0]).toMatchObject({ requests: LIMIT, expiresAt: windowStart + 2 * RATE_WINDOW_SECONDS });
    // The client id (a URL here) is hashed into a fixed-length key.
    expect(String(windows[0]!.pk)).toMatch(new RegExp(`^${RATE_WINDOW_PREFIX}[A-Za-z0-9_-]{43}$`));
  });

  it('lets requests through when the store cannot count (fail open), and counts from zero once it can; off at 0', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    inFreshWindow();
    const token = await issuedTo(await forMcp(a.patient.token), 'assistant-faulted');
    const stop = injectFault(async (command, send) => {
      if (command.name === 'UpdateItemCommand' && String(command.input.Key?.pk).startsWith(RATE_WINDOW_PREFIX)) {
        throw Object.assign(new Error('The table is unreachable.'), { name: 'InternalServerError', $metadata: { httpStatusCode: 500 } });
      }
      return send();
    });
    try {
      for (let i = 0; i < LIMIT + 2; i += 1) expect((await ping(token, i)).status).toBe(200);
    } finally {
      stop();
    }
    // Once the store answers again, the window counts from zero.
    for (let i = 0; i < LIMIT; i += 1) expect((await ping(token)).status).toBe(200);
    expect((await ping(token)).status).toBe(429);

    process.env.MCP_RATE_LIMIT_PER_MINUTE = '0';
    resetConfig();
    try {
      expect((await ping(token)).status).toBe(200);
    } finally {
      process.env.MCP_RATE_LIMIT_PER_MINUTE = String(LIMIT);
      resetConfig();
    }
  });
});
