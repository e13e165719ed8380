/**
 * The auxiliary create, as the native Observation store and the R4 import call it: a result value
 * instead of a thrown error, so a batch can report each entry on its own.
 */
import { operationOutcome } from '../fhir/outcome';
import { isHttpError } from '../http/errors';
import { busyAs503 } from '../store/busy';
import { versionHeaders } from './persist';
import type { AuxCreateResult, CreateAuxiliaryResource } from './types';
import { createAuxiliary } from './writes';

export const createAuxiliaryResource: CreateAuxiliaryResource = async (req): Promise<AuxCreateResult> => {
  try {
    const { status, row, resource } = await createAuxiliary(
      { caller: req.caller, type: req.type, origin: req.origin, ...(req.sourceHeader !== undefined ? { sourceHeader: req.sourceHeader } : {}) },
      req.resource,
    );
    const { etag, location } = versionHeaders(row, req.origin);
    return { ok: true, status, resource, etag, location, lastModified: row.lastUpdated, patientId: row.patientId };
  } catch (thrown) {
    // A busy store is this entry's 503; the rest of the batch goes on.
    const error = busyAs503(thrown);
    if (isHttpError(error)) return { ok: false, status: error.status, outcome: operationOutcome(error.issues) };
    throw error;
  }
};
