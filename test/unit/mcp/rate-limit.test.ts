/**
 * The window arithmetic of `/mcp`'s rate limit on the in-memory twin of its store: fixed minutes,
 * `Retry-After` the seconds to the next one, one window per (client, user), off at 0; and the
 * handler behind it: its work run beside the count, answered and audited only when allowed.
 */
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import type { Caller } from '../../../shared/auth/caller';
import { resetConfig } from '../../../shared/config';
import type { AuthedRequest } from '../../../shared/http/request';
import type { HttpResponse } from '../../../shared/http/response';
import { forgetRateLeases, leaseFor, RATE_LIMITED_CODE, rateLimited, rateSubject, takeRequest } from '../../../shared/mcp/rate-limit';
import { useMcpStore } from '../../../shared/mcp/store/current';
import { memoryMcpStore } from '../../../shared/mcp/store/memory';
import type { McpStore } from '../../../shared/mcp/store/port';
import { AuditTrail } from '../../../shared/telemetry/audit';
import { METRIC } from '../../../shared/telemetry/names';

const previous = useMcpStore(memoryMcpStore());
afterAll(() => void useMcpStore(previous));

const patient = (userId: number, clientId?: string): Caller => ({ kind: 'patient', userId, patientId: userId, scopes: [], ...(clientId ? { clientId } : {}) });
const at = (minute: number, second: number) => (minute * 60 + second) * 1000;

describe('takeRequest', () => {
  it('allows the limit in a fixed minute, then refuses until the next one', async () => {
    const caller = patient(1, 'desk');
    const start = 29_000_000;
    for (let s = 0; s < 3; s += 1) expect(await takeRequest(caller, at(start, 50 + s), 3)).toEqual({ allowed: true });
    expect(await takeRequest(caller, at(start, 53), 3)).toEqual({ allowed: false, retryAfterSeconds: 7, limit: 3 });
    expect(await takeRequest(caller, at(start, 59), 3)).toMatchObject({ allowed: false, retryAfterSeconds: 1 });
    // A fixed window: the next minute starts empty, however close the last requests were.
    expect(await takeRequest(caller, at(start + 1, 0), 3)).toEqual({ allowed: true });
  });

  it('keeps one window per client and user; a token without a client is its user', async () => {
    const start = 29_000_100;
    expect(await takeRequest(patient(2, 'a'), at(start, 0), 1)).toEqual({ allowed: true });
    expect(await takeRequest(patient(2, 'a'), at(start, 1), 1)).toMatchObject({ allowed: false });
    expect(await takeRequest(patient(2, 'b'), at(start, 1), 1)).toEqual({ allowed: true });
    expect(await takeRequest(patient(3, 'a'), at(start, 1), 1)).toEqual({ allowed: true });
    expect(await takeRequest(patient(2), at(start, 1), 1)).toEqual({ allowed: true });
    expect(rateSubject(patient(2))).toBe('user:2');
    // A client id cannot pose as another client and user: the parts are delimited.
    expect(rateSubject(patient(2, 'a|user:3'))).not.toBe(rateSubject(patient(3, 'a')));
  });

  it('is off at 0', async () => {
    for (let i = 0; i < 5; i += 1) expect(await takeRequest(patient(4, 'x'), at(29_000_200, 0), 0)).toEqual({ allowed: true });
  });
});

describe('takeRequest with a limit of 40 or more', () => {
  /** The memory twin, its takes counted (slots asked, and whether they were taken). */
  function countedStore() {
    const inner = memoryMcpStore();
    const takes: Array<[slots: number, taken: boolean]> = [];
    restore.push(useMcpStore({ rateWindows: { take: async (...args) => { const taken = await inner.rateWindows.take(...args); takes.push([args[4] ?? 1, taken]); return taken; } } }));
    forgetRateLeases();
    return { inner, takes };
  }
  const restore: McpStore[] = [];
  afterEach(() => restore.splice(0).forEach((store) => void useMcpStore(store)));

  it('takes a twentieth of the limit at once: 120 requests a minute are 20 writes, the 121st refused', async () => {
    const { takes } = countedStore();
    const caller = patient(10, 'leases');
    const start = 29_000_300;
    const verdicts = [];
    for (let i = 0; i < 121; i += 1) verdicts.push(await takeRequest(caller, at(start, Math.floor(i / 3)), 120));
    expect(verdicts.filter((v) => v.allowed)).toHaveLength(120);
    expect(verdicts[120]).toMatchObject({ allowed: false });
    expect(leaseFor(120)).toBe(6);
    expect(takes.filter(([slots, taken]) => slots === 6 && taken)).toHaveLength(20);
    // The refused one: the lease no longer fits, then the one request does not either.
    expect(takes.slice(20)).toEqual([[6, false], [1, false]]);
  });

  it('takes the last requests of a window one by one, and never lets more than the limit through however leases are left unused', async () => {
    const { inner } = countedStore();
    const caller = patient(11, 'leases');
    const start = 29_000_400;
    // Other instances took 117 of the 120 already.
    expect(await inner.rateWindows.take(rateSubject(caller), start * 60, 120, start * 60 + 120, 117)).toBe(true);
    const near = [];
    for (let i = 0; i < 5; i += 1) near.push((await takeRequest(caller, at(start, 10), 120)).allowed);
    expect(near).toEqual([true, true, true, false, false]);
    // Instances that take a lease, use one request of it and are gone (their leases unused).
    const other = patient(12, 'leases');
    let allowed = 0;
    for (let i = 0; i < 200; i += 1) {
      if (i % 2 === 0) forgetRateLeases();
      if ((await takeRequest(other, at(start, 20), 120)).allowed) allowed += 1;
    }
    expect(allowed).toBeLessThanOrEqual(120);
    expect(allowed).toBeGreaterThanOrEqual(120 / 3);
  });
});

