/**
 * Writing a version of a row: the stored copy is prepared (stamped and indexed), its body placed
 * inline or in S3, then the table committed. Order and cleanup keep both halves whole: the S3
 * object is written before the table points at it, deleted again when the commit fails, and the
 * previous version's object is deleted only after the table has moved on.
 */
import { randomBytes } from 'node:crypto';
import { FHIR_BASES } from '../http/families';
import type { HttpError } from '../http/errors';
import type { Logger } from '../log';
import { discardBody, getBody, isTooLargeForItem, putBody } from './bodies';
import { bodyKeys } from './keys';
import type { ResourceRow, RowHead } from './rows';
import { commitCreate, commitUpdate } from './store';
import { prepareStored, type Resource } from './submission';

export interface Written {
  row: ResourceRow;
  resource: Resource;
}

/** Where the row's body goes: inline when it fits the item, else a new S3 object of this write alone (written now). */
async function placeBody(head: RowHead, json: string): Promise<Pick<ResourceRow, 'body' | 'bodyKey'>> {
  if (!isTooLargeForItem(json)) return { body: json };
  const key = bodyKeys.object(head.patientId, head.sourceId, head.id, head.version, randomBytes(6).toString('base64url'));
  await putBody(key, json);
  return { bodyKey: key };
}

const nowInstant = () => new Date().toISOString();

/** Version 1 of a new row; `UpstreamIdTaken` when the source already holds the submitted id. */
export async function persistNew(head: Omit<RowHead, 'version' | 'lastUpdated'>, submitted: Resource, origin: string, log?: Logger): Promise<Written> {
  const full: RowHead = { ...head, version: 1, lastUpdated: nowInstant() };
  const prepared = await prepareStored(submitted, full, origin);
  const row: ResourceRow = { ...full, ...(await placeBody(full, prepared.json)) };
  try {
    await commitCreate(row, prepared.index);
  } catch (error) {
    await discardBody(row.bodyKey, log);
    throw error;
  }
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
  const row: ResourceRow = { ...next, ...(await placeBody(next, prepared.json)) };
  try {
    await commitUpdate(current, row, prepared.index, onConflict);
  } catch (error) {
    await discardBody(row.bodyKey, log);
    throw error;
  }
  if (current.bodyKey) await discardBody(current.bodyKey, log);
  return { row, resource: prepared.resource };
}

/** The stored resource of a row, from the item or from S3. */
export async function loadResource(row: ResourceRow): Promise<Resource> {
  const json = row.body ?? (row.bodyKey ? await getBody(row.bodyKey) : undefined);
  if (json === undefined) throw new Error(`auxiliary row ${row.id} has no body`);
  return JSON.parse(json) as Resource;
}

/** HTTP validators and the canonical URL of a row's current version. */
export function versionHeaders(row: RowHead, origin: string) {
  return {
    etag: `W/"${row.version}"`,
    lastModified: new Date(row.lastUpdated).toUTCString(),
    location: `${origin}${FHIR_BASES[0]}/${row.type}/${row.id}/_history/${row.version}`,
  };
}
