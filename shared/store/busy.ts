/**
 * The answer when DynamoDB or S3 stays busy after the SDK's own retries (throttling, a 5xx, S3's
 * SlowDown, transactions that kept colliding): a 503 the client may retry, with the usual error
 * body, instead of an unexpected 500. The error renderer applies it to every request; a batch applies
 * it to each entry, so the other entries keep their results. Every other error passes as it is.
 */
import { TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import { HttpError, isHttpError, STORE_BUSY } from '../http/errors';
import { isRetryable } from './retry';

/** Cancellation reasons of a transaction that say "not now" rather than "not this": worth sending it again. */
export const PASSING_CANCELLATIONS: ReadonlySet<string> = new Set(['None', 'TransactionConflict', 'ThrottlingError', 'ProvisionedThroughputExceeded']);

function isBusy(error: unknown): boolean {
  if (error instanceof TransactionCanceledException) return (error.CancellationReasons ?? []).every((r) => PASSING_CANCELLATIONS.has(r.Code ?? 'None'));
  return isRetryable(error);
}

/** The error to answer with: a 503 for a busy store, the error itself otherwise. */
export function busyAs503(error: unknown): unknown {
  if (isHttpError(error) || !isBusy(error)) return error;
  return new HttpError(503, STORE_BUSY, 'transient', { cause: error, headers: { 'Retry-After': '1' } });
}
