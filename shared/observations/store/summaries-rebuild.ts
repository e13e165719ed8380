/**
 * Rebuilding the day summaries of every patient (docs/operations.md#rebuilding-the-day-summaries):
 * the repair of a summary a fault left behind. Every patient with readings has a `#SPAN` item in
 * layout 3 (their code set lives there), so a parallel Scan keeping those items finds them all;
 * each page's patients are rebuilt before the Scan's position is saved, so a run stopped anywhere
 * resumes where it was (a page rebuilt again changes nothing).
 */
import pMap from 'p-map';
import { freshSegments, scanInSegments, type ScanProgress } from '../../store/scan-segments';
import { blockKeys, patientOfPk } from './block-keys';
import { table } from './dynamo-table';

export interface RebuildProgress extends ScanProgress {
  table: string;
  /** Patients rebuilt. */
  patients: number;
  /** Days with readings, and of those the summaries written because the kept one was missing or said something else. */
  days: number;
  repaired: number;
}

export const freshRebuild = (segments = 4): RebuildProgress => ({ table: table(), segments: freshSegments(segments), patients: 0, days: 0, repaired: 0 });

/** Patients rebuilt at once per Scan segment. */
const CONCURRENCY = 4;

export interface RebuildRun {
  progress?: RebuildProgress;
  save?: (progress: RebuildProgress) => void | Promise<void>;
  /** Items a Scan page reads. */
  pageSize?: number;
}

export async function rebuildEverySummary(rebuild: (patientId: number) => Promise<{ days: number; repaired: number }>, run: RebuildRun = {}): Promise<RebuildProgress> {
  const { progress = freshRebuild(), save } = run;
  if (progress.table !== table()) throw new Error(`this progress belongs to a rebuild of ${progress.table}, not ${table()}`);
  const span = blockKeys.span(0);
  await scanInSegments({
    table: table(),
    progress,
    filter: { expression: 'begins_with(#pk, :patient) AND #sk = :span', names: { '#pk': 'pk', '#sk': 'sk' }, values: { ':patient': span.pk.slice(0, 2), ':span': span.sk } },
    attributes: ['pk'],
    ...(run.pageSize ? { pageSize: run.pageSize } : {}),
    onPage: async (items) => {
      const rebuilt = await pMap(items, (item) => rebuild(patientOfPk(item.pk)), { concurrency: CONCURRENCY });
      for (const r of rebuilt) {
        progress.patients += 1;
        progress.days += r.days;
        progress.repaired += r.repaired;
      }
    },
    save: () => save?.(structuredClone(progress)),
  });
  return progress;
}
