/**
 * The rows one auxiliary resource is kept as, as typed values (how a table stores them is its
 * adapter's: `store/dynamo-items.ts`). Both carry the owner, version and body location, so a
 * search, an update and a deletion each need only the rows they already read.
 */
import type { Id } from '../directory/model';
import type { SearchIndex } from '../fhir/search';

/** Who a row belongs to and which version it is: the same on both items. */
export interface RowHead {
  id: string;
  type: string;
  patientId: Id;
  sourceId: Id;
  version: number;
  /** ISO instant in UTC with milliseconds (`meta.lastUpdated`). */
  lastUpdated: string;
  /** The id the resource had when it was submitted, if any (unique per source and type). */
  upstreamId?: string;
  /** S3 key of the body when it is too large for the item. */
  bodyKey?: string;
}

/** The resource item: the body (inline, or where it lives) and its owner. */
export interface ResourceRow extends RowHead {
  /** The stored resource as JSON text, when inline. */
  body?: string;
}

/** The search-index row of a resource in its patient's segment. */
export interface IndexRow extends RowHead {
  /**
   * Its place in the segment's order (type, then `lastUpdated`, then id): text the store makes,
   * which compares as the rows are ordered; a page continues after one (`SegmentQuery.after`).
   */
  place: string;
  /** The search index values (JSON text of a `SearchIndex`). */
  idx: string;
}

export function parseIndex(row: IndexRow): SearchIndex {
  return JSON.parse(row.idx) as SearchIndex;
}
