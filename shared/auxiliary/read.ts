/** Read by id: one strongly consistent GetItem (and the S3 object of a large body). */
import type { Caller } from '../auth/caller';
import type { Id } from '../directory/model';
import { visibleRow } from './access';
import { loadResource, versionHeaders } from './persist';
import type { Resource } from './submission';

export interface AuxReadResult {
  resource: Resource;
  /** `W/"<version>"` */
  etag: string;
  /** HTTP date of `meta.lastUpdated`. */
  lastModified: string;
  /** Current version, as in `meta.versionId`. */
  versionId: string;
  /** Whose data it is (for the audit trail). */
  patientId: Id;
}

/** The stored resource of that type and id, if the caller may read it; 404 otherwise. */
export async function readAuxiliary(caller: Caller, type: string, id: string, origin: string): Promise<AuxReadResult> {
  const row = await visibleRow(caller, type, id);
  const { etag, lastModified } = versionHeaders(row, origin);
  return { resource: await loadResource(row), etag, lastModified, versionId: String(row.version), patientId: row.patientId };
}
