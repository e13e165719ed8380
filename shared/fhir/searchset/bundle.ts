/**
 * The searchset Bundle of every store: `total` when known, absolute `self` / `next` / `previous`
 * links on the site's origin and the FHIR base the client used (`/FHIR/R5` or its `/fhir/r5`
 * alias), the matches with their full URLs, and the outcome entry naming what was ignored.
 */
import type { UnknownParam } from '../search/criteria';
import { CURSOR_PARAM, decodeCursor, encodeCursor, searchDigest, type Cursor, type PositionCodec } from './cursor';
import { ignoredOutcomeEntries } from './handling';

export interface SearchsetBundle {
  resourceType: 'Bundle';
  type: 'searchset';
  total?: number;
  link: Array<{ relation: string; url: string }>;
  entry: Array<Record<string, unknown>>;
  [key: string]: unknown;
}

/** Where a search's links point: the public origin (`req.origin`) and the base of the request path. */
export interface SearchSite {
  origin: string;
  base: string;
}

/** One search as its pages link it: where, the parameters as applied, and its cursors' binding. */
export interface LinkedSearch<P> {
  /** `<origin><base>/<Type>`. */
  typeUrl: string;
  /** The search as applied (the cursor of this page included): the self link, repeated by next / previous. */
  self: URLSearchParams;
  digest: string;
  codec: PositionCodec<P>;
}

export function linkedSearch<P>(site: SearchSite, type: string, self: URLSearchParams, codec: PositionCodec<P>): LinkedSearch<P> {
  return { typeUrl: `${site.origin}${site.base}/${type}`, self, digest: searchDigest(type, self), codec };
}

/** The cursor a page was asked for (a 400 when it is not one of this search's). */
export function cursorOf<P>(search: LinkedSearch<P>, text: string | undefined): Cursor<P> | undefined {
  return text === undefined ? undefined : decodeCursor(text, search.codec, search.digest);
}

export interface SearchsetPage<P> {
  /** The matches, each with its `id`. */
  resources: ReadonlyArray<Record<string, unknown>>;
  total?: number;
  next?: Cursor<P>;
  previous?: Cursor<P>;
  ignored: readonly UnknownParam[];
}

function url(typeUrl: string, params: URLSearchParams): string {
  const query = params.toString();
  return `${typeUrl}${query ? `?${query}` : ''}`;
}

function linkAt<P>(search: LinkedSearch<P>, relation: 'next' | 'previous', cursor: Cursor<P>) {
  const params = new URLSearchParams(search.self);
  params.set(CURSOR_PARAM, encodeCursor(cursor, search.codec, search.digest));
  return { relation, url: url(search.typeUrl, params) };
}

export function searchsetBundle<P>(search: LinkedSearch<P>, page: SearchsetPage<P>): SearchsetBundle {
  return {
    resourceType: 'Bundle',
    type: 'searchset',
    ...(page.total === undefined ? {} : { total: page.total }),
    link: [
      { relation: 'self', url: url(search.typeUrl, search.self) },
      ...(page.next ? [linkAt(search, 'next', page.next)] : []),
      ...(page.previous ? [linkAt(search, 'previous', page.previous)] : []),
    ],
    entry: [
      ...page.resources.map((resource) => ({ fullUrl: `${search.typeUrl}/${String(resource.id)}`, resource, search: { mode: 'match' } })),
      ...ignoredOutcomeEntries(page.ignored),
    ],
  };
}
