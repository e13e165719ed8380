/**
 * Per-caller rate limits of the local gateway: one token bucket per caller (its bearer token or
 * Basic credential, else its address), refilled at `perSecond` up to `burst`. On AWS the same job
 * is API Gateway's stage throttling (and the CloudFront WAF's rate rule per client address); here
 * a runaway script meets the same 429 before any handler runs.
 */
import { createHash } from 'node:crypto';
import type { IncomingMessage } from 'node:http';

export interface RateLimit {
  perSecond: number;
  burst: number;
}

export type Verdict = { allowed: true } | { allowed: false; retryAfterSeconds: number };

interface Bucket {
  tokens: number;
  at: number;
}

/** Buckets beyond this many are swept of the full ones (callers gone quiet). */
const SWEEP_AT = 10_000;

export class RateLimiter {
  readonly #buckets = new Map<string, Bucket>();

  constructor(
    readonly limit: RateLimit,
    private readonly now: () => number = () => performance.now(),
  ) {}

  take(caller: string): Verdict {
    const { perSecond, burst } = this.limit;
    if (perSecond <= 0) return { allowed: true };
    const now = this.now();
    const bucket = this.#buckets.get(caller) ?? { tokens: burst, at: now };
    bucket.tokens = Math.min(burst, bucket.tokens + ((now - bucket.at) / 1000) * perSecond);
    bucket.at = now;
    if (bucket.tokens >= 1) {
      bucket.tokens -= 1;
      this.#buckets.set(caller, bucket);
      if (this.#buckets.size > SWEEP_AT) this.#sweep(now);
      return { allowed: true };
    }
    this.#buckets.set(caller, bucket);
    return { allowed: false, retryAfterSeconds: Math.max(1, Math.ceil((1 - bucket.tokens) / perSecond)) };
  }

  #sweep(now: number): void {
    const { perSecond, burst } = this.limit;
    for (const [caller, b] of this.#buckets) if (b.tokens + ((now - b.at) / 1000) * perSecond >= burst) this.#buckets.delete(caller);
  }
}

/** Who is asking: a digest of the credential the request carries, else the address it came from. */
export function callerKey(req: Pick<IncomingMessage, 'headers' | 'socket'>): string {
  const credential = req.headers.authorization;
  if (credential) return `credential:${createHash('sha256').update(credential).digest('base64url')}`;
  return `address:${req.socket.remoteAddress ?? 'unknown'}`;
}
