/**
 * Rewriting the blocks kept in an earlier format of the block codec in the current one
 * (docs/operations.md#rewriting-blocks-in-the-current-format). Every format stays readable, and a
 * block is written in the current one whenever an upload adds to it, so nothing depends on this:
 * it gives the blocks no upload touches again (last year's hours) the current format's size and its
 * reads of one payload group. A parallel Scan keeps the block items; each page's blocks are
 * rewritten before the Scan's position is saved, so a run stopped anywhere resumes where it was
 * (a block already current is counted and left alone).
 *
 * Each rewrite is checked before it is put: the new item must give back exactly the readings the
 * old one held (payloads byte for byte), or it is counted as a mismatch and not written. The put is
 * conditional on the block's version, as an upload's is: a block an upload rewrote meanwhile is
 * already current, and is counted as such.
 */
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import pMap from 'p-map';
import { dynamo } from '../../store/clients';
import { retryWhileBusy } from '../../store/retry';
import { freshSegments, scanInSegments, type ScanProgress } from '../../store/scan-segments';
import { BLOCK_FORMAT, factsFormat } from './block-codec';
import { blockItem, readingsOfBlock, type BlockItem } from './block-items';
import { blockKeys, blockOf, patientOfPk } from './block-keys';
import { table } from './dynamo-table';

export interface RecodeProgress extends ScanProgress {
  table: string;
  /** The format blocks are rewritten in. */
  format: number;
  /** Blocks seen; of those already in the current format, rewritten, changed meanwhile (rewritten by an upload, or deleted with its patient), and not rewritten because the check failed. */
  blocks: number;
  current: number;
  rewritten: number;
  changedMeanwhile: number;
  mismatches: number;
}

export const freshRecode = (segments = 4): RecodeProgress => ({ table: table(), format: BLOCK_FORMAT, segments: freshSegments(segments), blocks: 0, current: 0, rewritten: 0, changedMeanwhile: 0, mismatches: 0 });

export interface RecodeRun {
  progress?: RecodeProgress;
  save?: (progress: RecodeProgress) => void | Promise<void>;
  /** Items a Scan page reads. */
  pageSize?: number;
}

type Outcome = 'current' | 'rewritten' | 'changedMeanwhile' | 'mismatches';

/** Blocks rewritten at once per Scan segment. */
const CONCURRENCY = 8;

export async function recodeEveryBlock(run: RecodeRun = {}): Promise<RecodeProgress> {
  const { progress = freshRecode(), save } = run;
  if (progress.table !== table()) throw new Error(`this progress belongs to a rewrite of ${progress.table}, not ${table()}`);
  if (progress.format !== BLOCK_FORMAT) throw new Error(`this progress belongs to a rewrite in format ${progress.format}, not ${BLOCK_FORMAT}`);
  await scanInSegments({
    table: table(),
    progress,
    filter: { expression: 'begins_with(#pk, :patient) AND begins_with(#sk, :block)', names: { '#pk': 'pk', '#sk': 'sk' }, values: { ':patient': blockKeys.patientPk(0).slice(0, 2), ':block': blockKeys.codePrefix(0).slice(0, 2) } },
    ...(run.pageSize ? { pageSize: run.pageSize } : {}),
    onPage: async (items) => {
      for (const outcome of await pMap(items, recodeBlock, { concurrency: CONCURRENCY })) {
        progress.blocks += 1;
        progress[outcome] += 1;
      }
    },
    save: () => save?.(structuredClone(progress)),
  });
  return progress;
}

/** Whether a rewrite's progress is of this table, into the current format. */
export const recodeOfThisFormat = (progress: RecodeProgress | undefined): progress is RecodeProgress => progress?.table === table() && progress.format === BLOCK_FORMAT;

/** Whether a rewrite's progress says every block is in the current format. */
export const recodeFinished = (progress: RecodeProgress | undefined): boolean => recodeOfThisFormat(progress) && progress.segments.every((s) => s.done);

/** What a run did, in lines for the operator. */
export const recodeReport = (p: RecodeProgress): string[] => [
  `${p.blocks} blocks read: ${p.rewritten} rewritten in format ${p.format}, ${p.current} already in it, ${p.changedMeanwhile} changed meanwhile (an upload rewrote it, or its patient was deleted)`,
  `${p.mismatches} not rewritten because the rewritten block did not give back the same readings${p.mismatches > 0 ? ' (run again; tell the maintainers if it stays)' : ''}`,
];

/** One block item in the current format, checked, or why not. */
export async function recodeBlock(item: BlockItem): Promise<Outcome> {
  if (factsFormat(item.c as Uint8Array) === 'current') return 'current';
  const patientId = patientOfPk(item.pk);
  const { segment, ...ref } = blockOf(String(item.sk));
  const readings = readingsOfBlock(item, patientId);
  const ver = Number(item.ver);
  const rewritten = blockItem(patientId, ref, segment, readings, ver + 1);
  if (JSON.stringify(readingsOfBlock(rewritten, patientId)) !== JSON.stringify(readings)) return 'mismatches';
  try {
    await retryWhileBusy(() => dynamo().send(new PutCommand({ TableName: table(), Item: rewritten, ConditionExpression: 'ver = :ver', ExpressionAttributeValues: { ':ver': ver } })));
    return 'rewritten';
  } catch (e) {
    if (e instanceof ConditionalCheckFailedException) return 'changedMeanwhile';
    throw e;
  }
}
