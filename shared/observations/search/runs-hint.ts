/**
 * A value search's planned reads, carried from page to page in the cursor's hint: the runs of
 * candidate hours (./hours.ts) its first page worked out from the day summaries, per patient and
 * code, so a later page reads the rows at once instead of the summaries first (one Query less a
 * page, which on a long download is a good part of its time). The plan is the first page's: a
 * reading stored in an hour it left out after that page was read shows up in a new search, not in
 * the pages that follow. A hint read back from a client is only a narrowing of what the search
 * reads: every row still passes the search's own tests, its runs are clamped to the date filter's
 * bounds, and one that is malformed or larger than a hint is made is ignored (the page plans
 * again).
 */
import type { StartBounds } from '../../fhir/search/date-bounds';
import { FIRST_INSTANT, LAST_INSTANT } from '../../omh/datetime';
import { MAX_RUNS } from './hours';

/** Codes' runs a hint carries at most (a search of a few patients and codes); past it, none. */
const MAX_READS = 16;

/** Runs per patient and code. */
export type PlannedRuns = Map<string, StartBounds[]>;

export const runsKey = (patientId: number, codeId: number) => `${patientId}:${codeId}`;

const isInstant = (n: unknown): n is number => typeof n === 'number' && Number.isSafeInteger(n) && n >= FIRST_INSTANT && n <= LAST_INSTANT + 1;

/** The hint of these runs: `[patient, code, lo, hi, lo, hi, ...]` each; undefined when there are none or too many. */
export function encodeRuns(runs: PlannedRuns): unknown[] | undefined {
  if (runs.size === 0 || runs.size > MAX_READS) return undefined;
  return [...runs].map(([key, bounds]) => [...key.split(':').map(Number), ...bounds.flatMap((b) => [b.lo, b.hi])]);
}

/** The runs a hint carries, when it is one this module makes: ascending, disjoint, within the instants a reading can have. */
export function decodeRuns(hint: unknown): PlannedRuns | undefined {
  if (!Array.isArray(hint) || hint.length === 0 || hint.length > MAX_READS) return undefined;
  const runs: PlannedRuns = new Map();
  for (const entry of hint as unknown[]) {
    if (!Array.isArray(entry) || entry.length < 2 || entry.length % 2 !== 0 || entry.length > 2 + 2 * MAX_RUNS) return undefined;
    const [patientId, codeId, ...edges] = entry as unknown[];
    if (!Number.isSafeInteger(patientId) || !Number.isSafeInteger(codeId) || !edges.every(isInstant)) return undefined;
    const bounds: StartBounds[] = [];
    for (let i = 0; i < edges.length; i += 2) {
      const [lo, hi] = [edges[i] as number, edges[i + 1] as number];
      if (lo >= hi || (bounds.length > 0 && lo < bounds[bounds.length - 1]!.hi!)) return undefined;
      bounds.push({ lo, hi });
    }
    runs.set(runsKey(patientId as number, codeId as number), bounds);
  }
  return runs;
}

/** The runs within the date filter's start bounds (a hint's runs never widen what is read). */
export function clampRuns(runs: readonly StartBounds[], dates: StartBounds): StartBounds[] {
  const lo = dates.lo ?? -Infinity;
  const hi = dates.hi ?? Infinity;
  return runs.map((r) => ({ lo: Math.max(r.lo!, lo), hi: Math.min(r.hi!, hi) })).filter((r) => r.lo < r.hi);
}
