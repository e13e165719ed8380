/**
 * When a request's answer must be on its way. A function has a time limit (API Gateway waits 30 s
 * at most); the handler answers `503 timeout` a second before it (middy's early answer, the last
 * resort), and work that comes in parts, such as the entries of a batch, stops starting parts
 * earlier still, so that what was done is acknowledged in a normal answer and only the rest is
 * asked again (docs/api.md#batches-and-deadlines).
 */

/** A function's time limit: API Gateway's 30 s less a second. The stack sets it; the local runtime enforces it. */
export const FUNCTION_TIMEOUT_MS = 29_000;

/** How long before the function's limit middy answers `503 timeout` (the request is then cut off whatever it does). */
export const EARLY_ANSWER_MS = 1_000;

/** Time kept for rendering a batch's answer (a thousand entries) and writing its log and metric lines. */
const ANSWER_RESERVE_MS = 500;

/** What a client is told to wait before sending again what was not done in time. */
export const RETRY_AFTER_SECONDS = 2;

export interface Deadline {
  /** Milliseconds left for work before the answer must be rendered (zero or less once past). */
  remainingMs(): number;
}

/** The deadline of an invocation, from Lambda's context (or the local runtime's, which keeps the same clock). */
export function deadlineOf(context: { getRemainingTimeInMillis(): number } | undefined): Deadline {
  if (!context || typeof context.getRemainingTimeInMillis !== 'function') return NO_DEADLINE;
  return { remainingMs: () => context.getRemainingTimeInMillis() - EARLY_ANSWER_MS - ANSWER_RESERVE_MS };
}

/** For work outside a request (benchmarks, operator commands): never out of time. */
export const NO_DEADLINE: Deadline = { remainingMs: () => Number.POSITIVE_INFINITY };

/** Settles with `work`'s value, or with `undefined` once the deadline passes first (the work itself goes on). */
export function beforeDeadline<T>(work: Promise<T>, deadline: Deadline): Promise<{ value: T } | undefined> {
  const inTime = work.then((value) => ({ value }));
  const left = deadline.remainingMs();
  if (!Number.isFinite(left)) return inTime;
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<undefined>((resolve) => (timer = setTimeout(() => resolve(undefined), Math.max(0, left))));
  return Promise.race([inTime, late]).finally(() => clearTimeout(timer));
}
