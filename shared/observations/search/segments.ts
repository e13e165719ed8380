/**
 * The reads of one patient's readings (of one code, or of all) in a traversal, after a position:
 * dated readings in effective order (optionally of one code) within the start bounds of the date
 * filter, undated readings after them, or readings by last update. Bounds are exact or slightly
 * loose (readings at the position's own millisecond are read again); the caller drops what does
 * not follow the position.
 */
import type { StartBounds } from '../../fhir/search/date-bounds';
import { storeTimeRange } from '../period';
import type { ReadingsQuery } from '../read';
import { readsAscending, relation, type Position, type Traversal } from './order';

export interface PatientRead {
  patientId: number;
  /** Read one code's readings; every code's otherwise. */
  codeId?: number;
  /** Start bounds of the date filter and the period (date and patient orders). */
  dates: StartBounds;
  /**
   * A value search's runs of candidate hours within `dates` (./hours.ts), ascending: the dated
   * readings read, one read a run, instead of `dates` whole. Absent: `dates` whole.
   */
  runs?: StartBounds[];
  /** Bounds on the last update (updated order). */
  updated: StartBounds;
  /** Undated rows can match (no date filter, the whole history). */
  withUndated: boolean;
  /**
   * The rows are wanted in any order (a bulk export reads them all): without a date filter, a
   * patient's dated and undated readings come from one read of the whole order instead of two.
   */
  anyOrder?: boolean;
}

/** Inclusive bounds (epoch ms, or ids of undated readings); an absent end is open. */
interface Range {
  from?: number;
  to?: number;
}

/** Narrows a range to what follows the position's time or id (inclusive) in the traversal (`around` only). */
function afterPosition(range: Range, bound: number, ascending: boolean): Range | undefined {
  const narrowed = ascending ? { ...range, from: Math.max(range.from ?? bound, bound) } : { ...range, to: Math.min(range.to ?? bound, bound) };
  return narrowed.from === undefined || narrowed.to === undefined || narrowed.from <= narrowed.to ? narrowed : undefined;
}

/** The reads, in traversal order, of a patient's readings following `at` (all of them without it). */
export function patientQueries(read: PatientRead, t: Traversal, at?: Position): ReadingsQuery[] {
  const ascending = readsAscending(t);
  const order = t.order.kind === 'updated' ? 'updated' : 'effective';
  const base = { patientId: read.patientId, order, ascending, ...(order === 'effective' && read.codeId !== undefined ? { codeId: read.codeId } : {}) } as const;
  const dated = (time: Range): ReadingsQuery => ({ ...base, time });
  const undated = (ids: Range): ReadingsQuery => ({ ...base, undated: ids });

  /** A part (dated 0, undated 1) with its full range, limited by the position. */
  const part = (kind: 0 | 1, full: Range | undefined, boundOf: (p: Position) => number): ReadingsQuery | undefined => {
    if (!full) return undefined;
    const query = kind === 0 ? dated : undated;
    if (!at) return query(full);
    const where = relation(t.order, read.patientId, kind, at);
    const skipped = t.backward ? where === 'after' : where === 'before';
    if (skipped) return undefined;
    if (where !== 'around') return query(full);
    const narrowed = afterPosition(full, boundOf(at), ascending);
    return narrowed && query(narrowed);
  };

  if (read.anyOrder && read.withUndated && !read.runs && !at && t.order.kind !== 'updated') return [{ ...base, time: {}, undated: {} }];
  if (t.order.kind === 'updated') {
    return [part(0, storeTimeRange(read.updated), (p) => p.t)].filter((q): q is ReadingsQuery => q !== undefined);
  }
  const runs = read.runs ?? [read.dates];
  const datedParts = (ascending ? runs : [...runs].reverse()).map((run) => part(0, storeTimeRange(run), (p) => p.t));
  const undatedPart = read.withUndated ? part(1, {}, (p) => p.i) : undefined;
  // Dated readings come first in the order, so last when walking it backwards.
  const parts = t.backward ? [undatedPart, ...datedParts] : [...datedParts, undatedPart];
  return parts.filter((q): q is ReadingsQuery => q !== undefined);
}
