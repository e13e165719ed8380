/**
 * THE record of the body objects that no row points at. Every object of the bodies bucket is the
 * body of a stored row or is listed here, so what an interrupted write leaves in the bucket (an
 * invocation stopped between its object and its commit, an old version whose deletion failed) is
 * found by a key read, never lost among the objects. Entries (the store's `PendingBodies`), per
 * patient, one per object key:
 *
 * - `writing`: put before the object is written. The commit that makes a row point at the object
 *   removes it in the same step; one older than the longest an invocation can run belongs
 *   to a write that will never commit.
 * - `discarded`: put by the commit that moves a row off its object (an update, a delete), and
 *   removed once the object is deleted.
 *
 * Before each large body it writes, a write sweeps its patient's entries that are due (discarded
 * ones, and writing ones past that limit), so leftovers go with the next large write of the same
 * patient; deleting a FHIR Source or a patient removes theirs with their objects.
 */
import type { Id } from '../directory/model';
import type { Logger } from '../telemetry/logger';
import { auxiliaryStore } from './store/current';

/** Longer than any invocation runs (Lambda stops every function by 15 minutes). */
export const ABANDONED_AFTER_MS = 15 * 60_000;

/**
 * Deletes an object no row points at, then its entry; a failure only leaves both for a later sweep,
 * so it is logged, not raised.
 */
export async function discardPendingBody(patientId: Id, bodyKey: string | undefined, log?: Pick<Logger, 'warn'>): Promise<void> {
  if (bodyKey === undefined) return;
  try {
    await auxiliaryStore().bodies.remove(bodyKey);
    await auxiliaryStore().pending.remove(patientId, bodyKey);
  } catch (error) {
    log?.warn('could not delete an auxiliary body no row points at; it stays listed for a later sweep', { bodyKey, error: error instanceof Error ? error.message : String(error) });
  }
}

/**
 * Deletes the patient's listed objects that are due at `now`: discarded ones, and writes abandoned
 * long enough before. Best effort.
 */
export async function sweepPendingBodies(patientId: Id, log?: Pick<Logger, 'warn'>, now = Date.now()): Promise<void> {
  try {
    const abandonedBefore = new Date(now - ABANDONED_AFTER_MS).toISOString();
    for (const entry of await auxiliaryStore().pending.list({ patientId })) {
      if (entry.state === 'discarded' || entry.since < abandonedBefore) await discardPendingBody(patientId, entry.bodyKey, log);
    }
  } catch (error) {
    log?.warn('could not sweep the auxiliary bodies no row points at; the next large write tries again', { patientId, error: error instanceof Error ? error.message : String(error) });
  }
}
