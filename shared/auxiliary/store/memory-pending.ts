/** The in-memory twin of the pending-body entries, per patient and body key. */
import type { Id } from '../../directory/model';
import { byKeyBytes, holding, innerMap, nestedEntries } from '../../store/memory';
import { bodyKeys } from './dynamo-keys';
import type { PendingBodies, PendingBody, PendingState, Segment } from './port';

/** The entries, and the two changes a row's commit makes to them in the same step as its rows. */
export interface PendingTable {
  api: PendingBodies;
  /** A row now points at this body. */
  take(patientId: Id, bodyKey: string): void;
  /** A row moved off this body. */
  leave(patientId: Id, bodyKey: string): void;
}

export function memoryPending(): PendingTable {
  const partitions = new Map<Id, Map<string, Omit<PendingBody, 'bodyKey'>>>();
  const set = (patientId: Id, bodyKey: string, state: PendingState) => void innerMap(partitions, patientId).set(bodyKey, { state, since: new Date().toISOString() });
  const take = (patientId: Id, bodyKey: string) => void partitions.get(patientId)?.delete(bodyKey);
  // A patient's entries are all of theirs; a source's, those under its objects' prefix.
  const list = async (segment: Segment): Promise<PendingBody[]> => {
    const prefix = segment.sourceId === undefined ? '' : bodyKeys.ofSegment(segment);
    return [...(partitions.get(segment.patientId)?.entries() ?? [])]
      .filter(([bodyKey]) => bodyKey.startsWith(prefix))
      .sort(([a], [b]) => byKeyBytes(a, b))
      .map(([bodyKey, entry]) => ({ bodyKey, ...entry }));
  };
  const api: PendingBodies = {
    recordWriting: async (patientId, bodyKey) => set(patientId, bodyKey, 'writing'),
    remove: async (patientId, bodyKey) => take(patientId, bodyKey),
    list,
    forget: async (segment) => (await list(segment)).forEach((entry) => take(segment.patientId, entry.bodyKey)),
  };
  return {
    api: holding(api, { pendingBodies: () => nestedEntries(partitions) }),
    take,
    leave: (patientId, bodyKey) => set(patientId, bodyKey, 'discarded'),
  };
}
