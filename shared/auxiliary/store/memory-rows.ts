/**
 * The in-memory twin of the rows: resources by id, index rows per patient by `sk`, upstream claims.
 * Records are kept as a read from the table gives them back (through the same item codec), and
 * handed out as copies. A write checks its guards first (the only step that waits), then checks
 * its conditions and applies its changes in one step, so no other call lands in between.
 */
import type { Id } from '../../directory/model';
import type { SearchIndex } from '../../fhir/search';
import { isHttpError } from '../../http/errors';
import { indexItem, indexKeyOf, indexRowOf, resourceItem, resourceRowOf, type IndexRow, type ResourceRow, type RowHead } from '../rows';
import type { PendingTable } from './memory-pending';
import { byKeyBytes } from './memory-order';
import { guardsOf, idTaken, ownerGone, UpstreamIdTaken, type Guard, type IndexPage, type ResourceRows, type Segment, type SegmentQuery } from './port';
import { segmentKeys } from './segments';

export type Exists = (guard: Guard) => boolean | Promise<boolean>;

export function memoryRows(pending: PendingTable, exists: Exists): ResourceRows {
  const resources = new Map<string, ResourceRow>();
  const partitions = new Map<Id, Map<string, IndexRow>>();
  /** Upstream claim -> the id of the row holding it. */
  const claims = new Map<string, string>();

  const claimText = (sourceId: Id, type: string, upstreamId: string) => JSON.stringify([sourceId, type, upstreamId]);
  const claimOf = (head: RowHead) => (head.upstreamId === undefined ? undefined : claimText(head.sourceId, head.type, head.upstreamId));
  const partition = (patientId: Id) => partitions.get(patientId) ?? partitions.set(patientId, new Map()).get(patientId)!;
  const putIndex = (head: RowHead, index: SearchIndex) => {
    const row = indexRowOf(indexItem(head, index));
    partition(head.patientId).set(row.sk, row);
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
    const { bySource, prefix = '', after } = segmentKeys(q);
    const keyOf = (row: IndexRow) => (bySource ? row.srcSk : row.sk);
    const direction = q.descending ? -1 : 1;
    const following = rowsOf(q.segment)
      .filter((row) => keyOf(row).startsWith(prefix) && (after === undefined || direction * byKeyBytes(keyOf(row), after) > 0))
      .sort((a, b) => direction * byKeyBytes(keyOf(a), keyOf(b)));
    // Like a Query, a page that reached its limit says where to go on, even when nothing follows.
    const rows = q.limit ? following.slice(0, q.limit) : following;
    const last = q.limit && rows.length === q.limit ? rows[rows.length - 1] : undefined;
    return { rows: structuredClone(rows), ...(last ? { nextAfterSk: last.sk } : {}) };
  }

  return {
    get: async (id) => structuredClone(resources.get(id)),
    getMany: async (ids) => ids.flatMap((id) => (resources.has(id) ? [structuredClone(resources.get(id)!)] : [])),
    indexRows: async (heads) =>
      heads.flatMap((head) => {
        const row = partitions.get(head.patientId)?.get(indexKeyOf(head).sk);
        return row ? [structuredClone(row)] : [];
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
}
