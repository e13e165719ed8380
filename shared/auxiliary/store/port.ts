/**
 * The auxiliary store's port: what the auxiliary resources need kept, in their own terms. Two
 * adapters implement it, DynamoDB with S3 (`dynamo.ts`, the service's) and in memory (`memory.ts`, a
 * twin for fast tests); one contract suite (test/contract/auxiliary-store.ts) runs against both, so
 * they cannot drift. Making a row (its id, version, stamped copy, search index, where its body
 * goes) and the retries of a lost race stay in the domain (`../persist.ts`, `../writes.ts`), once,
 * in front of either adapter.
 *
 * A row is kept as three records written together: its resource (`ResourceRow`), its index row in
 * the patient's segment (`IndexRow`, which moves with `lastUpdated`) and, when it was submitted
 * with an id, the claim of that upstream id for its FHIR Source and type. A body too large for the
 * resource is kept apart (`Bodies`), and every body no row points at is listed (`PendingBodies`)
 * until it is deleted.
 *
 * The errors a store raises for a refused change are the same values from either adapter, built here.
 */
import type { Id } from '../../directory/model';
import type { SearchIndex } from '../../fhir/search';
import { badRequest, conflict, HttpError } from '../../http/errors';
import type { IndexRow, ResourceRow, RowHead } from '../rows';

/** One segment's index rows: a patient's (of every source), or one of their FHIR Sources'. */
export interface Segment {
  patientId: Id;
  sourceId?: Id;
}

export interface SegmentQuery {
  segment: Segment;
  /** Only rows of this type (all types when absent). */
  type?: string;
  /** Newest update first when true. */
  descending: boolean;
  /** Continue after this place (an index row's `place`; the row need not still exist). */
  after?: string;
  /** At most this many rows; the adapter's own page size when absent. */
  limit?: number;
}

export interface IndexPage {
  /** In the order asked for (by `place`). */
  rows: IndexRow[];
  /**
   * The place the next page starts after, when there may be one: always when the page reached its
   * limit (even if nothing follows), and when the adapter's own page size cut it.
   */
  nextAfter?: string;
}

/** A directory record a row's write needs to still exist: its FHIR Source, and its patient. */
export interface Guard {
  kind: 'fhirSource' | 'patient';
  id: Id;
}

/** The guards of a row's write, in the order the store checks them. */
export const guardsOf = (head: Pick<RowHead, 'patientId' | 'sourceId'>): Guard[] => [
  { kind: 'fhirSource', id: head.sourceId },
  { kind: 'patient', id: head.patientId },
];

export interface ResourceRows {
  /** Whether a body is kept inside its row; a larger one is kept apart (`Bodies`). */
  keepsInline(json: string): boolean;
  /** The row of that id (strongly consistent). */
  get(id: string): Promise<ResourceRow | undefined>;
  /** The rows of ids, in the order given; unknown ids are skipped, an id named twice is answered twice. */
  getMany(ids: readonly string[]): Promise<ResourceRow[]>;
  /**
   * The index rows of these heads at the version each head names (its `lastUpdated`), in the order
   * given; a head whose index row has moved or gone is skipped.
   */
  indexRows(heads: readonly RowHead[]): Promise<IndexRow[]>;
  /** The id of the row holding an upstream id for a FHIR Source and type, if there is one. */
  claimedId(sourceId: Id, type: string, upstreamId: string): Promise<string | undefined>;
  /** One page of a segment's index rows, in `place` order. */
  page(query: SegmentQuery): Promise<IndexPage>;
  /**
   * Writes a new row (resource, index row, upstream claim) and takes its body off the pending list,
   * all or nothing. Refused, in this order: 409 `idTaken` when the id is stored; `UpstreamIdTaken`
   * when its source already holds its upstream id for the type; `ownerGone` when its FHIR Source or
   * its patient no longer exists.
   */
  create(row: ResourceRow, index: SearchIndex): Promise<void>;
  /**
   * Replaces `previous` by `next` (its next version; the index row moves with `lastUpdated`), takes
   * the new body off the pending list and lists the old one as discarded, all or nothing. Refused,
   * in this order: `onConflict()` when the stored row is gone or not at `previous.version`;
   * `ownerGone` as for `create`.
   */
  update(previous: ResourceRow, next: ResourceRow, index: SearchIndex, onConflict: () => HttpError): Promise<void>;
  /** Deletes the row with its index row and claim, listing its body as discarded; `onConflict()` unless at `row.version`. */
  remove(row: ResourceRow, onConflict: () => HttpError): Promise<void>;
  /** Deletes every row of a segment (resource, index row, claim); returns how many rows. Idempotent. */
  removeAll(segment: Segment): Promise<number>;
  /**
   * Whether a write that failed is known to have written nothing (a refusal: a failed condition, a
   * busy or invalid request), rather than possibly landed (a timeout, a lost answer).
   */
  refused(error: unknown): boolean;
}

export type PendingState = 'writing' | 'discarded';

export interface PendingBody {
  bodyKey: string;
  state: PendingState;
  /** ISO instant the entry was written. */
  since: string;
}

/** The bodies no row points at: being written, or left by a row that moved off them. */
export interface PendingBodies {
  /** Lists a body about to be written (state `writing`, since now). */
  recordWriting(patientId: Id, bodyKey: string): Promise<void>;
  /** Removes a body's entry (idempotent). */
  remove(patientId: Id, bodyKey: string): Promise<void>;
  /** A segment's entries (a source's are those under its body keys), in body key order. */
  list(segment: Segment): Promise<PendingBody[]>;
  /** Removes a segment's entries. */
  forget(segment: Segment): Promise<void>;
}

/** The bodies too large for a row, by body key; a key is written once (each write uses a new one). */
export interface Bodies {
  /** A new key for one write of this row's body (each write its own object, so racing writers never share one). */
  newKey(head: RowHead): string;
  put(bodyKey: string, json: string): Promise<void>;
  /** The body's JSON text; rejects when there is none. */
  get(bodyKey: string): Promise<string>;
  /** Idempotent. */
  remove(bodyKey: string): Promise<void>;
  /** Deletes every body of a segment (under its key prefix, so also those no entry lists); returns how many. */
  removeAll(segment: Segment): Promise<number>;
}

export interface AuxiliaryStore {
  rows: ResourceRows;
  pending: PendingBodies;
  bodies: Bodies;
}

/** Every index row of a segment (of a type), newest first, a page at a time. */
export async function* segmentRows(rows: Pick<ResourceRows, 'page'>, segment: Segment, type?: string): AsyncGenerator<IndexRow> {
  let after: string | undefined;
  do {
    const page = await rows.page({ segment, ...(type ? { type } : {}), descending: true, ...(after === undefined ? {} : { after }) });
    yield* page.rows;
    after = page.nextAfter;
  } while (after !== undefined);
}

export const idTaken = (id: string) => conflict(`Resource id ${id} already exists.`);

/** Another row of the same source and type already holds the upstream id (the create becomes an update of it). */
export class UpstreamIdTaken extends HttpError {
  constructor() {
    super(409, 'A resource with this id was already stored through this FHIR Source.', 'duplicate');
  }
}

/** A deleted source or patient gets no new rows (the same answer whichever of the two is gone). */
export const ownerGone = (head: Pick<RowHead, 'sourceId'>) => badRequest(`Unknown FHIR Source ${head.sourceId}.`, 'not-found');
