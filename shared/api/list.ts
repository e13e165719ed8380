/**
 * Lists of `/api/v1/`: `{count, next, previous, results}` with page-number paging and absolute
 * `next` / `previous` links that repeat the request with another `page`.
 */
import { config } from '../config';
import { DEFAULT_PAGE_SIZE, pageOf } from '../directory/paging';
import type { Page, Paging } from '../directory/model';
import { fieldErrors, notFound } from '../http/errors';
import type { HttpRequest } from '../http/request';

export interface PagingStyle {
  defaultSize: number;
  /** Whether the client may choose the size with `page_size`. */
  sizeParam: boolean;
}

/** `page` and `page_size` (default 20, at most the configured maximum page size). */
export const CUSTOM_PAGING: PagingStyle = { defaultSize: DEFAULT_PAGE_SIZE, sizeParam: true };
/** `page` only, pages of the configured maximum page size (1000 unless set otherwise). */
export const LARGE_PAGING: PagingStyle = { defaultSize: Number.POSITIVE_INFINITY, sizeParam: false };

const POSITIVE = /^[1-9][0-9]{0,8}$/;

export function pagingOf(query: URLSearchParams, style: PagingStyle): Paging {
  const page = query.get('page');
  if (page !== null && !POSITIVE.test(page)) throw notFound('Invalid page.');
  const max = config().maxPageSize;
  let pageSize = Math.min(style.defaultSize, max);
  const size = style.sizeParam ? (query.get('page_size') ?? query.get('pageSize')) : null;
  if (size !== null) {
    if (!POSITIVE.test(size)) throw fieldErrors({ pageSize: ['A valid positive integer is required.'] });
    pageSize = Math.min(Number(size), max);
  }
  return { page: page === null ? 1 : Number(page), pageSize };
}

export interface ListBody<T> {
  count: number;
  next: string | null;
  previous: string | null;
  results: T[];
}

function pageUrl(req: Pick<HttpRequest, 'origin' | 'path' | 'query'>, page: number): string {
  const query = new URLSearchParams(req.query);
  if (page === 1) query.delete('page');
  else query.set('page', String(page));
  const qs = query.toString();
  return `${req.origin}${req.path}${qs ? `?${qs}` : ''}`;
}

export function listBody<T>(req: Pick<HttpRequest, 'origin' | 'path' | 'query'>, page: Page<T>, paging: Paging): ListBody<T> {
  const pages = Math.max(1, Math.ceil(page.count / paging.pageSize));
  return {
    count: page.count,
    next: paging.page < pages ? pageUrl(req, paging.page + 1) : null,
    previous: paging.page > 1 ? pageUrl(req, paging.page - 1) : null,
    results: page.items,
  };
}

/** A whole list held in memory, paged by the request's `page` / `page_size`. */
export function listOf<T>(req: Pick<HttpRequest, 'origin' | 'path' | 'query'>, all: readonly T[], style: PagingStyle = CUSTOM_PAGING): ListBody<T> {
  const paging = pagingOf(req.query, style);
  return listBody(req, pageOf(all, paging), paging);
}
