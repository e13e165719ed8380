/**
 * The auxiliary table's operations: key reads (GetItem, BatchGetItem, Query on the base table or
 * the `bySource` local index, all strongly consistent) and the all-or-nothing writes of a row
 * (its resource item, its index item, its upstream claim and the pending-body entries of the
 * objects it takes or leaves, in one transaction, with conditions on the FHIR Source and the
 * patient so nothing lands for a source or patient deleted meanwhile).
 * Nothing here scans.
 */
import { config } from '../config';
import { check } from '../directory/db';
import { keys as directoryKeys } from '../directory/keys';
import type { Id } from '../directory/model';
import type { SearchIndex } from '../fhir/search';
import { badRequest, conflict, HttpError } from '../http/errors';
import { batchGetInOrder } from '../store/batch';
import { getItem, queryPage } from '../store/reads';
import { atVersion, transact, writesOn, type Write } from '../store/transact';
import { auxKeys, SOURCE_INDEX, type Key } from './keys';
import { pendingBodyItem } from './pending-bodies';
import { claimKeyOf, indexItem, indexKeyOf, indexRowOf, resourceItem, resourceRowOf, type IndexRow, type ResourceRow } from './rows';

const table = () => config().auxTable;
const aux = writesOn(table);

export async function getResourceRow(id: string): Promise<ResourceRow | undefined> {
  const item = await getItem(table(), auxKeys.resource(id));
  return item && resourceRowOf(item);
}

export async function getResourceRows(ids: readonly string[]): Promise<ResourceRow[]> {
  return (await batchGetInOrder(table(), ids.map(auxKeys.resource))).map(resourceRowOf);
}

export async function getIndexRows(keys: readonly Key[]): Promise<IndexRow[]> {
  return (await batchGetInOrder(table(), keys)).map(indexRowOf);
}

/** The id of the row holding an upstream id for a source and type, if there is one. */
export async function claimedId(sourceId: Id, type: string, upstreamId: string): Promise<string | undefined> {
  const item = await getItem(table(), auxKeys.upstreamClaim(sourceId, type, upstreamId));
  return typeof item?.id === 'string' ? item.id : undefined;
}

// --- queries ------------------------------------------------------------------------------------

/** One partition's index items: a patient's rows (of a type), or one source's rows of that patient. */
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
  /** Continue after this index item (its base-table sort key). */
  afterSk?: string;
  limit?: number;
}

/** Base-table sort key -> the `bySource` key of the same item. */
function sourceSkOf(segment: Segment, sk: string): string {
  return `${segment.sourceId}#${sk}`;
}

/** One page of a segment's index items, in order, and the sort key to continue after (if any). */
export async function queryIndexPage(q: SegmentQuery): Promise<{ rows: IndexRow[]; nextAfterSk?: string }> {
  const { segment } = q;
  const bySource = segment.sourceId !== undefined;
  const pk = auxKeys.patientPartition(segment.patientId);
  const prefix = bySource
    ? q.type
      ? auxKeys.sourceTypePrefix(segment.sourceId!, q.type)
      : auxKeys.sourcePrefix(segment.sourceId!)
    : q.type
      ? auxKeys.typePrefix(q.type)
      : undefined;
  const start = q.afterSk === undefined ? undefined : { pk, sk: q.afterSk, ...(bySource ? { srcSk: sourceSkOf(segment, q.afterSk) } : {}) };
  const out = await queryPage(
    { table: table(), pk, ...(prefix === undefined ? {} : { skPrefix: prefix }), ...(bySource ? { index: SOURCE_INDEX, skName: 'srcSk' } : {}), descending: q.descending },
    { ...(q.limit ? { limit: q.limit } : {}), ...(start ? { start } : {}) },
  );
  // A patient partition holds only index items; anything else would be a foreign item: skip it.
  const rows = out.items.filter((i) => typeof i.idx === 'string').map(indexRowOf);
  return out.next ? { rows, nextAfterSk: String(out.next.sk) } : { rows };
}

/** Every index item of a segment (of a type), following the pages. */
export async function* segmentRows(segment: Segment, type?: string): AsyncGenerator<IndexRow> {
  let afterSk: string | undefined;
  do {
    const page = await queryIndexPage({ segment, ...(type ? { type } : {}), descending: true, ...(afterSk ? { afterSk } : {}) });
    yield* page.rows;
    afterSk = page.nextAfterSk;
  } while (afterSk !== undefined);
}

// --- writes ---------------------------------------------------------------------------------------

export const preconditionFailed = (message: string) => new HttpError(412, message, 'conflict');

/** The owner must still exist when the row is written: a deleted source or patient gets no new rows. */
function ownerChecks(row: ResourceRow): Write[] {
  const gone = () => badRequest(`Unknown FHIR Source ${row.sourceId}.`, 'not-found');
  return [
    check(directoryKeys.fhirSource(row.sourceId), 'attribute_exists(pk)', {}, gone),
    check(directoryKeys.patient(row.patientId), 'attribute_exists(pk)', {}, gone),
  ];
}

/** Another row of the same source and type already holds the upstream id (the create becomes an update of it). */
export class UpstreamIdTaken extends HttpError {
  constructor() {
    super(409, 'A resource with this id was already stored through this FHIR Source.', 'duplicate');
  }
}

/** Writes a new row; throws `UpstreamIdTaken` when its upstream id is already stored. */
export async function commitCreate(row: ResourceRow, index: SearchIndex): Promise<void> {
  const claim = claimKeyOf(row);
  await transact([
    aux.putNew(resourceItem(row), () => conflict(`Resource id ${row.id} already exists.`)),
    aux.put(indexItem(row, index)),
    ...(claim ? [aux.putNew({ ...claim, id: row.id }, () => new UpstreamIdTaken())] : []),
    ...bodyTaken(row),
    ...ownerChecks(row),
  ]);
}

/** The row now points at its new object: it is no longer pending. */
function bodyTaken(row: ResourceRow): Write[] {
  return row.bodyKey === undefined ? [] : [aux.remove(auxKeys.pendingBody(row.patientId, row.bodyKey))];
}

/** The row no longer points at this object: it is listed for deletion. */
function bodyLeft(row: ResourceRow): Write[] {
  return row.bodyKey === undefined ? [] : [aux.put(pendingBodyItem(row.patientId, row.bodyKey, 'discarded'))];
}

/** Replaces a row by its next version (the index item moves with `lastUpdated`). */
export async function commitUpdate(previous: ResourceRow, next: ResourceRow, index: SearchIndex, onConflict: () => HttpError): Promise<void> {
  const oldIndex = indexKeyOf(previous);
  const moved = oldIndex.sk !== indexKeyOf(next).sk;
  await transact([
    aux.put(resourceItem(next), atVersion(previous.version), onConflict),
    ...(moved ? [aux.remove(oldIndex)] : []),
    aux.put(indexItem(next, index)),
    ...bodyTaken(next),
    ...bodyLeft(previous),
    ...ownerChecks(next),
  ]);
}

/** Deletes a row's items (resource, index, upstream claim) if it is still at the version read. */
export async function commitDelete(row: ResourceRow, onConflict: () => HttpError): Promise<void> {
  const claim = claimKeyOf(row);
  await transact([
    aux.remove(auxKeys.resource(row.id), atVersion(row.version), onConflict),
    aux.remove(indexKeyOf(row)),
    ...(claim ? [aux.remove(claim)] : []),
    ...bodyLeft(row),
  ]);
}
