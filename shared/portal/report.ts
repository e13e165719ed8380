/**
 * The finished page's report, per kind of record and in all, as plain sentences: pure functions
 * over the tallies, shared by the page and the unit tests. "Saved with some details left out" is a
 * part of "saved", and every sentence says so, so the numbers never read as more records than
 * were read.
 */
import type { RecordKind } from './pulls';
import { emptyTally, topReasons, type Tally } from './records';

/** How reading a kind of record went at the hospital. */
export type KindOutcome =
  /** Read (every page); the tally says what was saved. */
  | 'read'
  /** The hospital's CapabilityStatement does not list the type, or it answered 404. */
  | 'not-offered'
  /** The hospital refused to let the portal read it (403: the permission was not given). */
  | 'not-shared'
  /** The hospital refused every search the portal knows for it (400). */
  | 'refused';

export interface KindReport {
  kind: RecordKind;
  outcome: KindOutcome;
  /** Records read (after removing those another kind already has). */
  read: number;
  tally: Tally;
}

export const kindReport = (kind: RecordKind, outcome: KindOutcome = 'read'): KindReport => ({ kind, outcome, read: 0, tally: emptyTally() });

const records = (n: number) => `${n} ${n === 1 ? 'record' : 'records'}`;

/** One kind's line: what happened to its records. */
export function kindSentence(report: KindReport): string {
  switch (report.outcome) {
    case 'not-offered':
      return 'Your hospital does not offer these records.';
    case 'not-shared':
      return 'Your hospital did not share these records (the permission was not given).';
    case 'refused':
      return 'Your hospital would not let these records be read.';
    case 'read':
      break;
  }
  const { stored, storedWithLoss, failed } = report.tally;
  if (stored + failed === 0) return 'None at your hospital.';
  const parts = [`${stored} of ${records(stored + failed)} saved${storedWithLoss > 0 ? ` (${storedWithLoss} of them with some details left out)` : ''}.`];
  if (failed > 0) parts.push(`${failed} could not be saved.`);
  return parts.join(' ');
}

/** The run's tally: every kind's summed. */
export function totalOf(reports: readonly KindReport[]): Tally {
  const total = emptyTally();
  for (const { tally } of reports) {
    total.stored += tally.stored;
    total.storedWithLoss += tally.storedWithLoss;
    total.failed += tally.failed;
  }
  return total;
}

/** The run's first line. */
export function summarySentence(total: Tally, hospital: string): string {
  const read = total.stored + total.failed;
  if (read === 0) return `Your hospital (${hospital}) had no records to share.`;
  const parts = [`Saved ${total.stored} of ${records(read)} from ${hospital}.`];
  if (total.storedWithLoss > 0) parts.push(`${total.storedWithLoss} of the saved records ${total.storedWithLoss === 1 ? 'has' : 'have'} some details left out.`);
  if (total.failed > 0) parts.push(`${records(total.failed)} could not be saved.`);
  return parts.join(' ');
}

/** The five most frequent reasons of a kind, each with its count, in plain words. */
export const reasonLines = (reasons: ReadonlyMap<string, number>): string[] => topReasons(reasons).map(({ reason, count }) => `${reason} (${records(count)})`);

/** The sentence before "Import again" (docs/portal.md#where-the-imported-records-appear: every run adds its records again). */
export const IMPORT_AGAIN_NOTE =
  'Importing again saves a second copy of every record, next to the copy saved now. Do it only to add records your hospital has received since, or if your study team asks you to.';
