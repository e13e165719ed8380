/**
 * The answers of entries a batch did not finish: not started before the request's deadline, started
 * but not confirmed by then, or refused by a busy store. Each is a `503` the client may send again
 * as it is (docs/api.md#batches-and-deadlines); the batch's answer carries `Retry-After`. The words
 * fit the endpoint: a batch upload's entries are readings, an import's are resources.
 */
import { RETRY_AFTER_SECONDS } from '../../http/deadline';
import { HttpError } from '../../http/errors';
import { issue, operationOutcome } from '../../fhir/outcome';
import type { WriteResult } from '../../fhir/write-response';

/** What a request's entries are called in its messages. */
export type EntryNoun = 'reading' | 'resource';

/** Why an entry was not finished. */
export type Unfinished = 'not-started' | 'unconfirmed' | 'busy';

const again = (noun: EntryNoun) => (noun === 'reading' ? 'readings already stored are answered, not stored twice' : 'a resource with an id is replaced, not stored twice');

function message(why: Unfinished, noun: EntryNoun, hasId: boolean): string {
  switch (why) {
    case 'not-started':
      return `Not processed: the request ran out of time before this ${noun} was started, and nothing of it was stored. Send it again as it is.`;
    case 'busy':
      // A reading's row may have landed without its pointer (not yet readable by id): its re-send restores it.
      return noun === 'reading'
        ? 'The store is busy; this reading was not stored, or not completely. Send it again as it is after the time the Retry-After header gives: a reading already stored is answered, not stored twice.'
        : 'The store is busy; this resource was not stored. Send it again as it is after the time the Retry-After header gives.';
    case 'unconfirmed':
      return noun === 'resource' && !hasId
        ? 'Not confirmed: the request ran out of time while this resource was being stored, so it may or may not be stored. It has no id, so a second copy would be stored if it is sent again: search for it first (by _source and its identifiers).'
        : `Not confirmed: the request ran out of time while this ${noun} was being stored, so it may or may not be stored. Send it again as it is: ${again(noun)}.`;
  }
}

/** The `503` entry of an unfinished entry. */
export function unfinishedEntry(why: Unfinished, noun: EntryNoun, hasId = true): WriteResult {
  return { status: 503, outcome: operationOutcome([issue('error', why === 'busy' ? 'transient' : 'timeout', message(why, noun, hasId))]) };
}

/** The header a batch's answer carries when any of its entries may be sent again. */
export function retryAfterHeader(results: readonly WriteResult[]): Record<string, string> {
  return results.some((r) => r.status === 503) ? { 'Retry-After': String(RETRY_AFTER_SECONDS) } : {};
}

/** The answer to a batch of which nothing was started before the deadline: all of it again, later. */
export function batchNotStarted(entries: number): HttpError {
  return new HttpError(503, `None of the ${entries} entries was processed: the store is answering too slowly for this batch now, and nothing of it was stored. Send it again as it is after the time the Retry-After header gives.`, 'timeout', {
    headers: { 'Retry-After': String(RETRY_AFTER_SECONDS) },
  });
}
