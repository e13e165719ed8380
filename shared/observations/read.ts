/**
 * Reading stored observations through the observation store: by id, by ids, and one page of a
 * patient's rows in an index's order (what the search reads). Every read is strongly consistent.
 */
import { observationStore } from './store/current';
import type { PageStart, PartitionQuery, RowsPage } from './store/port';
import type { StoredObservation } from './model';

export type { PartitionQuery } from './store/port';

export const readObservation = (id: number): Promise<StoredObservation | undefined> => observationStore().readById(id);

/** The observations with these ids that exist, in no particular order. */
export const readObservations = (ids: readonly number[]): Promise<StoredObservation[]> => observationStore().readByIds(ids);

/** One page of a patient's rows, at most `limit` of them, after `start` (a page's `next`). */
export const queryPartition = (q: PartitionQuery, limit: number | undefined, start?: PageStart): Promise<RowsPage> => observationStore().patientRows(q, limit, start);
