/**
 * Deleting everything stored through a FHIR Source, or for a patient: every row's records (resource,
 * index row, upstream claim), every body and the pending-body entries of those objects. Call these
 * AFTER deleting the FHIR Source (or the patient) record: every auxiliary write is guarded by both
 * still existing, so once the record is gone no new row can land, and this sweep finds all there
 * is. Both are idempotent: re-running after a failure finishes the job (the bodies go by prefix, so
 * also those of interrupted writes).
 */
import { getFhirSource } from '../directory/fhir-sources';
import type { Id } from '../directory/model';
import { auxiliaryStore } from './store/current';
import type { Segment } from './store/port';

export interface AuxiliaryDeletion {
  /** Resources deleted. */
  rows: number;
  /** S3 objects deleted. */
  bodies: number;
}

/**
 * Deletes every auxiliary row written through the FHIR Source, and their bodies. `patientId` is the
 * source's patient: pass it when the source record is already deleted (the rows live in the
 * patient's partition); without it the source is read from the directory.
 */
export async function deleteAuxiliaryRowsOfSource(sourceId: Id, patientId?: Id): Promise<AuxiliaryDeletion> {
  const owner = patientId ?? (await getFhirSource(sourceId))?.patientId;
  if (owner === undefined) {
    throw new Error(`deleteAuxiliaryRowsOfSource(${sourceId}): the source is gone; pass its patient id to find its rows`);
  }
  return deleteSegment({ patientId: owner, sourceId });
}

/** Deletes every auxiliary row of the patient (through all of their sources), and their bodies. */
export function deleteAuxiliaryRowsOfPatient(patientId: Id): Promise<AuxiliaryDeletion> {
  return deleteSegment({ patientId });
}

async function deleteSegment(segment: Segment): Promise<AuxiliaryDeletion> {
  const store = auxiliaryStore();
  const rows = await store.rows.removeAll(segment);
  const bodies = await store.bodies.removeAll(segment);
  await store.pending.forget(segment);
  return { rows, bodies };
}
