/**
 * The observation store port in memory: a twin of the DynamoDB adapter for tests that need no
 * tables. The contract suite (test/contract/observation-store.ts) holds it to the same behaviour.
 * Each call makes a new, empty store. It runs one call at a time, so nothing lands in between.
 */
import { copy, holding } from '../../store/memory';
import { tooLarge } from './dynamo-items';
import type { ObservationIdentifier, StoredObservation } from '../model';
import { rowTable } from './memory-rows';
import type { ObservationStore, WriteOutcome } from './port';
import { canClaim, claimKey, inRounds, keyId, readingKeys } from './rounds';

export function memoryObservationStore(): ObservationStore {
  const rows = rowTable();
  /** Identifier claim -> the id holding it. */
  const claims = new Map<string, number>();
  const spans = new Map<number, number>();
  let lastId = 0;

  const claimOf = (identifier: ObservationIdentifier) => keyId(claimKey(identifier));
  /** The readings found, each once, as copies. */
  const found = (rows: ReadonlyArray<StoredObservation | undefined>) => [...new Set(rows)].filter((row) => row !== undefined).map(copy);

  /** One reading's write, as DynamoDB's conditions decide it: a taken row first, then a held identifier. */
  function place(o: StoredObservation): WriteOutcome {
    const row = rows.get(o.patientId, o.uuid);
    if (row) return { kind: 'existing', observation: copy(row) };
    const held = o.identifiers.find((i) => claims.has(claimOf(i)));
    if (held) return { kind: 'conflict', identifier: held, heldBy: claims.get(claimOf(held))! };
    rows.put(o);
    for (const identifier of o.identifiers) claims.set(claimOf(identifier), o.id);
    return { kind: 'created', observation: o };
  }

  const store: ObservationStore = {
    newIds: async (count) => Array.from({ length: count }, () => ++lastId),
    findReadings: async (keys) => found(keys.map((k) => rows.get(k.patientId, k.uuid))),
    insert: async (readings) => {
      const outcomes = new Array<WriteOutcome>(readings.length);
      const pending = readings.map((observation, index) => ({ observation, index }));
      await inRounds(pending, (p) => readingKeys(p.observation).map(keyId), async (round) => {
        for (const p of round) outcomes[p.index] = place(p.observation);
      });
      return outcomes;
    },
    // A row here is readable by id from the moment it is stored.
    makeReadableById: async () => [],
    readById: async (id) => {
      const row = rows.ofId(id);
      return row && copy(row);
    },
    readByIds: async (ids) => found(ids.map(rows.ofId)),
    readings: async (query, limit, start, filter) => rows.page(query, limit, start, filter),
    countReadings: async (query, test, withPayload) => rows.count(query, test, withPayload),
    // The twin refuses what the table would: the same measure of a reading's items and claim keys.
    tooLarge,
    canClaim,
    raiseSpan: async (patientId, span) => {
      const stored = Math.max(span, spans.get(patientId) ?? 0);
      spans.set(patientId, stored);
      return stored;
    },
    spans: async (patientIds) => new Map(patientIds.flatMap((p) => (spans.has(p) ? [[p, spans.get(p)!] as const] : []))),
    deletePatient: async (patientId) => {
      const removed = rows.removePatient(patientId);
      for (const row of removed) for (const identifier of row.identifiers) claims.delete(claimOf(identifier));
      spans.delete(patientId);
      return removed.length;
    },
  };
  return holding(store, { ...rows.held, identifierClaims: () => claims, spans: () => spans });
}
