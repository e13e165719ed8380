/**
 * The keys a reading's write takes, and the rounds a batch is written in. DynamoDB refuses one
 * transaction that touches an item twice, so readings whose keys repeat within a request wait for a
 * later round, where they meet what the earlier round stored (a second copy of a reading finds the
 * first's row; a second holder of an identifier finds its claim). Both adapters write in these
 * rounds, so a batch's outcomes are the same from either.
 */
import { fitsPartitionKey } from '../../store/key-limits';
import { observationKeys, type ObservationKey } from './dynamo-keys';
import type { ObservationIdentifier, StoredObservation } from '../model';

/** One text per stored item. */
export const keyId = (k: { pk?: unknown; sk?: unknown }) => `${String(k.pk)}\u0000${String(k.sk)}`;

/** The key of an identifier's claim: one holder across the whole store. */
export const claimKey = (identifier: ObservationIdentifier): ObservationKey => observationKeys.identifier(identifier.system ?? '', identifier.value);

/** Whether an identifier's claim fits a key (its system and value are client text of any length). */
export const canClaim = (identifier: ObservationIdentifier): boolean => fitsPartitionKey(claimKey(identifier).pk);

/** What writing a reading takes: its row, then one claim per identifier. */
export const readingKeys = (o: StoredObservation): ObservationKey[] => [observationKeys.observation(o.patientId, o.uuid), ...o.identifiers.map(claimKey)];

/** Readings whose keys are all new to this round; the others wait for the next round. */
function splitRound<T>(pending: readonly T[], keysOf: (p: T) => readonly string[]): { round: T[]; later: T[] } {
  const seen = new Set<string>();
  const round: T[] = [];
  const later: T[] = [];
  for (const p of pending) {
    const keys = keysOf(p);
    if (keys.some((k) => seen.has(k))) later.push(p);
    else {
      keys.forEach((k) => seen.add(k));
      round.push(p);
    }
  }
  return { round, later };
}

/** Runs `write` on each round in turn, until every reading had its round. */
export async function inRounds<T>(readings: readonly T[], keysOf: (p: T) => readonly string[], write: (round: T[]) => Promise<void>): Promise<void> {
  let pending = readings;
  while (pending.length > 0) {
    const { round, later } = splitRound(pending, keysOf);
    await write(round);
    pending = later;
  }
}
