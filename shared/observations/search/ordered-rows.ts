/**
 * The rows a search or an export reads: each patient's reads (./segments.ts) as streams
 * (./streams.ts), chained patient by patient or merged into the traversal's order; a bulk export's
 * whole-patient reads in slices side by side (./sliced-stream.ts).
 */
import pMap from 'p-map';
import type { StoredObservation } from '../model';
import type { ReadingFilter } from '../read';
import { compareIn, positionOf, type Position, type Traversal } from './order';
import { patientQueries, type PatientRead } from './segments';
import { SlicedStream } from './sliced-stream';
import { ChainStream, DeferredStream, MergeStream, PLAN_CONCURRENCY, QueryStream, type RowStream } from './streams';

/** A value search's runs of one code read at once (./streams.ts, `queriesAhead`). */
const RUNS_AT_ONCE = 4;

/**
 * The rows of the patients, in the traversal, following `at`, that `filter` keeps. Patient by
 * patient for the default order (a patient's reads open only when the page reaches them), else a
 * merge of every patient's reads, each starting small since most of a page comes from few patients.
 */
export function orderedRows(
  patients: readonly number[],
  readsOf: (patientId: number) => PatientRead[] | Promise<PatientRead[]>,
  t: Traversal,
  at: Position | undefined,
  /** What the store keeps as it reads (a plain test: applied to every row it reads). */
  filter: ReadingFilter | ((item: StoredObservation) => boolean),
  want: number,
  /**
   * Every row will be read (a bulk export, in any order): read each next page, and the next patient,
   * ahead; a patient read in one Query is read in slices side by side.
   */
  readAhead = false,
): RowStream {
  const byOrder = (a: StoredObservation, b: StoredObservation) => compareIn(t, positionOf(t.order, a), positionOf(t.order, b));
  const keep: ReadingFilter = typeof filter === 'function' ? { keep: filter as ReadingFilter['keep'] } : filter;
  const streamsOf = async (patientId: number, first: number): Promise<RowStream[]> => {
    const reads = (await readsOf(patientId)).map((read) => ({ read, queries: patientQueries(read, t, at) })).filter(({ queries }) => queries.length > 0);
    const only = reads.length === 1 && reads[0]!.queries.length === 1 ? reads[0]!.queries[0]! : undefined;
    // One stream at a time is sliced, so a patient's rows in memory stay a few pages.
    if (readAhead && at === undefined && only?.time) return [new SlicedStream(only, keep)];
    return reads.map(({ read, queries }) => new QueryStream(queries, keep, first, readAhead, undefined, read.runs ? RUNS_AT_ONCE - 1 : 0));
  };
  const merged = (streams: RowStream[]): RowStream => (streams.length === 1 ? streams[0]! : new MergeStream(streams, byOrder));
  if (t.order.kind === 'patient') {
    const inOrder = [...patients].sort((a, b) => (t.backward ? b - a : a - b));
    return new ChainStream(inOrder.map((patientId) => () => new DeferredStream(async () => merged(await streamsOf(patientId, want)))), readAhead);
  }
  const first = Math.min(want, Math.max(10, Math.ceil((2 * want) / Math.max(1, patients.length))));
  return new DeferredStream(async () => merged((await pMap(patients, (patientId) => streamsOf(patientId, first), { concurrency: PLAN_CONCURRENCY })).flat()));
}
