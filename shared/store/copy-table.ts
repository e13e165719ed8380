/**
 * Copies every item of one table into another, transformed on the way: the move of a table to a
 * new layout. Idempotent and resumable:
 *
 * - each item is put only where its key is free (`attribute_not_exists`), so a second run, or a
 *   run after the service started writing to the new table, never overwrites anything;
 * - the source is read by a parallel Scan whose position (each segment's last key) is saved after
 *   every page through `saveProgress`, so a run stopped anywhere resumes where it was.
 *
 * Throttling is retried with backoff; an item the target still refuses stops the run (nothing is
 * skipped silently), and the next run picks up from the last saved page.
 */
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import pMap from 'p-map';
import { dynamo } from './clients';
import { retryWhileBusy } from './retry';
import { freshSegments, scanInSegments, type Item, type ScanProgress } from './scan-segments';

export type { Item } from './scan-segments';

export interface CopyProgress extends ScanProgress {
  copied: number;
  /** Items whose key the target already held (copied by an earlier run, or written since). */
  present: number;
}

export interface CopyOptions {
  from: string;
  to: string;
  /** The items to put for one source item (none to leave it behind). */
  transform: (item: Item) => Item[];
  /** Parallel Scan segments (ignored when resuming: the saved progress fixes them). */
  segments?: number;
  /** Where the last run stopped. */
  progress?: CopyProgress;
  saveProgress?: (progress: CopyProgress) => void | Promise<void>;
  pageSize?: number;
  putConcurrency?: number;
}

export function freshProgress(segments: number): CopyProgress {
  return { segments: freshSegments(segments), copied: 0, present: 0 };
}

/** Puts an item where its key is free; false when the target already holds the key. */
async function putIfAbsent(table: string, item: Item): Promise<boolean> {
  try {
    await retryWhileBusy(() => dynamo().send(new PutCommand({ TableName: table, Item: item, ConditionExpression: 'attribute_not_exists(pk)' })));
    return true;
  } catch (e) {
    if (e instanceof ConditionalCheckFailedException) return false;
    throw e;
  }
}

export async function copyTable(options: CopyOptions): Promise<CopyProgress> {
  const progress = options.progress ?? freshProgress(Math.max(1, Math.min(64, options.segments ?? 4)));
  const save = async () => options.saveProgress?.(structuredClone(progress));
  await scanInSegments({
    table: options.from,
    progress,
    ...(options.pageSize ? { pageSize: options.pageSize } : {}),
    onPage: async (items) => {
      const targets = items.flatMap((item) => options.transform(item));
      const written = await pMap(targets, (item) => putIfAbsent(options.to, item), { concurrency: options.putConcurrency ?? 16 });
      progress.copied += written.filter(Boolean).length;
      progress.present += written.filter((w) => !w).length;
    },
    save,
  });
  return progress;
}
