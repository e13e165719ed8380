/**
 * A segment's index rows in key order, as every adapter reads them: the sort key that orders them
 * (a source's rows are read by `srcSk`, which puts the source first), the prefix they share, the key
 * to continue after; and the walk through a segment's pages to its end.
 */
import { auxiliaryKeys } from './dynamo-keys';
import type { IndexRow } from '../rows';
import type { ResourceRows, Segment, SegmentQuery } from './port';

export interface SegmentKeys {
  /** Ordered by `srcSk` (one source's rows) rather than `sk` (a patient's). */
  bySource: boolean;
  /** What the ordering key of every row of the segment (and type) starts with. */
  prefix?: string;
  /** The ordering key to continue after. */
  after?: string;
}

export function segmentKeys(q: SegmentQuery): SegmentKeys {
  const { segment } = q;
  if (segment.sourceId === undefined) {
    return { bySource: false, ...(q.type ? { prefix: auxiliaryKeys.typePrefix(q.type) } : {}), ...(q.afterSk === undefined ? {} : { after: q.afterSk }) };
  }
  return {
    bySource: true,
    prefix: q.type ? auxiliaryKeys.sourceTypePrefix(segment.sourceId, q.type) : auxiliaryKeys.sourcePrefix(segment.sourceId),
    ...(q.afterSk === undefined ? {} : { after: `${segment.sourceId}#${q.afterSk}` }),
  };
}

/** Every index row of a segment (of a type), newest first. */
export async function* segmentRows(rows: Pick<ResourceRows, 'page'>, segment: Segment, type?: string): AsyncGenerator<IndexRow> {
  let afterSk: string | undefined;
  do {
    const page = await rows.page({ segment, ...(type ? { type } : {}), descending: true, ...(afterSk ? { afterSk } : {}) });
    yield* page.rows;
    afterSk = page.nextAfterSk;
  } while (afterSk !== undefined);
}
