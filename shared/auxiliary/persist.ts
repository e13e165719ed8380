/**
 * Writing a version of a row: the stored copy is prepared (stamped and indexed), its body placed
 * inline or apart (as the store decides: S3 in the service), then the row committed. Order and cleanup keep both halves
 * whole: the body object is listed as pending and written before the row points at it, deleted
 * again when the commit is refused, and the previous version's object is deleted only after the
 * row has moved on (`pending-bodies.ts` keeps every object no row points at findable until it is gone).
 */
import type { HttpError } from '../http/errors';
import type { Logger } from '../telemetry/logger';
import { discardPendingBody, sweepPendingBodies } from './pending-bodies';
import type { ResourceRow, RowHead } from './rows';
import { auxiliaryStore } from './store/current';
import { prepareStored, type Resource, type StoredResource } from './submission';

export interface Written {
  row: ResourceRow;
  resource: StoredResource;
}

/**
 * Where the row's body goes: inline when it fits the row, else a new object of this write alone,
 * written now and listed as pending until the commit takes it (the patient's due leftovers are
 * swept first).
 */
async function placeBody(head: RowHead, json: string, log?: Logger): Promise<Pick<ResourceRow, 'body' | 'bodyKey'>> {
  if (auxiliaryStore().rows.keepsInline(json)) return { body: json };
  await sweepPendingBodies(head.patientId, log);
  const key = auxiliaryStore().bodies.newKey(head);
  await auxiliaryStore().pending.recordWriting(head.patientId, key);
  try {
    await auxiliaryStore().bodies.put(key, json);
  } catch (error) {
    // The object may exist all the same (an answer lost after S3 stored it).
    await discardPendingBody(head.patientId, key, log);
    throw error;
  }
  return { bodyKey: key };
}

const nowInstant = () => new Date().toISOString();

/** Version 1 of a new row; `UpstreamIdTaken` (store/port.ts) when the source already holds the submitted id. */
export async function persistNew(head: Omit<RowHead, 'version' | 'lastUpdated'>, submitted: Resource, origin: string, log?: Logger): Promise<Written> {
  const full: RowHead = { ...head, version: 1, lastUpdated: nowInstant() };
  const prepared = await prepareStored(submitted, full, origin);
  const row: ResourceRow = { ...full, ...(await placeBody(full, prepared.json, log)) };
  await commitWithBody(row, () => auxiliaryStore().rows.create(row, prepared.index), log);
  return { row, resource: prepared.resource };
}

/** The next version of an existing row, replacing its body by `submitted`. */
export async function persistNextVersion(
  current: ResourceRow,
  submitted: Resource,
  origin: string,
  onConflict: () => HttpError,
  log?: Logger,
): Promise<Written> {
  const { body: _body, bodyKey: _key, ...currentHead } = current;
  const lastUpdated = nowInstant();
  const next: RowHead = {
    ...currentHead,
    version: current.version + 1,
    // Strictly later than the previous version, so the index item always moves forward in time.
    lastUpdated: lastUpdated > current.lastUpdated ? lastUpdated : new Date(Date.parse(current.lastUpdated) + 1).toISOString(),
  };
  const prepared = await prepareStored(submitted, next, origin);
  const row: ResourceRow = { ...next, ...(await placeBody(next, prepared.json, log)) };
  await commitWithBody(row, () => auxiliaryStore().rows.update(current, row, prepared.index, onConflict), log);
  await discardPendingBody(current.patientId, current.bodyKey, log);
  return { row, resource: prepared.resource };
}

/**
 * Runs the commit of a row whose body may be a new object. When the commit fails, the object goes
 * only once the row is known not to point at it. A refusal the store gave (`refused`: a failed
 * condition, a cancelled transaction, a throttled or invalid request) wrote nothing. Any other
 * failure (a timeout, a lost answer, a server error) may have come after the commit landed, so the
 * row is read back: a commit that landed counts as done (deleting its object would leave a stored
 * row without its body); one that did not, or whose fate cannot be read, keeps its object listed
 * as pending, since the write may still land: a later sweep deletes it once it cannot.
 */
async function commitWithBody(row: ResourceRow, commit: () => Promise<void>, log?: Logger): Promise<void> {
  try {
    await commit();
  } catch (error) {
    if (auxiliaryStore().rows.refused(error)) {
      await discardPendingBody(row.patientId, row.bodyKey, log);
      throw error;
    }
    if (await landed(row)) return;
    throw error;
  }
}

async function landed(row: ResourceRow): Promise<boolean> {
  const stored = await auxiliaryStore().rows.get(row.id).catch(() => undefined);
  return stored?.version === row.version && stored.lastUpdated === row.lastUpdated;
}

/** The stored resource of a row, from the item or from S3. */
export async function loadResource(row: ResourceRow): Promise<Resource> {
  const json = row.body ?? (row.bodyKey ? await auxiliaryStore().bodies.get(row.bodyKey) : undefined);
  if (json === undefined) throw new Error(`auxiliary row ${row.id} has no body`);
  return JSON.parse(json) as Resource;
}

