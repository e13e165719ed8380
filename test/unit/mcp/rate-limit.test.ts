/**
 * The window arithmetic of `/mcp`'s rate limit on the in-memory twin of its store: fixed minutes,
 * `Retry-After` the seconds to the next one, one window per (client, user), off at 0.
 */
import { afterAll, describe, expect, it } from 'vitest';
import type { Caller } from '../../../shared/auth/caller';
import { rateSubject, takeRequest } from '../../../shared/mcp/rate-limit';
import { useMcpStore } from '../../../shared/mcp/store/current';
import { memoryMcpStore } from '../../../shared/mcp/store/memory';

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
