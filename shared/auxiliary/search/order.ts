/**
 * The total order of a search's results and the cursor that marks a place in it. A row's position
 * is its `_sort` keys (if any), then its segment (patient, then FHIR Source), then its index sort
 * key descending (newest update first; the key ends with the id, so no two rows tie). A cursor
 * holds only such a position: it names no patient set, so a forged one cannot widen the scope,
 * which every page recomputes from the caller.
 */
import type { Id } from '../../directory/model';
import { compareSortKeys, sortKey, type SearchIndex, type SortSpec } from '../../fhir/search';
import { cursorJson, cursorText, searchDigest } from '../../fhir/searchset';
import { badRequest } from '../../http/errors';
import type { Segment } from '../store';

export type SortValue = string | number | null;

export interface Position {
  /** One per `_sort` spec; null where the row has no value. */
  keys: SortValue[];
  patientId: Id;
  /** 0 when the search is not restricted to sources. */
  sourceId: Id;
  /** The index item's base-table sort key. */
  sk: string;
}

export function positionOf(segment: Segment, sk: string, index: SearchIndex | undefined, sort: readonly SortSpec[]): Position {
  return {
    keys: sort.map((spec) => (index ? (sortKey(index, spec) ?? null) : null)),
    patientId: segment.patientId,
    sourceId: segment.sourceId ?? 0,
    sk,
  };
}

export function compareSegments(a: Pick<Position, 'patientId' | 'sourceId'>, b: Pick<Position, 'patientId' | 'sourceId'>): number {
  return a.patientId - b.patientId || a.sourceId - b.sourceId;
}

/** Ascending in result order. */
export function comparePositions(a: Position, b: Position, sort: readonly SortSpec[]): number {
  for (let i = 0; i < sort.length; i += 1) {
    const order = compareSortKeys(a.keys[i] ?? undefined, b.keys[i] ?? undefined, sort[i]!.descending);
    if (order !== 0) return order;
  }
  return compareSegments(a, b) || (a.sk === b.sk ? 0 : a.sk < b.sk ? 1 : -1);
}

export type Direction = 'next' | 'previous';

export interface Cursor {
  direction: Direction;
  /** The row the page continues from (excluded). */
  after: Position;
}

/** Binds a cursor to the search it came from (type, filters and order; not the page size). */
export function searchFingerprint(type: string, params: URLSearchParams, ignore: ReadonlySet<string>): string {
  const pairs = [...params].filter(([k]) => !ignore.has(k)).map(([k, v]) => `${k}=${v}`).sort();
  return searchDigest(`${type}?${pairs.join('&')}`);
}

export function encodeCursor(cursor: Cursor, fingerprint: string): string {
  const { keys, patientId, sourceId, sk } = cursor.after;
  return cursorText({ f: fingerprint, d: cursor.direction === 'next' ? 'n' : 'p', k: keys, p: patientId, s: sourceId, sk });
}

const invalidCursor = () => badRequest('Invalid _cursor: use the next and previous links of a search result as they are.');

export function decodeCursor(raw: string, fingerprint: string, sortLength: number): Cursor {
  const value = cursorJson(raw, invalidCursor);
  // JSON `null` or a number parses too, and has no members to read.
  if (typeof value !== 'object' || value === null) throw invalidCursor();
  const v = value as { f?: unknown; d?: unknown; k?: unknown; p?: unknown; s?: unknown; sk?: unknown };
  const keysOk = Array.isArray(v.k) && v.k.length === sortLength && v.k.every((k) => k === null || typeof k === 'string' || typeof k === 'number');
  const wellFormed =
    keysOk && (v.d === 'n' || v.d === 'p') && Number.isSafeInteger(v.p) && Number.isSafeInteger(v.s) && typeof v.sk === 'string' && typeof v.f === 'string';
  if (!wellFormed) throw invalidCursor();
  if (v.f !== fingerprint) throw badRequest('This _cursor belongs to another search: page with the links of the same search.');
  return {
    direction: v.d === 'n' ? 'next' : 'previous',
    after: { keys: v.k as SortValue[], patientId: v.p as number, sourceId: v.s as number, sk: v.sk as string },
  };
}
