/**
 * THE place where deleting a patient or a FHIR Source reaches the data stores: every stored row of
 * a deleted patient (native observations, auxiliary resources, their S3 bodies) and of a deleted
 * FHIR Source (its auxiliary rows and bodies) must go with it. The management API calls these two
 * functions; the observation store and the auxiliary store hook their deletions in here, and
 * nowhere else, so no deletion path can forget one of them.
 *
 * Contract for the hooks: idempotent (a retry after a partial failure finishes the job), and an
 * error is thrown, never swallowed, so the API answers the deletion with a failure the client can
 * retry instead of reporting success over rows left behind. The API calls each function before it
 * deletes the directory record (while a retry can still find it) and once more after (for writes
 * that raced with the first pass).
 *
 * It lives with the management API, which owns deletions, rather than in shared/store: the store
 * layer imports no domain.
 */
import { deleteAuxiliaryRowsOfPatient, deleteAuxiliaryRowsOfSource } from '../auxiliary/cleanup';
import type { FhirSource, Id } from '../directory/model';
import { deletePatientObservations } from '../observations/delete';

/** Deletes every observation and auxiliary row of the patient, in all their FHIR Sources. */
export async function purgePatientData(patientId: Id): Promise<void> {
  await deleteAuxiliaryRowsOfPatient(patientId);
  await deletePatientObservations(patientId);
}

/**
 * Deletes every auxiliary row (and stored body) written through the FHIR Source. Takes the owner
 * too: the second pass runs after the source record is gone, when it can no longer be looked up.
 */
export async function purgeFhirSourceData(source: Pick<FhirSource, 'id' | 'patientId'>): Promise<void> {
  await deleteAuxiliaryRowsOfSource(source.id, source.patientId);
}
