/** Read by id: one strongly consistent GetItem (and the S3 object of a large body). */
import type { Caller } from '../auth/caller';
import type { Id } from '../directory/model';
import { etagOf, httpDate } from '../fhir/version-headers';
import { visibleRow } from './access';
import { loadResource } from './persist';
import type { Resource } from './submission';

export interface AuxiliaryReadResult {
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
export async function readAuxiliary(caller: Caller, type: string, id: string): Promise<AuxiliaryReadResult> {
  const row = await visibleRow(caller, type, id);
  const versionId = String(row.version);
  return { resource: await loadResource(row), etag: etagOf(versionId), lastModified: httpDate(row.lastUpdated), versionId, patientId: row.patientId };
}
