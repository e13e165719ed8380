/**
 * Retrying what DynamoDB could not do right now: batch items it left unprocessed, throttled
 * requests the SDK gave up on, and transactions that collided with another. Exponential backoff
 * with jitter; the caller decides what to report for whatever still fails.
 */
export const MAX_ATTEMPTS = 8;

/** Waits before attempt `attempt` (1, 2, ...): 25 ms doubling to 1.6 s, each with jitter. */
export function backoff(attempt: number): Promise<void> {
  const ms = Math.min(1600, 25 * 2 ** (attempt - 1)) * (0.5 + Math.random());
  return new Promise((resolve) => setTimeout(resolve, ms));
}

const THROTTLING = new Set([
  'ThrottlingException',
  'ProvisionedThroughputExceededException',
  'RequestLimitExceeded',
  'InternalServerError',
  'ServiceUnavailable',
  'TransactionInProgressException',
]);

/**
 * Runs one store call, and again after a pause while it fails with an error worth another try, up
 * to MAX_ATTEMPTS; then (or on any other error) throws what it threw last.
 */
export async function retryWhileBusy<T>(call: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await call();
    } catch (e) {
      if (!isRetryable(e) || attempt >= MAX_ATTEMPTS) throw e;
      await backoff(attempt);
    }
  }
}

/** Errors worth another try after a pause (the SDK already retried them a few times). */
export function isRetryable(error: unknown): boolean {
  const e = error as { name?: string; $retryable?: unknown; $metadata?: { httpStatusCode?: number } };
  return THROTTLING.has(e?.name ?? '') || Boolean(e?.$retryable) || (e?.$metadata?.httpStatusCode ?? 0) >= 500;
}
