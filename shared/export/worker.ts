/**
 * The export worker's work, whatever feeds it (SQS on AWS, `npm start`'s own queue locally): a new
 * job fans out into one message per part not yet done; a part runs (`run-part.ts`); and the sweep,
 * run on a schedule, settles what is due (a job whose parts are all done is complete; a job without
 * progress for too long is failed, its files removed), deletes expired jobs with their files, and on
 * a restart of the local runtime hands the unfinished parts out again.
 */
import type { AuditLine } from '../telemetry/audit';
import type { Logger } from '../telemetry/logger';
import { LOG_MESSAGE } from '../telemetry/names';
import { failJob, settle } from './jobs';
import type { ExportMessage } from './model';
import { runPart } from './run-part';
import { exportStore } from './store/current';

/** How many times a message is received before it goes to the dead-letter queue (the stack's `maxReceiveCount`). */
export const MAX_RECEIVES = 3;

/** The message a queue delivered, if it is one of the worker's; anything else is dropped. */
export function parseMessage(body: string): ExportMessage | undefined {
  let value: unknown;
  try {
    value = JSON.parse(body);
  } catch {
    return undefined;
  }
  if (typeof value !== 'object' || value === null) return undefined;
  const m = value as Record<string, unknown>;
  if (typeof m.jobId !== 'string' || !/^[A-Za-z0-9_-]{22}$/.test(m.jobId)) return undefined;
  if (m.kind === 'start') return { kind: 'start', jobId: m.jobId };
  if (m.kind === 'part' && Number.isInteger(m.part) && (m.part as number) >= 0) return { kind: 'part', jobId: m.jobId, part: m.part as number };
  return undefined;
}

/** Hands out a job's parts that are not done yet. */
async function fanOut(jobId: string, now: number): Promise<void> {
  const job = await exportStore().jobs.get(jobId);
  if (job?.status !== 'in-progress') return;
  const pending = (await exportStore().jobs.parts(jobId)).filter((p) => !p.done);
  if (pending.length === 0) {
    await settle(job, now);
    return;
  }
  await exportStore().queue.send(pending.map((p) => ({ kind: 'part', jobId, part: p.index })));
}

/**
 * Does one message's work. A failure is thrown, so the queue delivers the message again, except at
 * its last delivery (`receives` of `MAX_RECEIVES`): the job is failed then, with a message for its
 * owner, instead of waiting for the stuck-job limit.
 */
export async function handleMessage(message: ExportMessage, receives: number, log?: Logger): Promise<void> {
  try {
    if (message.kind === 'start') await fanOut(message.jobId, Date.now());
    else {
      const done = await runPart(message.jobId, message.part);
      // The audit trail's line of a part: whose data went into the job's files, for whom.
      if (done.recorded && done.owner && log) {
        const who = { kind: done.owner.kind, userId: done.owner.userId, ...(done.owner.clientId !== undefined ? { clientId: done.owner.clientId } : {}) };
        const audit: AuditLine = { action: 'export', resourceType: 'Bundle', route: `export ${message.jobId} part ${message.part}`, who, patients: done.patients ?? [], result: 200 };
        log.info(LOG_MESSAGE.audit, { audit });
      }
    }
  } catch (error) {
    log?.error('export work failed', { jobId: message.jobId, kind: message.kind, receives, error: error instanceof Error ? error.message : String(error) });
    if (receives < MAX_RECEIVES) throw error;
    await failJob(message.jobId, Date.now(), `The export failed (${message.kind === 'part' ? `part ${message.part}` : 'its start'} could not be done after ${receives} attempts); start it again.`);
  }
}

export interface SweepResult {
  /** Jobs failed for lack of progress. */
  stuck: number;
  /** Jobs found complete. */
  completed: number;
  /** Expired jobs deleted with their files. */
  removed: number;
  /** Jobs whose unfinished parts were handed out again. */
  resumed: number;
}

/** One pass over every job; with `resume`, running jobs get their unfinished parts handed out again (after a restart). */
export async function sweepExports(options: { resume?: boolean; now?: number } = {}): Promise<SweepResult> {
  const now = options.now ?? Date.now();
  const result: SweepResult = { stuck: 0, completed: 0, removed: 0, resumed: 0 };
  for (const summary of await exportStore().jobs.list()) {
    if (summary.status === 'in-progress') {
      const job = await exportStore().jobs.get(summary.id);
      if (!job) continue;
      const settled = await settle(job, now);
      if (settled.status === 'failed') result.stuck += 1;
      else if (settled.status === 'complete') result.completed += 1;
      else if (options.resume) {
        await fanOut(job.id, now);
        result.resumed += 1;
      }
    } else if (summary.expiresAt * 1000 <= now) {
      await exportStore().files.removeAll(summary.id);
      await exportStore().jobs.remove(summary.id);
      result.removed += 1;
    }
  }
  return result;
}
