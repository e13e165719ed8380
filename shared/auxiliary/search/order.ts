/**
 * The total order of a search's results and the cursor that marks a place in it. A row's position
 * is its `_sort` keys (if any), then its segment (patient, then FHIR Source), then its index sort
 * key descending (newest update first; the key ends with the id, so no two rows tie). A cursor
 * holds only such a position: it names no patient set, so a forged one cannot widen the scope,
 * which every page recomputes from the caller.
 */
import type { Id } from '../../directory/model';
import { compareSortKeys, sortKey, type SearchIndex, type SortSpec } from '../../fhir/search';
import { isSortValues, type PositionCodec, type SortValue } from '../../fhir/searchset';
import type { Segment } from '../store/port';

export interface Position {
  /** One per `_sort` spec; null where the row has no value. */
  keys: SortValue[];
  patientId: Id;
  /** 0 when the search is not restricted to sources. */
  sourceId: Id;
  /** The index row's place in its segment (`IndexRow.place`). */
  place: string;
}

export function positionOf(segment: Segment, place: string, index: SearchIndex | undefined, sort: readonly SortSpec[]): Position {
  return {
    keys: sort.map((spec) => (index ? (sortKey(index, spec) ?? null) : null)),
    patientId: segment.patientId,
    sourceId: segment.sourceId ?? 0,
    place,
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
  return compareSegments(a, b) || (a.place === b.place ? 0 : a.place < b.place ? 1 : -1);
}

/** Cursors carry positions as `[keys, patientId, sourceId, place]`; `_sort` has `sortLength` keys. */
export function auxiliaryPositions(sortLength: number): PositionCodec<Position> {
  return {
    encode: (at) => [at.keys, at.patientId, at.sourceId, at.place],
    decode: (value) => {
      if (!Array.isArray(value) || value.length !== 4) return undefined;
      const [keys, patientId, sourceId, place] = value as unknown[];
      if (!isSortValues(keys, sortLength) || !Number.isSafeInteger(patientId) || !Number.isSafeInteger(sourceId) || typeof place !== 'string') return undefined;
      return { keys, patientId: patientId as Id, sourceId: sourceId as Id, place };
    },
  };
}
