/**
 * Ids of directory entities: positive integers from the block counters, and the one parser of ids
 * that arrive as text (paths, query parameters, references, headers).
 */
import { idBlocks } from '../store/counters';

/** Counter name per entity kind. */
export type CountedKind = 'organization' | 'user' | 'patient' | 'study' | 'dataSource' | 'code' | 'fhirSource' | 'oauthClient' | 'invitation';

/**
 * Entities are created rarely and by many short-lived Lambdas; a small block keeps ids dense while
 * still sparing a counter write for most creations in a busy process.
 */
const BLOCK_SIZE = 5;

export function newId(kind: CountedKind): Promise<number> {
  return idBlocks(kind, BLOCK_SIZE).one();
}

export function newIds(kind: CountedKind, count: number): Promise<number[]> {
  return idBlocks(kind, BLOCK_SIZE).take(count);
}

const ID_TEXT = /^[1-9][0-9]{0,14}$/;

/** A directory id from text or a number; `undefined` for anything else (letters, zero, signs, decimals). */
export function parseId(raw: unknown): number | undefined {
  if (typeof raw === 'number') return Number.isSafeInteger(raw) && raw > 0 ? raw : undefined;
  if (typeof raw !== 'string' || !ID_TEXT.test(raw)) return undefined;
  return Number(raw);
}
