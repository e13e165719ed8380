/**
 * THE record of the S3 objects that no row points at. Every object of the bodies bucket is the body
 * of a stored row or is listed here, so what an interrupted write leaves in the bucket (an
 * invocation stopped between its object and its commit, an old version whose deletion failed) is
 * found by a key read, never lost among the objects. Entries, in the patient's partition
 * `B#<patientId>`, one per object key:
 *
 * - `writing`: put before the object is written. The commit that makes a row point at the object
 *   removes it in the same transaction; one older than the longest an invocation can run belongs
 *   to a write that will never commit.
 * - `discarded`: put by the commit that moves a row off its object (an update, a delete), and
 *   removed once the object is deleted.
 *
 * Before each large body it writes, a write sweeps its patient's entries that are due (discarded
 * ones, and writing ones past that limit), so leftovers go with the next large write of the same
 * patient; deleting a FHIR Source or a patient removes theirs with their objects.
 */
import { DeleteCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { config } from '../config';
import type { Id } from '../directory/model';
import type { Logger } from '../telemetry/logger';
import { batchDeleteAll } from '../store/batch';
import { dynamo } from '../store/clients';
import { queryAll } from '../store/reads';
import { deleteBody } from './bodies';
import { auxKeys, type Key } from './keys';

export type PendingState = 'writing' | 'discarded';

/** Longer than any invocation runs (Lambda stops every function by 15 minutes). */
export const ABANDONED_AFTER_MS = 15 * 60_000;

const table = () => config().auxTable;

export function pendingBodyItem(patientId: Id, bodyKey: string, state: PendingState): Record<string, unknown> {
  return { ...auxKeys.pendingBody(patientId, bodyKey), state, since: new Date().toISOString() };
}

/** Lists an object about to be written (before it is). */
export async function recordWriting(patientId: Id, bodyKey: string): Promise<void> {
  await dynamo().send(new PutCommand({ TableName: table(), Item: pendingBodyItem(patientId, bodyKey, 'writing') }));
}

/**
 * Deletes an object no row points at, then its entry; a failure only leaves both for a later sweep,
 * so it is logged, not raised.
 */
export async function discardPendingBody(patientId: Id, bodyKey: string | undefined, log?: Pick<Logger, 'warn'>): Promise<void> {
  if (bodyKey === undefined) return;
  try {
    await deleteBody(bodyKey);
    await dynamo().send(new DeleteCommand({ TableName: table(), Key: auxKeys.pendingBody(patientId, bodyKey) }));
  } catch (error) {
    log?.warn('could not delete an auxiliary body no row points at; it stays listed for a later sweep', { bodyKey, error: error instanceof Error ? error.message : String(error) });
  }
}

interface PendingEntry {
  bodyKey: string;
  state: PendingState;
  /** ISO instant the entry was written. */
  since: string;
}

async function pendingOf(patientId: Id, keyPrefix?: string): Promise<PendingEntry[]> {
  const items = await queryAll({ table: table(), pk: auxKeys.pendingPartition(patientId), ...(keyPrefix === undefined ? {} : { skPrefix: keyPrefix }) });
  return items.map((item) => ({ bodyKey: String(item.sk), state: item.state as PendingState, since: String(item.since) }));
}

/**
 * Deletes the patient's listed objects that are due at `now`: discarded ones, and writes abandoned
 * long enough before. Best effort.
 */
export async function sweepPendingBodies(patientId: Id, log?: Pick<Logger, 'warn'>, now = Date.now()): Promise<void> {
  try {
    const abandonedBefore = new Date(now - ABANDONED_AFTER_MS).toISOString();
    for (const entry of await pendingOf(patientId)) {
      if (entry.state === 'discarded' || entry.since < abandonedBefore) await discardPendingBody(patientId, entry.bodyKey, log);
    }
  } catch (error) {
    log?.warn('could not sweep the auxiliary bodies no row points at; the next large write tries again', { patientId, error: error instanceof Error ? error.message : String(error) });
  }
}

/** Removes the entries of a patient (or of one of their sources, by object key prefix) whose objects the caller deletes. */
export async function forgetPendingBodies(patientId: Id, keyPrefix?: string): Promise<void> {
  const keys: Key[] = (await pendingOf(patientId, keyPrefix)).map((e) => auxKeys.pendingBody(patientId, e.bodyKey));
  await batchDeleteAll(table(), keys);
}
