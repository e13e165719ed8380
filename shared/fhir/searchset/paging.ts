/**
 * The paging half of a search, the same in every store: how `_count` and `_summary` are read, and
 * how a page is cut from the store's ordered rows.
 *
 * `_count` has one reading (FHIR's): absent, the default page size; `_count=0` (like
 * `_summary=count`) asks for the total only; above the maximum, it is clamped to
 * `config().maxPageSize`; a malformed value (negative, not a whole number, text, or given twice)
 * is an ignored parameter: the default page size applies and the outcome entry says so, or, under
 * `Prefer: handling=strict`, the search is a 400 like any other ignored parameter.
 */
import { config } from '../../config';
import { DEFAULT_PAGE_SIZE } from '../constants';
import type { UnknownParam } from '../search/criteria';
import type { Cursor } from './cursor';

export interface PageRequest {
  /** Rows per page (at least 1). */
  count: number;
  /** `_count=0` or `_summary=count`: the total only, no rows. */
  countOnly: boolean;
  /** `_count` / `_summary` values that were not applied, for the outcome entry (and strict handling). */
  ignored: UnknownParam[];
}

/** Reads `_count` and `_summary` (`count`, or `false` for the default; any other value is ignored). */
export function readPageRequest(params: URLSearchParams): PageRequest {
  const out: PageRequest = { count: DEFAULT_PAGE_SIZE, countOnly: false, ignored: [] };
  const max = config().maxPageSize;
  const counts = params.getAll('_count');
  if (counts.length === 1 && /^\s*\d{1,15}\s*$/.test(counts[0]!)) {
    const n = Number(counts[0]);
    if (n === 0) out.countOnly = true;
    else out.count = Math.min(n, max);
  } else if (counts.length > 0) {
    const reason = `'${counts.join("', '")}' is not one whole number from 0 to ${max}; the default page size of ${DEFAULT_PAGE_SIZE} was used`;
    out.ignored.push({ name: '_count', reason });
  }
  for (const summary of params.getAll('_summary')) {
    if (summary === 'count') out.countOnly = true;
    else if (summary !== 'false') out.ignored.push({ name: `_summary=${summary}`, reason: 'only _summary=count is supported; full resources are returned' });
  }
  return out;
}

export interface Page<R, P> {
  /** The page's rows in the result order (also when a `previous` cursor walked it backwards). */
  rows: R[];
  /** More rows follow in the direction the page was read. */
  more: boolean;
  next?: Cursor<P>;
  previous?: Cursor<P>;
}

/**
 * A page of `count` rows from `rows`: the store's rows in the direction of `cursor` (the result
 * order, or its reverse for a `previous` cursor), starting after the cursor's position, read only
 * as far as the page needs (one row beyond, to know whether more follow). Rows a store reads
 * come in runs (what one read brought), so a page costs a promise a run, not a row. `next` when rows follow
 * (always after a backward page, which came from a later one); `previous` when rows precede
 * (always after a forward page from a cursor).
 */
export async function cutPage<R, P>(
  rows: AsyncIterable<readonly R[]> | Iterable<R>,
  count: number,
  cursor: Cursor<P> | undefined,
  positionOf: (row: R) => P,
): Promise<Page<R, P>> {
  const taken: R[] = [];
  if (count > 0 && Symbol.iterator in rows) {
    // In-memory rows are read without a promise a row.
    for (const row of rows) if (taken.push(row) > count) break;
  } else if (count > 0) {
    for await (const run of rows as AsyncIterable<readonly R[]>) {
      for (const row of run) if (taken.push(row) > count) break;
      if (taken.length > count) break;
    }
  }
  const more = taken.length > count;
  const page = taken.slice(0, count);
  const backward = cursor?.direction === 'previous';
  if (backward) page.reverse();
  const edge = (row: R | undefined): P | undefined => (row === undefined ? cursor?.at : positionOf(row));
  const out: Page<R, P> = { rows: page, more };
  const last = edge(page[page.length - 1]);
  const first = edge(page[0]);
  if ((backward || more) && last !== undefined) out.next = { direction: 'next', at: last };
  if ((backward ? more : cursor !== undefined) && first !== undefined) out.previous = { direction: 'previous', at: first };
  return out;
}

/**
 * The rows of an in-memory result (sorted in the result order) that follow a cursor in its
 * direction: after its position for `next`, before it (nearest first) for `previous`.
 */
export function* rowsFrom<R, P>(sorted: readonly R[], cursor: Cursor<P> | undefined, compareTo: (row: R, at: P) => number): Generator<R> {
  if (!cursor) {
    yield* sorted;
    return;
  }
  if (cursor.direction === 'next') {
    for (const row of sorted) if (compareTo(row, cursor.at) > 0) yield row;
    return;
  }
  for (let i = sorted.length - 1; i >= 0; i -= 1) if (compareTo(sorted[i]!, cursor.at) < 0) yield sorted[i]!;
}
