import { describe, expect, it } from 'vitest';
import { callerKey, RateLimiter } from '../../../local/rate-limit';

describe('the local gateway rate limiter', () => {
  it('lets a caller spend its burst, refills at its rate, and says when to come back', () => {
    let now = 0;
    const limiter = new RateLimiter({ perSecond: 2, burst: 3 }, () => now);
    expect([1, 2, 3].map(() => limiter.take('a').allowed)).toEqual([true, true, true]);
    expect(limiter.take('a')).toEqual({ allowed: false, retryAfterSeconds: 1 });
    now = 499;
    expect(limiter.take('a').allowed).toBe(false);
    now = 1000; // 1 s after the burst: two tokens back (the refused tries cost nothing)
    expect([limiter.take('a').allowed, limiter.take('a').allowed, limiter.take('a').allowed]).toEqual([true, true, false]);
  });

  it('keeps callers apart, and is off at a rate of 0', () => {
    const limiter = new RateLimiter({ perSecond: 1, burst: 1 }, () => 0);
    expect(limiter.take('a').allowed).toBe(true);
    expect(limiter.take('a').allowed).toBe(false);
    expect(limiter.take('b').allowed).toBe(true);
    const off = new RateLimiter({ perSecond: 0, burst: 1 }, () => 0);
    expect(Array.from({ length: 100 }, () => off.take('a').allowed).every(Boolean)).toBe(true);
  });

  it('knows a caller by a digest of its credential, else by its address', () => {
    const socket = { remoteAddress: '127.0.0.1' } as never;
    const a = callerKey({ headers: { authorization: 'Bearer aaa' }, socket });
    expect(a).toBe(callerKey({ headers: { authorization: 'Bearer aaa' }, socket: { remoteAddress: '10.0.0.9' } as never }));
    expect(a).not.toBe(callerKey({ headers: { authorization: 'Bearer aab' }, socket }));
    expect(a).not.toContain('aaa');
    expect(callerKey({ headers: {}, socket })).toBe('address:127.0.0.1');
  });
});
