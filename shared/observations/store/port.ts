/**
 * The observation store port: what the readings' families need kept, in their own terms. Two
 * adapters implement it, DynamoDB (`blocks.ts`, the service's) and in memory (`memory.ts`, a twin
 * for fast tests); one contract suite (test/contract/observation-store.ts) runs against both, so
 * they cannot drift. What a write decides before it reaches a store (the lookup of readings already
 * stored, ids, the time stamp, refusing a reading too large to keep, raising the span statistics) stays in the domain
 * functions (`../write.ts`, `../span-stats.ts`), once, in front of either adapter.
 *
 * It speaks of readings, never of tables: a patient's readings in an order (`ReadingsQuery`), a page
 * after another (`PageStart`), a count; how they are keyed and indexed is each adapter's own
 * (DynamoDB's keys in `block-keys.ts`, its blocks in `block-items.ts`).
 *
 * The outcomes a store reports for a refused reading are the same values from either adapter, built here.
 */
import { STORE_BUSY } from '../../http/errors';
import type { KeptValue, ObservationIdentifier, ReadingFacts, ReadingKey, StoredObservation } from '../model';

export type WriteOutcome =
  /** Stored now. */
  | { kind: 'created'; observation: StoredObservation }
  /** The same reading (patient + `header.uuid`) was already stored: this is that row. */
  | { kind: 'existing'; observation: StoredObservation }
  /** An identifier of the reading belongs to another observation. */
  | { kind: 'conflict'; identifier: ObservationIdentifier; heldBy: number }
  /** The store could not take it (after retries) or refused it; nothing of it is stored. */
  | { kind: 'failed'; status: 413 | 500 | 503; reason: string };

/**
 * One read of a patient's readings in one of the orders the store keeps them in:
 *
 * - `effective`: dated readings by effective start, then id; undated readings after every dated
 *   one, by id;
 * - `updated`: every reading by last update, then id.
 *
 * A read takes the dated readings within `time` and the undated ones within `undated`, either or
 * both. Both at once are one stretch of the order: `time` then has no `to` and `undated` no `from`.
 */
export interface ReadingsQuery {
  patientId: number;
  order: 'effective' | 'updated';
  /** Only this code's readings (`effective` order); every code's when absent. */
  codeId?: number;
  ascending: boolean;
  /**
   * Readings whose time (the effective start, or the last update) lies within these bounds, both
   * inclusive to the millisecond (epoch ms; an absent end is open). Absent: no dated reading.
   */
  time?: { from?: number; to?: number };
  /**
   * Undated readings (`effective` order) whose id lies within these inclusive bounds. Absent: none.
   * Read with dated ones, they come after them (ascending), before them (descending).
   */
  undated?: { from?: number; to?: number };
}

declare const pageStart: unique symbol;
/** Where the next page of a read starts: opaque, accepted back only by the adapter that made it. */
export type PageStart = { readonly [pageStart]: true };

/**
 * What a read keeps of the readings it passes, applied by the store as it reads them, so a page
 * counts kept readings only: a store that keeps readings apart from their payloads tests their
 * facts first (`keep` sees `data` only with `needsPayload`), and one that keeps value bounds per
 * stretch of a code passes over the stretches `mayHold` rules out.
 */
export interface ReadingFilter {
  keep: (reading: ReadingFacts) => boolean;
  /** Whether `keep` reads a reading's payload. */
  needsPayload?: boolean;
  /** Whether readings of the code whose values lie within these bounds may pass `keep` (no bounds: readings without values). */
  mayHold?: (codeId: number, bounds: readonly ValueBounds[]) => boolean;
  /**
   * A test of a reading's code and kept values alone that every reading `keep` keeps passes: a
   * store that keeps readings packed together leaves out those it fails before building them.
   */
  keepValues?: (codeId: number, values: KeptValue[] | undefined) => boolean;
}

/** The least and greatest value of a member in one unit over some readings; `unit` undefined: the member's default unit. */
export interface ValueBounds {
  member: number;
  unit: string | undefined;
  min: number;
  max: number;
}

export interface ReadingsPage {
  readings: StoredObservation[];
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
  /** One page of a patient's readings (those `filter` keeps), at most `limit` of them, after `start`. */
  readings(query: ReadingsQuery, limit: number | undefined, start?: PageStart, filter?: ReadingFilter): Promise<ReadingsPage>;
  /**
   * How many of a patient's readings the query reads (those `test` accepts, when given). The test
   * sees each reading's facts, without its payload unless `withPayload` (it costs the payload's
   * bytes on every reading read).
   */
  countReadings(query: ReadingsQuery, test?: (reading: ReadingFacts) => boolean, withPayload?: boolean): Promise<number>;
  /** Why the store cannot keep this reading (too large), or undefined; asked before anything is written. */
  tooLarge(reading: StoredObservation): string | undefined;
  /** Whether the store can hold this identifier's claim (one across the store); too long a system and value cannot. */
  canClaim(identifier: ObservationIdentifier): boolean;
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
/** A reading the store stayed too busy to take (the upload answers it as an unfinished entry, `create/unfinished.ts`). */
export const storeBusy = () => failed(503, STORE_BUSY);
export const storeRefused = () => failed(500, 'The store refused the reading.');
