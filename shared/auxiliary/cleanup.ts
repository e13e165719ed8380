/**
 * Deleting everything stored through a FHIR Source, or for a patient: every row's items (resource,
 * index, upstream claim), every body in S3 and the pending-body entries of those objects. Call these AFTER deleting the FHIR Source (or the
 * patient) record: every auxiliary write checks in its transaction that both still exist, so once
 * the record is gone no new row can land, and this sweep finds all there is. Both are idempotent:
 * re-running after a failure finishes the job (the S3 sweep is by prefix, so it also removes
 * bodies of interrupted writes).
 */
import { getFhirSource } from '../directory/fhir-sources';
import type { Id } from '../directory/model';
import { config } from '../config';
import { batchDeleteAll } from '../store/batch';
import { deleteBodiesUnder } from './bodies';
import { auxKeys, bodyKeys, type Key } from './keys';
import { forgetPendingBodies } from './pending-bodies';
import { claimKeyOf, indexKeyOf, type IndexRow } from './rows';
import { segmentRows, type Segment } from './store';

export interface AuxDeletion {
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
export async function deleteAuxiliaryRowsOfSource(sourceId: Id, patientId?: Id): Promise<AuxDeletion> {
  const owner = patientId ?? (await getFhirSource(sourceId))?.patientId;
  if (owner === undefined) {
    throw new Error(`deleteAuxiliaryRowsOfSource(${sourceId}): the source is gone; pass its patient id to find its rows`);
  }
  const rows = await deleteRowsOf({ patientId: owner, sourceId });
  const bodies = await deleteBodiesUnder(bodyKeys.ofSource(owner, sourceId));
  await forgetPendingBodies(owner, bodyKeys.ofSource(owner, sourceId));
  return { rows, bodies };
}

/** Deletes every auxiliary row of the patient (through all of their sources), and their bodies. */
export async function deleteAuxiliaryRowsOfPatient(patientId: Id): Promise<AuxDeletion> {
  const rows = await deleteRowsOf({ patientId });
  const bodies = await deleteBodiesUnder(bodyKeys.ofPatient(patientId));
  await forgetPendingBodies(patientId);
  return { rows, bodies };
}

/** Deletes the rows of a segment a page of index items at a time; returns how many. */
async function deleteRowsOf(segment: Segment): Promise<number> {
  let deleted = 0;
  let batch: IndexRow[] = [];
  const flush = async () => {
    await batchDeleteAll(config().auxTable, batch.flatMap(itemKeysOf));
    deleted += batch.length;
    batch = [];
  };
  for await (const row of segmentRows(segment)) {
    batch.push(row);
    if (batch.length >= 100) await flush();
  }
  await flush();
  return deleted;
}

/** All items of a row: its resource, its index item and its upstream claim. */
function itemKeysOf(row: IndexRow): Key[] {
  const claim = claimKeyOf(row);
  return [auxKeys.resource(row.id), indexKeyOf(row), ...(claim ? [claim] : [])];
}
