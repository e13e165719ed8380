/**
 * The observation store port: what the readings' families need kept, in their own terms. Two
 * adapters implement it, DynamoDB (`dynamo.ts`, the service's) and in memory (`memory.ts`, a twin
 * for fast tests); one contract suite (test/contract/observation-store.ts) runs against both, so
 * they cannot drift. What a write decides before it reaches a store (the lookup of readings already
 * stored, ids, the time stamp, the size limit, raising the span statistics) stays in the domain
 * functions (`../write.ts`, `../span-stats.ts`), once, in front of either adapter.
 *
 * Rows come back as `ObservationItem`s (`../items.ts`) with their index sort keys, which the search
 * orders and positions by: both adapters order by exactly those keys.
 *
 * The outcomes a store reports for a refused reading are the same values from either adapter, built here.
 */
import { STORE_BUSY } from '../../http/errors';
import type { ObservationItem } from '../items';
import type { IndexName } from '../keys';
import type { ObservationIdentifier, ReadingKey, StoredObservation } from '../model';

export type WriteOutcome =
  /** Stored now. */
  | { kind: 'created'; observation: StoredObservation }
  /** The same reading (patient + `header.uuid`) was already stored: this is that row. */
  | { kind: 'existing'; observation: StoredObservation }
  /** An identifier of the reading belongs to another observation. */
  | { kind: 'conflict'; identifier: ObservationIdentifier; heldBy: number }
  /** The store could not take it (after retries) or refused it; nothing of it is stored. */
  | { kind: 'failed'; status: 413 | 500 | 503; reason: string };

/** One read of a patient's rows in an index's order. */
export interface PartitionQuery {
  patientId: number;
  index: IndexName;
  /** Inclusive bounds on the index's sort key (either may be absent). */
  from?: string;
  to?: string;
  ascending: boolean;
  /** Only these fields of each row (what a search shows or a count tests); all when absent. */
  attributes?: readonly string[];
  /** Count only: no rows come back. */
  countOnly?: boolean;
}

declare const pageStart: unique symbol;
/** Where the next page of a read starts: opaque, accepted back only by the adapter that made it. */
export type PageStart = { readonly [pageStart]: true };

export interface RowsPage {
  items: ObservationItem[];
  /** Rows this page holds (or counted, for `countOnly`). */
  count: number;
  /** Absent after the last page; a page that stopped at its limit names one even when no row follows. */
  next: PageStart | undefined;
}

export interface ObservationStore {
  /** `count` fresh ids, increasing. */
  newIds(count: number): Promise<number[]>;
  /** The readings already stored among these (patient + uuid), in no particular order. */
  findReadings(keys: readonly ReadingKey[]): Promise<StoredObservation[]>;
  /**
   * Stores readings with fresh ids; one outcome per reading, in order. A reading whose patient +
   * uuid is taken answers 'existing' with the row there (also one taken earlier in the same call);
   * one whose identifier another observation holds answers 'conflict'.
   */
  insert(readings: readonly StoredObservation[]): Promise<WriteOutcome[]>;
  /**
   * Makes readings answered as already stored readable by id (their first upload may have stopped
   * half way); returns the ids that still are not.
   */
  makeReadableById(readings: readonly StoredObservation[]): Promise<number[]>;
  readById(id: number): Promise<StoredObservation | undefined>;
  /** The readings with these ids that exist, in no particular order. */
  readByIds(ids: readonly number[]): Promise<StoredObservation[]>;
  /** One page of a patient's rows, at most `limit` of them, after `start`. */
  patientRows(query: PartitionQuery, limit: number | undefined, start?: PageStart): Promise<RowsPage>;
  /**
   * Raises the patient's stored span (the longest effective period, in ms) to at least `span`,
   * never lowering it; returns the span stored afterwards.
   */
  raiseSpan(patientId: number, span: number): Promise<number>;
  /** The stored span of each of these patients that has one. */
  spans(patientIds: readonly number[]): Promise<Map<number, number>>;
  /** Deletes the patient's readings with everything that leads to them (ids, identifiers, span); returns how many. */
  deletePatient(patientId: number): Promise<number>;
}

export const failed = (status: 413 | 500 | 503, reason: string): WriteOutcome => ({ kind: 'failed', status, reason });
/** A reading the store stayed too busy to take (the upload answers it as an unfinished entry, `upload/unfinished.ts`). */
export const storeBusy = () => failed(503, STORE_BUSY);
export const storeRefused = () => failed(500, 'The store refused the reading.');
