/**
 * The auxiliary create, as the native Observation store and the R4 import call it: a result value
 * instead of a thrown error, so a batch can report each entry on its own.
 */
import { issue, operationOutcome } from '../fhir/outcome';
import { isHttpError } from '../http/errors';
import { busyAs503 } from '../store/busy';
import { rootLogger } from '../telemetry/logger';
import type { AuxiliaryCreateResult, CreateAuxiliaryResource } from './types';
import { createAuxiliary } from './writes';

export const createAuxiliaryResource: CreateAuxiliaryResource = async (req): Promise<AuxiliaryCreateResult> => {
  try {
    const { status, row, resource } = await createAuxiliary(
      {
        caller: req.caller,
        type: req.type,
        origin: req.origin,
        ...(req.sourceHeader !== undefined ? { sourceHeader: req.sourceHeader } : {}),
        ...(req.checkedSource ? { checkedSource: req.checkedSource } : {}),
      },
      req.resource,
    );
    return { ok: true, status, resource, patientId: row.patientId };
  } catch (thrown) {
    // A busy store is this entry's 503, and a failure nobody foresaw this entry's 500 (logged with its
    // stack): the rest of the batch goes on and keeps its results.
    const error = busyAs503(thrown);
    if (isHttpError(error)) return { ok: false, status: error.status, outcome: operationOutcome(error.issues) };
    rootLogger().error('auxiliary create failed unexpectedly', error instanceof Error ? error : String(error));
    return { ok: false, status: 500, outcome: operationOutcome([issue('error', 'exception', 'The resource could not be stored because of an unexpected error.')]) };
  }
};
