/**
 * The opaque `_cursor` of `next` / `previous` links, the same in every store: a direction, the
 * position of the row the page continues from (a keyset, encoded by the store's codec), and a
 * digest of the search that made it. A cursor carries no rights (every page re-runs the caller's
 * scoping), so an edited one can at most move within what the caller may see; one that does not
 * parse, or that belongs to another search, is a 400.
 */
import { createHash } from 'node:crypto';
import { invalidQuery } from '../../failures';
import { badRequest } from '../../http/errors';
import { objectOfBase64Url } from '../../json';

/** The query parameter of `next` / `previous` links, in every store. */
export const CURSOR_PARAM = '_cursor';

export type Direction = 'next' | 'previous';

/** A place in a result: after (`next`) or before (`previous`) the row at `at`, in the result order. */
export interface Cursor<P> {
  direction: Direction;
  at: P;
  /**
   * What the store worked out for the search's first page and hands to its later ones, so they
   * need not work it out again (a value search's planned reads): read back as unknown, for the
   * store to validate or ignore. Like the position, it carries no rights.
   */
  hint?: unknown;
}

/**
 * How a store writes its positions into a cursor and reads them back: `decode` returns undefined
 * for anything that is not a position it could have written (cursors come back from clients).
 */
export interface PositionCodec<P> {
  encode(position: P): unknown;
  decode(value: unknown): P | undefined;
}

/** A sort value of a row (a string or number; `null` when the row has none). */
export type SortValue = string | number | null;

/** Whether a value read back from a cursor is `length` sort values. */
export function isSortValues(value: unknown, length: number): value is SortValue[] {
  return Array.isArray(value) && value.length === length && value.every((k) => k === null || typeof k === 'string' || (typeof k === 'number' && Number.isFinite(k)));
}

/** Parameters that change neither which rows a search finds nor their order: a cursor stays valid across them. */
const NOT_BOUND: ReadonlySet<string> = new Set([CURSOR_PARAM, '_count', '_total', '_summary', '_format', '_pretty']);

/**
 * What a cursor is bound to: the resource type and the search's parameters (sorted, so their order
 * in the query string does not matter), without the paging and formatting ones.
 */
export function searchDigest(type: string, params: URLSearchParams): string {
  const pairs = [...params].filter(([k]) => !NOT_BOUND.has(k)).map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(v)}`);
  return digestOf(`${type}?${pairs.sort().join('&')}`);
}

/**
 * What the cursor of a typed query (a domain function's, with no query string) is bound to: the
 * resource type and the query in one canonical text (its fields in a fixed order, without the
 * page size or the cursor), made by the caller.
 */
const queryDigest = (type: string, canonical: string): string => digestOf(`${type}#${canonical}`);

const digestOf = (text: string) => createHash('sha256').update(text).digest('base64url').slice(0, 16);

export function encodeCursor<P>(cursor: Cursor<P>, codec: PositionCodec<P>, digest: string): string {
  const json = { s: digest, d: cursor.direction === 'next' ? 'n' : 'p', at: codec.encode(cursor.at), ...(cursor.hint === undefined ? {} : { h: cursor.hint }) };
  return Buffer.from(JSON.stringify(json), 'utf8').toString('base64url');
}

const invalid = () => badRequest(`Invalid ${CURSOR_PARAM}: follow the next and previous links of a search result as they are.`).at(CURSOR_PARAM);
const foreign = () => badRequest(`This ${CURSOR_PARAM} belongs to another search: page with the links of the same search.`).at(CURSOR_PARAM);

/** A cursor read back: the place it holds, or why it holds none (not a cursor; a cursor of another search). */
export function readCursor<P>(text: string, codec: PositionCodec<P>, digest: string): Cursor<P> | 'invalid' | 'foreign' {
  const json = objectOfBase64Url(text);
  if (json === undefined) return 'invalid';
  const { s, d, at, h } = json;
  if (typeof s !== 'string' || (d !== 'n' && d !== 'p')) return 'invalid';
  if (s !== digest) return 'foreign';
  const position = codec.decode(at);
  if (position === undefined) return 'invalid';
  return { direction: d === 'n' ? 'next' : 'previous', at: position, ...(h === undefined ? {} : { hint: h }) };
}

/** A `_cursor` of a search's links read back: a 400 when it is not one of this search's. */
export function decodeCursor<P>(text: string, codec: PositionCodec<P>, digest: string): Cursor<P> {
  const cursor = readCursor(text, codec, digest);
  if (cursor === 'invalid') throw invalid();
  if (cursor === 'foreign') throw foreign();
  return cursor;
}

/** The cursors of a typed query (a domain function's): opaque texts bound to it, written and read back. */
export interface QueryCursors<P> {
  /** The place a cursor holds (none without one); one that is not this query's is an `invalid-query` failure. */
  read(text: string | undefined): Cursor<P> | undefined;
  write(cursor: Cursor<P>): string;
}

export function queryCursors<P>(type: string, canonical: string, codec: PositionCodec<P>): QueryCursors<P> {
  const digest = queryDigest(type, canonical);
  return {
    read(text) {
      if (text === undefined) return undefined;
      const cursor = readCursor(text, codec, digest);
      if (cursor === 'invalid') throw invalidQuery('This cursor is not valid: pass the cursor of the previous answer as it was given.', 'cursor');
      if (cursor === 'foreign') throw invalidQuery('This cursor belongs to another query: continue with the same query, or leave the cursor out to start again.', 'cursor');
      return cursor;
    },
    write: (cursor) => encodeCursor(cursor, codec, digest),
  };
}
