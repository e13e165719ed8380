/**
 * Removing a patient's observations (with everything that leads to them, and their day summaries),
 * for the deletion of a patient. Deleting is idempotent, so an interrupted run is finished by running it again.
 */
import { forgetKnownSpans } from './span-stats';
import { observationStore } from './store/current';
import { summaryStore } from './store/summary-current';

/** Deletes every observation of the patient; returns how many rows were deleted. */
export async function deletePatientObservations(patientId: number): Promise<number> {
  const deleted = await observationStore().deletePatient(patientId);
  // The day summaries last: a deletion stopped half-way leaves summaries of rows gone, which the next run removes.
  await summaryStore().deletePatient(patientId);
  forgetKnownSpans();
  return deleted;
}