describe('rateLimited', () => {
  const log = { info: () => undefined, warn: () => undefined, error: () => undefined, debug: () => undefined };
  /** A request of the caller, its audit trail and metrics to read back. */
  function requestOf(caller: Caller, id: number) {
    const counted: string[] = [];
    const audit = new AuditTrail();
    audit.identified(caller as never);
    const req = { caller, audit, body: { jsonrpc: '2.0', id, method: 'tools/call' }, log, meter: { count: (name: string) => void counted.push(name) } };
    return { req: req as unknown as AuthedRequest, audit, counted };
  }
  const line = (audit: AuditTrail) => audit.line({ method: 'POST', route: '/mcp', params: {} }, 200)!;
  /** A tool's work: it reads patient 7 and records it, the way a tool call does. */
  function toolWork() {
    const runs: number[] = [];
    const handler = async (req: AuthedRequest): Promise<HttpResponse> => {
      runs.push(1);
      req.audit.asked('tools/call get_readings');
      req.audit.touched([7]);
      return { status: 200, headers: {}, body: JSON.stringify({ result: { structuredContent: { patientId: 7, readings: ['secret'] } } }) };
    };
    return { runs, handler };
  }

  it('answers the work of an allowed request with its audit records; refuses the one past the limit with none of its work', async () => {
    process.env.MCP_RATE_LIMIT_PER_MINUTE = '2';
    resetConfig();
    try {
      const caller = patient(5, 'speculating');
      const { runs, handler } = toolWork();
      const limited = rateLimited(handler);
      for (let i = 0; i < 2; i += 1) {
        const { req, audit } = requestOf(caller, i);
        const res = await limited(req);
        expect(res.status).toBe(200);
        expect(line(audit)).toMatchObject({ patients: [7], operations: ['tools/call get_readings'] });
      }
      // Past the limit: the work ran beside the count (runs), but nothing of it is answered or audited.
      const { req, audit, counted } = requestOf(caller, 'over' as never);
      const refused = await limited(req);
      expect(refused.status).toBe(429);
      expect(JSON.stringify(refused.body)).not.toContain('secret');
      expect(refused.body).toMatchObject({ id: 'over', error: { code: RATE_LIMITED_CODE } });
      expect(runs).toHaveLength(3);
      expect(line(audit)).toMatchObject({ patients: [] });
      expect(line(audit).operations).toBeUndefined();
      expect(counted).toEqual([METRIC.mcpRateLimited]);
      // Once refused here, the client's next request in the window waits for its count: no work at all.
      const next = requestOf(caller, 4);
      expect((await limited(next.req)).status).toBe(429);
      expect(runs).toHaveLength(3);
      // Another client of the same user still works side by side.
      const other = requestOf(patient(5, 'another'), 5);
      expect((await limited(other.req)).status).toBe(200);
      expect(runs).toHaveLength(4);
      expect(line(other.audit)).toMatchObject({ patients: [7] });
    } finally {
      delete process.env.MCP_RATE_LIMIT_PER_MINUTE;
      resetConfig();
    }
  });

  it('answers a failed work of an allowed request as it failed, with what it recorded before', async () => {
    const caller = patient(6, 'failing');
    const limited = rateLimited(async (req) => {
      req.audit.touched([8]);
      throw new Error('the store failed');
    });
    const { req, audit } = requestOf(caller, 1);
    await expect(limited(req)).rejects.toThrow('the store failed');
    expect(line(audit)).toMatchObject({ patients: [8] });
  });
});
