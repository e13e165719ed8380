/** Page-number paging over an ordered list, the way the `/api/v1/` lists page. */
import { config } from '../config';
import { notFound } from '../http/errors';
import type { Page, Paging } from './model';

export const DEFAULT_PAGE_SIZE = 20;

/** One page of `all`; a page past the end is a 404 (page 1 of an empty list is an empty page). */
export function pageOf<T>(all: readonly T[], paging: Paging): Page<T> {
  const size = Math.min(Math.max(1, Math.floor(paging.pageSize)), config().maxPageSize);
  const page = Math.floor(paging.page);
  const pages = Math.max(1, Math.ceil(all.length / size));
  if (!(page >= 1 && page <= pages)) throw notFound('Invalid page.');
  return { count: all.length, items: all.slice((page - 1) * size, page * size) };
}

/** Pages a list of ids first, then loads only the page's records. */
export async function pageOfIds<T>(ids: readonly number[], paging: Paging, load: (ids: number[]) => Promise<T[]>): Promise<Page<T>> {
  const page = pageOf(ids, paging);
  return { count: page.count, items: await load(page.items) };
}
