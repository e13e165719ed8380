/**
 * The key-condition Queries that read one patient's rows (of one code, or of all) in a traversal,
 * after a position: dated rows on the effective index (optionally per code) with the start bounds
 * of the date filter, undated rows after them, or rows by last update. Bounds are exact or slightly
 * loose (rows with the position's own time are read again); the caller drops what does not follow
 * the position.
 */
import { pad } from '../../directory/keys';
import type { StartBounds } from '../../fhir/search/date-bounds';
import { FIRST_INSTANT, LAST_INSTANT } from '../../omh/datetime';
import { ROW_FIELDS } from '../items';
import { codePrefix, DATED_END, DATED_START, instantKey, UNDATED } from '../keys';
import type { PartitionQuery } from '../read';
import { readsAscending, relation, type Position, type Traversal } from './order';

export interface PatientRead {
  patientId: number;
  /** Read one code's rows through the code index; all codes otherwise. */
  codeId?: number;
  /** Start bounds of the date filter (date and patient orders). */
  dates: StartBounds;
  /** Bounds on the last update (updated order). */
  updated: StartBounds;
  /** Undated rows can match (no date filter). */
  withUndated: boolean;
  /**
   * The rows are wanted in any order (a bulk export reads them all): without a date filter, a
   * patient's dated and undated rows come from one Query of the whole range instead of two.
   */
  anyOrder?: boolean;
}

interface Range {
  from: string;
  to: string;
}

const later = (a: string, b: string) => (a > b ? a : b);
const earlier = (a: string, b: string) => (a < b ? a : b);
const clampInstant = (ms: number) => Math.min(LAST_INSTANT, Math.max(FIRST_INSTANT, ms));

/** Inclusive key range of instants in `[lo, hi)` (open ends reach the whole dated part). */
function instantRange(b: StartBounds): Range | undefined {
  if (b.lo !== undefined && b.hi !== undefined && b.lo >= b.hi) return undefined;
  if (b.hi !== undefined && b.hi <= FIRST_INSTANT) return undefined;
  if (b.lo !== undefined && b.lo > LAST_INSTANT) return undefined;
  return {
    from: b.lo === undefined ? DATED_START : instantKey(clampInstant(b.lo)),
    to: b.hi === undefined ? DATED_END : `${instantKey(clampInstant(b.hi - 1))}#~`,
  };
}

/** Narrows a range to what follows the position in the traversal (`around` only). */
function afterPosition(range: Range, bound: string, ascending: boolean): Range | undefined {
  const narrowed = ascending ? { from: later(range.from, bound), to: range.to } : { from: range.from, to: earlier(range.to, `${bound}#~`) };
  return narrowed.from <= narrowed.to ? narrowed : undefined;
}

/** The Queries, in traversal order, that read a patient's rows following `at` (all rows without it). */
export function patientQueries(read: PatientRead, t: Traversal, at?: Position): PartitionQuery[] {
  const ascending = readsAscending(t);
  const prefix = read.codeId === undefined ? '' : codePrefix(read.codeId);
  const index = t.order.kind === 'updated' ? 'byUpdated' : read.codeId === undefined ? 'byEffective' : 'byCodeEffective';
  const query = (r: Range): PartitionQuery => ({ patientId: read.patientId, index, from: prefix + r.from, to: prefix + r.to, ascending, attributes: ROW_FIELDS });

  /** A part (dated 0, undated 1) with its full range, limited by the position. */
  const part = (undated: 0 | 1, full: Range | undefined, boundOf: (p: Position) => string): PartitionQuery | undefined => {
    if (!full) return undefined;
    if (!at) return query(full);
    const where = relation(t.order, read.patientId, undated, at);
    const skipped = t.backward ? where === 'after' : where === 'before';
    if (skipped) return undefined;
    if (where !== 'around') return query(full);
    const narrowed = afterPosition(full, boundOf(at), ascending);
    return narrowed && query(narrowed);
  };

  if (read.anyOrder && read.withUndated && !at && t.order.kind !== 'updated') return [query({ from: DATED_START, to: `${UNDATED}#~` })];
  if (t.order.kind === 'updated') {
    return [part(0, instantRange(read.updated), (p) => instantKey(p.t))].filter((q): q is PartitionQuery => q !== undefined);
  }
  const dated = part(0, instantRange(read.dates), (p) => instantKey(p.t));
  const undated = read.withUndated ? part(1, { from: `${UNDATED}#`, to: `${UNDATED}#~` }, (p) => `${UNDATED}#${pad(p.i)}`) : undefined;
  // Dated rows come first in the order, so last when walking it backwards.
  const parts = t.backward ? [undated, dated] : [dated, undated];
  return parts.filter((q): q is PartitionQuery => q !== undefined);
}
