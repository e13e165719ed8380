/**
 * The per-client rate limit of `/mcp` (docs/mcp.md#rate-limits): each (OAuth client, user) may send
 * `MCP_RATE_LIMIT_PER_MINUTE` requests a fixed minute, counted in a store every instance shares
 * (`store/`), so a client spread over many Lambda instances meets the same limit. Over it, a 429
 * with `Retry-After` (the seconds to the next window) and a JSON-RPC error; the request's read-only
 * work runs beside its count, and a refused request is never answered with any of it (`rateLimited`).
 *
 * When the store cannot count, the request passes (fail open) and the failure is logged and counted
 * (the metric `McpRateLimitUnavailable`): the limit guards capacity, not data. Every request was authenticated and
 * every tool still applies the caller's access rules, so letting one through shows nothing a limit
 * would have hidden; failing closed would turn a hiccup of one counter item into every assistant's
 * outage, while API Gateway's stage throttle still caps what passes.
 */
import type { JSONRPCErrorResponse } from '@modelcontextprotocol/server';
import type { Caller } from '../auth/caller';
import { config } from '../config';
import type { AuthedRequest } from '../http/request';
import { BoundedMap } from '../bounded-map';
import { json, type HttpResponse } from '../http/response';
import { METRIC } from '../telemetry/names';
import { mcpStore } from './store/current';

/** The length of a window: the limit is per minute. */
export const RATE_WINDOW_SECONDS = 60;

/**
 * JSON-RPC's implementation-defined server error (-32000 to -32099): MCP names no code for a rate
 * limit, and -32000 is what the SDK's transport answers its own HTTP-level refusals with.
 */
export const RATE_LIMITED_CODE = -32000;

export type RateVerdict = { allowed: true } | { allowed: false; retryAfterSeconds: number; limit: number };

/** Who is limited: the OAuth client the token was issued to, for this user; the user alone when the token names no client. */
export function rateSubject(caller: Caller): string {
  return caller.clientId === undefined ? `user:${caller.userId}` : `client:${caller.clientId}|user:${caller.userId}`;
}

/**
 * Requests of a window an instance takes from the store at once, for a limit: a twentieth of it
 * (six of the default 120), one for a limit under 40. An instance answers that many of a subject's
 * requests with one write; what it took and did not use counts against the subject (the limit is
 * never exceeded, and a subject spread over many instances may be refused up to `lease - 1` early
 * on each), and once a window has less room than a lease, requests are taken one by one.
 */
export const leaseFor = (limit: number) => Math.max(1, Math.floor(limit / 20));

/** Subjects an instance remembers (what it holds of their windows, who was refused) at most. */
const MAX_REMEMBERED = 10_000;

/** Per subject, what this instance holds of its current window: requests taken and not yet used, and whether a lease no longer fits. */
const held = new BoundedMap<string, { windowStart: number; left: number; full: boolean }>(MAX_REMEMBERED);

/** Takes one request of the caller's window at `now` (ms): allowed, or refused until the next window. */
export async function takeRequest(caller: Caller, now = Date.now(), limit = config().mcpRateLimitPerMinute): Promise<RateVerdict> {
  if (limit <= 0) return { allowed: true };
  const seconds = Math.floor(now / 1000);
  const windowStart = seconds - (seconds % RATE_WINDOW_SECONDS);
  const windowEnd = windowStart + RATE_WINDOW_SECONDS;
  const subject = rateSubject(caller);
  let mine = held.get(subject);
  if (mine?.windowStart !== windowStart) {
    mine = { windowStart, left: 0, full: false };
    held.set(subject, mine);
  }
  // Taken already, in this window: answered without the store (decided before any await, so two
  // requests never use the same one).
  if (mine.left > 0) {
    mine.left -= 1;
    return { allowed: true };
  }
  // Kept a window past its end: a clock a little behind on another instance still finds it.
  const expiresAt = windowEnd + RATE_WINDOW_SECONDS;
  const lease = leaseFor(limit);
  if (lease > 1 && !mine.full) {
    if (await mcpStore().rateWindows.take(subject, windowStart, limit, expiresAt, lease)) {
      mine.left += lease - 1;
      return { allowed: true };
    }
    mine.full = true;
  }
  if (await mcpStore().rateWindows.take(subject, windowStart, limit, expiresAt)) return { allowed: true };
  return { allowed: false, retryAfterSeconds: Math.max(1, windowEnd - seconds), limit };
}

/** Forgets what this instance holds of every window (tests that count from a fresh store). */
export function forgetRateLeases(): void {
  held.clear();
}

/**
 * Subjects this instance saw refused, until their window ends: their requests wait for the verdict
 * before any work starts, so a client over its limit costs a count, not a tool's reads.
 */
const refusedUntil = new BoundedMap<string, number>(MAX_REMEMBERED);

/** The caller's verdict; allowed when the store cannot count (fail open: logged and counted). */
async function verdictOf(req: AuthedRequest, now: number): Promise<RateVerdict> {
  try {
    return await takeRequest(req.caller, now);
  } catch (error) {
    req.log.error('MCP rate limit unavailable: request let through', { error: error instanceof Error ? error : String(error) });
    req.meter.count(METRIC.mcpRateLimitUnavailable);
    return { allowed: true };
  }
}

/**
 * A route's handler behind the limit: answers only a request its caller's window still has room
 * for. The count (a round trip to the store) and the handler's read-only work run side by side,
 * and the answer is held until the count is known: a refused request gets its 429 and nothing of
 * the work (not its answer, not its audit records: they stay in a held trail), and once refused, a
 * subject's later requests in that window wait for their count before any work starts.
 */
export function rateLimited(handler: (req: AuthedRequest) => Promise<HttpResponse>): (req: AuthedRequest) => Promise<HttpResponse> {
  return async (req) => {
    const now = Date.now();
    const subject = rateSubject(req.caller);
    const verdict = verdictOf(req, now);
    const wasRefused = (refusedUntil.get(subject) ?? 0) > now;
    const held = wasRefused ? undefined : req.audit.held();
    const work = held ? handler({ ...req, audit: held.trail }) : undefined;
    work?.catch(() => undefined); // awaited below, or dropped with a refused request
    const decided = await verdict;
    if (!decided.allowed) {
      refusedUntil.set(subject, now + decided.retryAfterSeconds * 1000);
      req.meter.count(METRIC.mcpRateLimited);
      return tooManyRequests(req.body, decided);
    }
    if (!work) return handler(req);
    try {
      return await work;
    } finally {
      held!.commit();
    }
  };
}

/** The 429: `Retry-After` and a JSON-RPC error carrying the request's id when the body is one request. */
function tooManyRequests(body: unknown, verdict: Extract<RateVerdict, { allowed: false }>): HttpResponse {
  const id = requestId(body);
  const error: JSONRPCErrorResponse = {
    jsonrpc: '2.0',
    ...(id === undefined ? {} : { id }),
    error: {
      code: RATE_LIMITED_CODE,
      message: `Too many requests: this client may send ${verdict.limit} a minute for each user. Retry after ${verdict.retryAfterSeconds} s.`,
      data: { retryAfterSeconds: verdict.retryAfterSeconds, limitPerMinute: verdict.limit },
    },
  };
  return json(429, error, { 'Retry-After': String(verdict.retryAfterSeconds) });
}

function requestId(body: unknown): string | number | undefined {
  if (body === null || typeof body !== 'object' || Array.isArray(body) || !Object.hasOwn(body, 'id')) return undefined;
  const id = (body as { id: unknown }).id;
  return typeof id === 'string' || (typeof id === 'number' && Number.isFinite(id)) ? id : undefined;
}
