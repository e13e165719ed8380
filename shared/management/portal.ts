/**
 * `POST /api/v1/portal/identifier` (docs/api.md#management-api-apiv1): the pull flow stores the upstream server's patient id
 * on the signed-in patient. Idempotent; other identifiers are never touched; an identifier that
 * belongs to another patient is a 409. Error bodies are the `{error}` shapes the portal reads.
 */
import type { PatientCaller } from '../auth/caller';
import type { Identifier } from '../directory/model';
import { addPatientIdentifier } from '../directory/patients';
import { HttpError, isHttpError } from '../http/errors';

export const NOT_A_PATIENT = 'Authenticated user is not a patient';
export const IDENTIFIER_REQUIRED = 'system and value are required';
export const IDENTIFIER_TAKEN = 'Identifier is already assigned to another patient';

export const portalError = (status: 400 | 409, error: string) => new HttpError(status, `${error}.`, undefined, { apiBody: { error } });

/** What a caller who is not a patient gets from the identifier call (the route's refusal). */
export const notAPatient = () => portalError(400, NOT_A_PATIENT);

export async function storePortalIdentifier(caller: PatientCaller, identifier: Identifier): Promise<Identifier> {
  try {
    await addPatientIdentifier(caller.patientId, identifier);
  } catch (e) {
    if (isHttpError(e) && e.status === 409) throw portalError(409, IDENTIFIER_TAKEN);
    throw e;
  }
  return { system: identifier.system, value: identifier.value };
}
