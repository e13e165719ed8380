/**
 * The in-memory twin of the rows: resources by id, index rows per patient by place, upstream claims.
 * Records are kept as a read from the table gives them back (through the same item codec), and
 * handed out as copies. A write checks its guards first (the only step that waits), then checks
 * its conditions and applies its changes in one step, so no other call lands in between.
 */
import type { Id } from '../../directory/model';
import type { SearchIndex } from '../../fhir/search';
import { isHttpError } from '../../http/errors';
import { copiesOf, copy, holding, innerMap, keyPage, nestedEntries, readCopy } from '../../store/memory';
import type { IndexRow, ResourceRow, RowHead } from '../rows';
import { indexItem, indexKeyOf, indexRowOf, keepsInline, resourceItem, resourceRowOf } from './dynamo-items';
import type { PendingTable } from './memory-pending';
import { guardsOf, idTaken, ownerGone, UpstreamIdTaken, type Guard, type IndexPage, type ResourceRows, type Segment, type SegmentQuery } from './port';

export type Exists = (guard: Guard) => boolean | Promise<boolean>;

export function memoryRows(pending: PendingTable, exists: Exists): ResourceRows {
  const resources = new Map<string, ResourceRow>();
  const partitions = new Map<Id, Map<string, IndexRow>>();
  /** Upstream claim -> the id of the row holding it. */
  const claims = new Map<string, string>();

  const claimText = (sourceId: Id, type: string, upstreamId: string) => JSON.stringify([sourceId, type, upstreamId]);
  const claimOf = (head: RowHead) => (head.upstreamId === undefined ? undefined : claimText(head.sourceId, head.type, head.upstreamId));
  const putIndex = (head: RowHead, index: SearchIndex) => {
    const row = indexRowOf(indexItem(head, index));
    innerMap(partitions, head.patientId).set(row.place, row);
  };
  const dropIndex = (head: RowHead) => partitions.get(head.patientId)?.delete(indexKeyOf(head).sk);
  /** Every record of a row: its resource, its index row at the head's version, its claim. */
  const drop = (head: RowHead) => {
    resources.delete(head.id);
    dropIndex(head);
    const claim = claimOf(head);
    if (claim !== undefined) claims.delete(claim);
  };
  const rowsOf = (segment: Segment) => [...(partitions.get(segment.patientId)?.values() ?? [])].filter((r) => segment.sourceId === undefined || r.sourceId === segment.sourceId);
  const ownersExist = async (head: RowHead) => (await Promise.all(guardsOf(head).map(exists))).every(Boolean);

  function page(q: SegmentQuery): IndexPage {
    // A segment's rows are its patient's, or their source's; either way ordered by place.
    const placeOf = (row: IndexRow) => row.place;
    const ofType = rowsOf(q.segment).filter((row) => q.type === undefined || row.type === q.type);
    const { rows, last } = keyPage(ofType, placeOf, { descending: q.descending, after: q.after, limit: q.limit || undefined });
    return { rows: rows.map(copy), ...(last ? { nextAfter: last.place } : {}) };
  }

  const api: ResourceRows = {
    keepsInline,
    get: readCopy(resources),
    getMany: async (ids) => copiesOf(resources, ids),
    indexRows: async (heads) =>
      heads.flatMap((head) => {
        const row = partitions.get(head.patientId)?.get(indexKeyOf(head).sk);
        return row ? [copy(row)] : [];
      }),
    claimedId: async (sourceId, type, upstreamId) => claims.get(claimText(sourceId, type, upstreamId)),
    page: async (q) => page(q),

    create: async (row, index) => {
      const owned = await ownersExist(row);
      const claim = claimOf(row);
      if (resources.has(row.id)) throw idTaken(row.id);
      if (claim !== undefined && claims.has(claim)) throw new UpstreamIdTaken();
      if (!owned) throw ownerGone(row);
      resources.set(row.id, resourceRowOf(resourceItem(row)));
      putIndex(row, index);
      if (claim !== undefined) claims.set(claim, row.id);
      if (row.bodyKey !== undefined) pending.take(row.patientId, row.bodyKey);
    },

    update: async (previous, next, index, onConflict) => {
      const owned = await ownersExist(next);
      if (resources.get(next.id)?.version !== previous.version) throw onConflict();
      if (!owned) throw ownerGone(next);
      resources.set(next.id, resourceRowOf(resourceItem(next)));
      dropIndex(previous);
      putIndex(next, index);
      if (next.bodyKey !== undefined) pending.take(next.patientId, next.bodyKey);
      if (previous.bodyKey !== undefined) pending.leave(previous.patientId, previous.bodyKey);
    },

    remove: async (row, onConflict) => {
      if (resources.get(row.id)?.version !== row.version) throw onConflict();
      drop(row);
      if (row.bodyKey !== undefined) pending.leave(row.patientId, row.bodyKey);
    },

    removeAll: async (segment) => {
      const doomed = rowsOf(segment);
      doomed.forEach(drop);
      return doomed.length;
    },

    // The twin's refusals are its own HttpErrors; anything else could not say what it wrote.
    refused: isHttpError,
  };
  // A claim shown by what it reserves (source, type, upstream id) and the row holding it.
  const heldClaims = () => [...claims].map(([text, id]) => [JSON.parse(text) as unknown, { id }] as const);
  return holding(api, { resources: () => resources, indexRows: () => nestedEntries(partitions), upstreamClaims: heldClaims });
}
