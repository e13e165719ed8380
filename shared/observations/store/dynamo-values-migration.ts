/**
 * Lifting the values of readings stored before values were lifted, over the whole observations
 * table (docs/operations.md#lifting-the-values-of-stored-readings): a parallel Scan for rows
 * without values, each given what its payload holds by a conditional update (never a row that has
 * some), and the patients touched, whose day summaries the caller then rebuilds. Resumable (the
 * Scan's position is saved after every page) and idempotent. A marker item records that the table
 * is done, so `npm start` checks one key instead of reading every row at each start.
 */
import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import pMap from 'p-map';
import { dynamo } from '../../store/clients';
import { freshSegments, scanInSegments, type ScanProgress } from '../../store/scan-segments';
import type { KeptValue, StoredObservation } from '../model';
import { fromItem, type ObservationItem } from './dynamo-items';
import { table } from './dynamo-table';
import { keepValues } from './dynamo-values';

export interface ValuesProgress extends ScanProgress {
  /** Every patient's summaries are rebuilt (the repair), not only those of readings found without values. */
  everyone: boolean;
  /** Readings given their values so far. */
  lifted: number;
  /** Patients whose readings were found without values (their summaries to rebuild), ascending. */
  patients: number[];
  /** How many of `patients` have had their summaries rebuilt. */
  rebuilt: number;
}

export const freshValuesProgress = (segments = 4, everyone = false): ValuesProgress => ({ segments: freshSegments(segments), everyone, lifted: 0, patients: [], rebuilt: 0 });

/** The marker of a table whose readings all have their values (written when the table is made, or by the migration's end). */
const MARKER = { pk: '#MIGRATION', sk: 'values' };

export async function valuesLifted(): Promise<boolean> {
  const out = await dynamo().send(new GetCommand({ TableName: table(), Key: MARKER, ConsistentRead: true }));
  return out.Item !== undefined;
}

export async function markValuesLifted(): Promise<void> {
  await dynamo().send(new PutCommand({ TableName: table(), Item: { ...MARKER, at: new Date().toISOString() } }));
}

/**
 * Gives every reading without values the values `lift` finds in it (undefined: none to keep), and
 * records its patient; with `progress.everyone`, reads every reading and records every patient.
 */
export async function liftTableValues(
  lift: (reading: StoredObservation) => KeptValue[] | undefined,
  progress: ValuesProgress,
  save?: (progress: ValuesProgress) => void | Promise<void>,
): Promise<ValuesProgress> {
  const patients = new Set(progress.patients);
  await scanInSegments({
    table: table(),
    progress,
    filter: progress.everyone
      ? { expression: 'begins_with(#sk, :reading)', names: { '#sk': 'sk' }, values: { ':reading': 'U#' } }
      : { expression: 'begins_with(#sk, :reading) AND attribute_not_exists(#q)', names: { '#sk': 'sk', '#q': 'q' }, values: { ':reading': 'U#' } },
    onPage: async (items) => {
      const readings = items.map((item) => fromItem(item as ObservationItem));
      // The patients are saved before their rows change: a run stopped after the updates but before
      // the Scan's position was saved finds those rows lifted when it resumes (the Scan skips them),
      // and their patients' summaries must still be rebuilt.
      for (const reading of readings) patients.add(reading.patientId);
      progress.patients = [...patients].sort((a, b) => a - b);
      await save?.(structuredClone(progress));
      const kept = await pMap(readings.filter((r) => r.values === undefined), async (reading) => {
        const values = lift(reading);
        return values !== undefined && (await keepValues(reading, values));
      }, { concurrency: 16 });
      progress.lifted += kept.filter(Boolean).length;
    },
    save: () => save?.(structuredClone(progress)),
  });
  return progress;
}

export interface ValuesMigration {
  lift: (reading: StoredObservation) => KeptValue[] | undefined;
  /** Rebuilds a patient's day summaries from their rows. */
  rebuild: (patientId: number) => Promise<unknown>;
  progress?: ValuesProgress;
  save?: (progress: ValuesProgress) => void | Promise<void>;
}

/** The whole migration: values lifted, then the touched patients' summaries rebuilt, then the table marked done. */
export async function migrateValues(options: ValuesMigration): Promise<ValuesProgress> {
  const progress = options.progress ?? freshValuesProgress();
  await liftTableValues(options.lift, progress, options.save);
  while (progress.rebuilt < progress.patients.length) {
    await options.rebuild(progress.patients[progress.rebuilt]!);
    progress.rebuilt += 1;
    await options.save?.(structuredClone(progress));
  }
  await markValuesLifted();
  return progress;
}
