/**
 * The orders a native search can return rows in, each a total order (ties broken by patient and
 * id), so a page boundary is a single position and the next page continues from it (keyset
 * paging, never offsets):
 *
 * - `date` (`_sort=date` / `-date`): by effective start, then patient, then id; rows without an
 *   effective time come last both ways (by patient and id).
 * - `updated` (`_sort=_lastUpdated` / `-_lastUpdated`): by last update, then patient, then id.
 * - `patient` (no `_sort`): patient by patient (ascending ids), each patient's newest readings first
 *   (effective start descending, undated last). A page then touches only the patients it shows,
 *   which is what keeps a download of a 10,000-patient study linear in its size.
 */
import type { ReadingFacts } from '../model';

export interface Order {
  kind: 'date' | 'updated' | 'patient';
  /** For `date` and `updated`; `patient` is always newest first within a patient. */
  descending: boolean;
}

/** A row's place in an order: patient, id, undated (1) or not (0), and its time (start or update, epoch ms). */
export interface Position {
  p: number;
  i: number;
  u: 0 | 1;
  t: number;
}

export function positionOf(order: Order, o: ReadingFacts): Position {
  const p = o.patientId;
  const i = o.id;
  if (order.kind === 'updated') return { p, i, u: 0, t: Date.parse(o.lastUpdated) };
  return o.effective === undefined ? { p, i, u: 1, t: 0 } : { p, i, u: 0, t: o.effective.start };
}

const cmp = (a: number, b: number) => (a < b ? -1 : a > b ? 1 : 0);

/** Compares two positions in the order (negative: `a` comes first). */
export function compare(order: Order, a: Position, b: Position): number {
  if (order.kind === 'patient') {
    return cmp(a.p, b.p) || cmp(a.u, b.u) || cmp(b.t, a.t) || cmp(b.i, a.i);
  }
  const d = order.descending ? -1 : 1;
  return cmp(a.u, b.u) || d * cmp(a.t, b.t) || d * cmp(a.p, b.p) || d * cmp(a.i, b.i);
}

/** Traversal: the order itself (`next` pages) or its reverse (`previous` pages). */
export interface Traversal {
  order: Order;
  backward: boolean;
}

export function compareIn(t: Traversal, a: Position, b: Position): number {
  const c = compare(t.order, a, b);
  return t.backward ? -c : c;
}

/**
 * Where a patient's rows of one kind (dated or undated) lie relative to a position, in the order:
 * all `before`, all `after`, or `around` it (the traversal then bounds its key by the position).
 */
export function relation(order: Order, patientId: number, undated: 0 | 1, at: Position): 'before' | 'after' | 'around' {
  if (order.kind === 'patient') {
    if (patientId !== at.p) return patientId < at.p ? 'before' : 'after';
    if (undated !== at.u) return undated < at.u ? 'before' : 'after';
    return 'around';
  }
  if (undated !== at.u) return undated < at.u ? 'before' : 'after';
  if (order.kind === 'updated' || undated === 0 || patientId === at.p) return 'around';
  const earlier = order.descending ? patientId > at.p : patientId < at.p;
  return earlier ? 'before' : 'after';
}

/** Whether a traversal reads a patient's sort keys ascending (times, and the ids of undated rows). */
export function readsAscending(t: Traversal): boolean {
  const base = t.order.kind === 'patient' ? false : !t.order.descending;
  return t.backward ? !base : base;
}
