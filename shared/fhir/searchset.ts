/**
 * Searchset Bundles and their paging: `_count` (default 20, at most 1000; `_count=0` counts only),
 * `_summary=count`, and `next` / `previous` links with an opaque `_cursor` that marks a position
 * in the result order (a keyset: the sort values and id of the row next to it), so pages stay
 * stable while rows are added or removed elsewhere in the list. Every link is absolute.
 */
import { createHash } from 'node:crypto';
import { badRequest } from '../http/errors';
import { config } from '../config';
import { DEFAULT_PAGE_SIZE } from './constants';

/** The query parameter of `next` / `previous` links, in every store. */
export const CURSOR_PARAM = '_cursor';

/** A cursor's text: its JSON in unpadded base64url, safe in a query string as it is. */
export const cursorText = (value: unknown): string => Buffer.from(JSON.stringify(value), 'utf8').toString('base64url');

/** The JSON a cursor's text holds; `invalid()` (the store's 400) when it is not base64url JSON. Its shape is the store's to check. */
export function cursorJson(text: string, invalid: () => Error): unknown {
  try {
    return JSON.parse(Buffer.from(text, 'base64url').toString('utf8'));
  } catch {
    throw invalid();
  }
}

/** A short digest of what a cursor is bound to (a search's parameters), compared when it comes back. */
export const searchDigest = (searched: string): string => createHash('sha256').update(searched).digest('base64url').slice(0, 16);

/** A sort value of a row (a string or number; `null` when the row has none). */
export type SortValue = string | number | null;

/** A position in a result: after (`next`) or before (`previous`) the row with these sort values. */
export interface Cursor {
  direction: 'next' | 'previous';
  keys: SortValue[];
}

export function encodeCursor(cursor: Cursor): string {
  return cursorText([cursor.direction === 'next' ? 'n' : 'p', ...cursor.keys]);
}

const invalidCursor = () => badRequest(`Invalid ${CURSOR_PARAM}: use the links of a previous page as they are.`).at(CURSOR_PARAM);

/** The cursor of a `_cursor` value, checked to hold `keyCount` sort values; 400 when it is anything else. */
export function decodeCursor(raw: string, keyCount: number): Cursor {
  const parsed = cursorJson(raw, invalidCursor);
  if (!Array.isArray(parsed) || parsed.length !== keyCount + 1 || (parsed[0] !== 'n' && parsed[0] !== 'p')) throw invalidCursor();
  const keys = parsed.slice(1);
  if (!keys.every((k) => k === null || typeof k === 'string' || (typeof k === 'number' && Number.isFinite(k)))) throw invalidCursor();
  return { direction: parsed[0] === 'n' ? 'next' : 'previous', keys: keys as SortValue[] };
}

export interface PageSize {
  /** Rows per page; 0 means only the total is wanted. */
  count: number;
}

/** `_count` and `_summary`: how many rows a page holds (0 for `_summary=count` or `_count=0`). */
export function pageSizeOf(params: URLSearchParams): PageSize {
  const summary = params.getAll('_summary');
  if (summary.some((s) => s !== 'count' && s !== 'false')) {
    throw badRequest(`_summary=${summary.join(',')} is not supported; use _summary=count.`, 'not-supported').at('_summary');
  }
  if (summary.includes('count')) return { count: 0 };
  const raw = params.getAll('_count');
  if (raw.length > 1) throw badRequest('_count may be given once.').at('_count');
  if (raw.length === 0) return { count: DEFAULT_PAGE_SIZE };
  const max = config().maxPageSize;
  if (!/^[0-9]{1,9}$/.test(raw[0]!)) throw badRequest(`_count must be a whole number from 0 to ${max}.`).at('_count');
  return { count: Math.min(Number(raw[0]), max) };
}

export interface SearchsetEntry {
  fullUrl: string;
  resource: Record<string, unknown>;
}

export interface SearchsetPage {
  /** The search as understood: the parameters that were applied, without paging. */
  selfParams: URLSearchParams;
  /** `<origin><base>/<Type>`: where the links point. */
  typeUrl: string;
  entries: SearchsetEntry[];
  total?: number;
  next?: Cursor;
  previous?: Cursor;
  /** The cursor this page was asked for, repeated in the self link. */
  cursor?: string;
}

function link(relation: string, page: SearchsetPage, cursor?: string) {
  const params = new URLSearchParams(page.selfParams);
  if (cursor !== undefined) params.set(CURSOR_PARAM, cursor);
  const qs = params.toString();
  return { relation, url: `${page.typeUrl}${qs ? `?${qs}` : ''}` };
}

export function searchsetBundle(page: SearchsetPage): Record<string, unknown> {
  return {
    resourceType: 'Bundle',
    type: 'searchset',
    ...(page.total !== undefined ? { total: page.total } : {}),
    link: [
      link('self', page, page.cursor),
      ...(page.next ? [link('next', page, encodeCursor(page.next))] : []),
      ...(page.previous ? [link('previous', page, encodeCursor(page.previous))] : []),
    ],
    entry: page.entries.map((e) => ({ fullUrl: e.fullUrl, resource: e.resource, search: { mode: 'match' } })),
  };
}
