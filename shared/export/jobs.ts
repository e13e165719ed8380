/**
 * A job as its owner and the worker see it: whose it is, whether it is still there for them, and
 * the moves a job makes on its own time (every part done: complete; no progress for too long:
 * failed), taken by whichever reader finds them due first, the status request or the sweep.
 */
import { accountCaller } from '../auth/account-caller';
import type { Caller } from '../auth/caller';
import { getUser } from '../directory/users';
import { config } from '../config';
import { notFound } from '../http/errors';
import type { ExportJob, ExportOwner } from './model';
import { ownerKey } from './model';
import { exportStore } from './store/current';

/**
 * Who owns a job the caller starts: the account, and for a client-credentials token (an API key, a
 * backend service) also its client, so another client of the same account cannot read the files.
 */
export function ownerOf(caller: Caller): ExportOwner {
  const client = caller.kind === 'practitioner' && caller.viaApiKey && caller.clientId !== undefined ? { clientId: caller.clientId } : {};
  return { userId: caller.userId, kind: caller.kind, ...client };
}

/** Epoch seconds `hours` from `now` (ms). */
export const expiryFrom = (now: number, hours = config().exports.expiryHours): number => Math.floor(now / 1000) + hours * 3600;

/** Whether the job is gone for its owner: cancelled, or finished and past its expiry. */
export const isGone = (job: ExportJob, now: number): boolean => job.status === 'cancelled' || (job.status !== 'in-progress' && job.expiresAt * 1000 <= now);

/**
 * The caller's job: the same 404 for a missing job, another caller's, a cancelled one and an
 * expired one, so a job id tells nothing to anyone but its owner.
 */
export async function ownJob(caller: Caller, jobId: string, now: number): Promise<ExportJob> {
  const job = /^[A-Za-z0-9_-]{22}$/.test(jobId) ? await exportStore().jobs.get(jobId) : undefined;
  if (!job || ownerKey(job.owner) !== ownerKey(ownerOf(caller)) || isGone(job, now)) throw notFound(`Export job ${jobId} not found.`);
  return job;
}

/**
 * The job after the moves that are due: all parts done but not yet recorded as complete (the worker
 * stopped between the two), or no progress for longer than the setting (failed, its files removed).
 */
export async function settle(job: ExportJob, now: number): Promise<ExportJob> {
  if (job.status !== 'in-progress') return job;
  if (job.partsDone >= job.partsTotal) {
    await exportStore().jobs.finish(job.id, 'complete', { expiresAt: expiryFrom(now) }, job.owner);
  } else if (now - job.progressAt > config().exports.stuckAfterSeconds * 1000) {
    const minutes = Math.round((now - job.progressAt) / 60_000);
    await failJob(job.id, now, `The export made no progress for ${minutes} minutes and was stopped; start it again.`);
  } else {
    return job;
  }
  return (await exportStore().jobs.get(job.id)) ?? job;
}

/** Marks a running job failed with a message for its owner, and removes what it wrote. */
export async function failJob(jobId: string, now: number, message: string, status = 500): Promise<boolean> {
  const failed = await exportStore().jobs.finish(jobId, 'failed', { expiresAt: expiryFrom(now), failure: { status, message } });
  if (failed) await exportStore().files.removeAll(jobId);
  return failed;
}

/**
 * The caller a job's parts run as: its owner's account as it stands now (a deactivated or deleted
 * account exports nothing more), with the client it was started through.
 */
export async function jobCaller(job: ExportJob): Promise<Caller | undefined> {
  const user = await getUser(job.owner.userId);
  if (!user || user.kind !== job.owner.kind) return undefined;
  return accountCaller(user, { scopes: [], ...(job.owner.clientId !== undefined ? { clientId: job.owner.clientId, viaApiKey: true } : {}) });
}
