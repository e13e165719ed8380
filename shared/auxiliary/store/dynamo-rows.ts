/**
 * The rows on the auxiliary table: key reads (GetItem, BatchGetItem, Query on the base table or the
 * `bySource` local index, all strongly consistent), a segment's deletion, and the commits of
 * `dynamo-commits.ts`. Nothing here scans.
 */
import { config } from '../../config';
import { batchDeleteAll, batchGetInOrder } from '../../store/batch';
import { getItem, queryPage } from '../../store/reads';
import { auxiliaryKeys, SOURCE_INDEX, type Key } from './dynamo-keys';
import type { IndexRow } from '../rows';
import { claimKeyOf, indexKeyOf, indexRowOf, keepsInline, resourceRowOf } from './dynamo-items';
import { commits } from './dynamo-commits';
import { segmentRows, type IndexPage, type ResourceRows, type Segment, type SegmentQuery } from './port';

const table = () => config().auxTable;

/**
 * A segment's Query: a patient's index items by `sk` (a row's place), of a type under its prefix;
 * a source's on the `bySource` index by `srcSk` (the source, then the place), so the source's own
 * prefix comes first and the start key carries both sort keys.
 */
async function page(q: SegmentQuery): Promise<IndexPage> {
  const pk = auxiliaryKeys.patientPartition(q.segment.patientId);
  const { sourceId } = q.segment;
  const ordering = (key: string) => (sourceId === undefined ? key : auxiliaryKeys.onSource(sourceId, key));
  const prefix = ordering(q.type === undefined ? '' : auxiliaryKeys.typePrefix(q.type));
  const start = q.after === undefined ? undefined : { pk, sk: q.after, ...(sourceId === undefined ? {} : { srcSk: ordering(q.after) }) };
  const out = await queryPage(
    { table: table(), pk, ...(prefix ? { skPrefix: prefix } : {}), ...(sourceId === undefined ? {} : { index: SOURCE_INDEX, skName: 'srcSk' }), descending: q.descending },
    { ...(q.limit ? { limit: q.limit } : {}), ...(start ? { start } : {}) },
  );
  // A patient partition holds only index items; anything else would be a foreign item: skip it.
  const rows = out.items.filter((i) => typeof i.idx === 'string').map(indexRowOf);
  return out.next ? { rows, nextAfter: String(out.next.sk) } : { rows };
}

/** All items of a row: its resource, its index item and its upstream claim. */
function itemKeysOf(row: IndexRow): Key[] {
  const claim = claimKeyOf(row);
  return [auxiliaryKeys.resource(row.id), indexKeyOf(row), ...(claim ? [claim] : [])];
}

/** Deletes the rows of a segment a page of index items at a time; returns how many. */
async function removeAll(segment: Segment): Promise<number> {
  let deleted = 0;
  let batch: IndexRow[] = [];
  const flush = async () => {
    await batchDeleteAll(table(), batch.flatMap(itemKeysOf));
    deleted += batch.length;
    batch = [];
  };
  for await (const row of segmentRows({ page }, segment)) {
    batch.push(row);
    if (batch.length >= 100) await flush();
  }
  await flush();
  return deleted;
}

export const rows: ResourceRows = {
  keepsInline,
  get: async (id) => {
    const item = await getItem(table(), auxiliaryKeys.resource(id));
    return item && resourceRowOf(item);
  },
  getMany: async (ids) => (await batchGetInOrder(table(), ids.map(auxiliaryKeys.resource))).map(resourceRowOf),
  indexRows: async (heads) => (await batchGetInOrder(table(), heads.map(indexKeyOf))).map(indexRowOf),
  claimedId: async (sourceId, type, upstreamId) => {
    const item = await getItem(table(), auxiliaryKeys.upstreamClaim(sourceId, type, upstreamId));
    return typeof item?.id === 'string' ? item.id : undefined;
  },
  page,
  removeAll,
  ...commits,
};
