/**
 * Finding the rows of a search in the stored index items, never re-reading a resource body:
 *
 * - streaming (no `_sort`, no `_id`): segments are read in order, each newest first, a page at a
 *   time, until the page is full; the first pages of the next few segments are fetched while
 *   the current one is read. A page costs what it returns (plus what its filters drop), however
 *   many patients the caller may see.
 * - collecting (`_sort`, or the few rows `_id` names): every matching row's position is computed,
 *   the positions sorted, and the page cut from them.
 *
 * Every read is a strongly consistent Query or BatchGetItem on a key.
 */
import pMap, { pMapIterable } from 'p-map';
import { matchesAll, type Criterion, type SortSpec } from '../../fhir/search';
import { HttpError } from '../../http/errors';
import { parseIndex, type IndexRow } from '../rows';
import { auxiliaryStore } from '../store/current';
import { segmentRows, type Segment } from '../store/port';
import type { Cursor } from '../../fhir/searchset';
import { compareSegments, comparePositions, positionOf, type Position } from './order';

export interface Match {
  id: string;
  position: Position;
}

export interface Walk {
  type: string;
  /** In result order: ascending patient, then source. */
  segments: Segment[];
  criteria: readonly Criterion[];
  sort: readonly SortSpec[];
  /** Anchor of `ap` on dates. */
  now: number;
}

/** Segments read at once (the first page of each). */
const READ_AHEAD = 8;
/** Largest number of matches a sorted search collects before it asks for narrower criteria. */
export const MAX_SORTED_MATCHES = 100_000;

const segmentOfRow = (row: IndexRow, bySource: boolean): Segment => (bySource ? { patientId: row.patientId, sourceId: row.sourceId } : { patientId: row.patientId });

function matchOf(walk: Walk, segment: Segment, row: IndexRow): Match | undefined {
  const index = parseIndex(row);
  if (!matchesAll(index, walk.criteria, walk.now)) return undefined;
  return { id: row.id, position: positionOf(segment, row.place, index, walk.sort) };
}

/** Segments from the cursor's one onwards, in the direction of travel. */
function segmentsFrom(walk: Walk, cursor: Cursor<Position> | undefined): Segment[] {
  const forward = cursor?.direction !== 'previous';
  const ordered = forward ? walk.segments : [...walk.segments].reverse();
  if (!cursor) return ordered;
  return ordered.filter((s) => {
    const order = compareSegments({ patientId: s.patientId, sourceId: s.sourceId ?? 0 }, cursor.at);
    return forward ? order >= 0 : order <= 0;
  });
}

/** Up to `want` matches after the cursor in its direction, nearest first (streaming). */
export async function streamMatches(walk: Walk, cursor: Cursor<Position> | undefined, want: number): Promise<Match[]> {
  const forward = cursor?.direction !== 'previous';
  const firstLimit = Math.min(Math.max(want, 25), 1000);
  const startAfter = (s: Segment) =>
    cursor && s.patientId === cursor.at.patientId && (s.sourceId ?? 0) === cursor.at.sourceId ? cursor.at.place : undefined;
  const read = (segment: Segment, after: string | undefined, limit: number) =>
    auxiliaryStore().rows.page({ segment, type: walk.type, descending: forward, limit, ...(after === undefined ? {} : { after }) });

  const out: Match[] = [];
  const firstPages = pMapIterable(segmentsFrom(walk, cursor), async (segment) => ({ segment, page: await read(segment, startAfter(segment), firstLimit) }), {
    concurrency: READ_AHEAD,
  });
  for await (const first of firstPages) {
    let { page } = first;
    let limit = firstLimit;
    for (;;) {
      for (const row of page.rows) {
        const match = matchOf(walk, first.segment, row);
        if (match) out.push(match);
        if (out.length >= want) return out;
      }
      if (page.nextAfter === undefined) break;
      limit = Math.min(limit * 4, 1000);
      page = await read(first.segment, page.nextAfter, limit);
    }
  }
  return out;
}

/** Every match of the search, in result order (collecting). */
export async function allMatches(walk: Walk, ids?: readonly string[]): Promise<Match[]> {
  const matches = ids ? await matchesOfIds(walk, ids) : await matchesOfSegments(walk);
  return matches.sort((a, b) => comparePositions(a.position, b.position, walk.sort));
}

/** How many rows match (reads the index items only). */
export async function countMatches(walk: Walk, ids?: readonly string[]): Promise<number> {
  if (ids) return (await matchesOfIds(walk, ids)).length;
  const counts = await pMap(
    walk.segments,
    async (segment) => {
      let n = 0;
      for await (const row of segmentRows(auxiliaryStore().rows, segment, walk.type)) if (matchesAll(parseIndex(row), walk.criteria, walk.now)) n += 1;
      return n;
    },
    { concurrency: READ_AHEAD },
  );
  return counts.reduce((a, b) => a + b, 0);
}

async function matchesOfSegments(walk: Walk): Promise<Match[]> {
  const matches: Match[] = [];
  await pMap(
    walk.segments,
    async (segment) => {
      for await (const row of segmentRows(auxiliaryStore().rows, segment, walk.type)) {
        const match = matchOf(walk, segment, row);
        if (!match) continue;
        matches.push(match);
        if (matches.length > MAX_SORTED_MATCHES) {
          throw new HttpError(422, `More than ${MAX_SORTED_MATCHES} resources match this sorted search; narrow it with more criteria.`, 'too-costly').at('_sort');
        }
      }
    },
    { concurrency: READ_AHEAD },
  );
  return matches;
}

/** The rows `_id` names: their resource items say where their index items are. */
async function matchesOfIds(walk: Walk, ids: readonly string[]): Promise<Match[]> {
  const bySource = walk.segments.some((s) => s.sourceId !== undefined);
  const inScope = new Set(walk.segments.map((s) => `${s.patientId}/${s.sourceId ?? 0}`));
  const heads = (await auxiliaryStore().rows.getMany(ids)).filter(
    (r) => r.type === walk.type && inScope.has(`${r.patientId}/${bySource ? r.sourceId : 0}`),
  );
  const rows = await auxiliaryStore().rows.indexRows(heads);
  return rows.flatMap((row) => matchOf(walk, segmentOfRow(row, bySource), row) ?? []);
}
