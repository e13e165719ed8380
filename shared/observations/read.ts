/**
 * Reading stored observations through the observation store: by id, by ids, one page of a
 * patient's readings in an order (what the search reads), and a count of them. Every read is
 * strongly consistent.
 */
import { observationStore } from './store/current';
import type { PageStart, ReadingFilter, ReadingsPage, ReadingsQuery } from './store/port';
import type { ReadingFacts, StoredObservation } from './model';

export type { ReadingFilter, ReadingsQuery } from './store/port';

export const readObservation = (id: number): Promise<StoredObservation | undefined> => observationStore().readById(id);

/** The observations with these ids that exist, in no particular order. */
export const readObservations = (ids: readonly number[]): Promise<StoredObservation[]> => observationStore().readByIds(ids);

/** One page of a patient's readings (those `filter` keeps), at most `limit` of them, after `start` (a page's `next`). */
export const readReadings = (q: ReadingsQuery, limit: number | undefined, start?: PageStart, filter?: ReadingFilter): Promise<ReadingsPage> => observationStore().readings(q, limit, start, filter);

/** How many of a patient's readings the query reads (those `test` accepts, when given; shown their payloads with `withPayload`). */
export const countReadings = (q: ReadingsQuery, test?: (reading: ReadingFacts) => boolean, withPayload = false): Promise<number> => observationStore().countReadings(q, test, withPayload);
