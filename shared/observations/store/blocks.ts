/**
 * The observation store port on the observations table, layout 3: readings kept in blocks
 * (docs/store.md#observations; keys in `block-keys.ts`).
 */
import { MAX_ITEM_BYTES } from './dynamo-items';
import { deletePatient } from './block-delete';
import { countReadings, findReadings, readById, readByIds, readings } from './block-reads';
import { insert, makeReadableById, newIds } from './block-write';
import { raiseSpan, spans } from './dynamo-spans';
import type { StoredObservation } from '../model';
import type { ObservationStore } from './port';
import { canClaim } from './rounds';

/** What one reading takes of a block before compression, with room for its facts: the measure of "too large". */
const readingBytes = (o: StoredObservation) => Buffer.byteLength(o.data) + Buffer.byteLength(JSON.stringify(o.identifiers)) + Buffer.byteLength(o.uuid) + 200;

/** Why a reading cannot be kept (larger than a segment may ever grow), or undefined. */
export function tooLarge(o: StoredObservation): string | undefined {
  const bytes = readingBytes(o);
  return bytes > MAX_ITEM_BYTES ? `The reading is too large to store (${bytes} bytes; at most ${MAX_ITEM_BYTES}).` : undefined;
}

export const blockObservationStore: ObservationStore = {
  newIds,
  findReadings,
  insert,
  makeReadableById,
  readById,
  readByIds,
  readings,
  countReadings,
  tooLarge,
  canClaim,
  raiseSpan,
  spans,
  deletePatient,
};
