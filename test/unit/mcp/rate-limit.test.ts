/**
 * The window arithmetic of `/mcp`'s rate limit on the in-memory twin of its store: fixed minutes,
 * `Retry-After` the seconds to the next one, one window per (client, user), off at 0; and the
 * handler behind it: its work run beside the count, answered and audited only when allowed.
 */
import { afterAll, describe, expect, it } from 'vitest';
import type { Caller } from '../../../shared/auth/caller';
import { resetConfig } from '../../../shared/config';
import type { AuthedRequest } from '../../../shared/http/request';
import type { HttpResponse } from '../../../shared/http/response';
import { RATE_LIMITED_CODE, rateLimited, rateSubject, takeRequest } from '../../../shared/mcp/rate-limit';
import { useMcpStore } from '../../../shared/mcp/store/current';
import { memoryMcpStore } from '../../../shared/mcp/store/memory';
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
