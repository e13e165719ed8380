/**
 * Who may read and change a stored row, through THE scoping module: a row is visible to whoever
 * may read its patient (404 otherwise, exactly as for a missing id), and writable through its own
 * FHIR Source by whoever may use that source (403).
 */
import { assertCanReadPatient, assertCanUseFhirSource } from '../auth/scope';
import { isPatient, type Caller } from '../auth/caller';
import { badRequest, isHttpError, notFound } from '../http/errors';
import { auxiliaryStore } from './store/current';
import type { ResourceRow } from './rows';

/** FHIR's id syntax: anything else cannot be a stored id. */
const ID = /^[A-Za-z0-9\-.]{1,64}$/;

export const isFhirId = (text: string): boolean => ID.test(text);

export const rowNotFound = (type: string, id: string) => notFound(`${type}/${id} not found.`).at(type);

/** The row of that type and id if the caller may read it; 404 otherwise. */
export async function visibleRow(caller: Caller, type: string, id: string): Promise<ResourceRow> {
  const row = isFhirId(id) ? await auxiliaryStore().rows.get(id) : undefined;
  if (!row || row.type !== type || !(await canReadPatient(caller, row.patientId))) throw rowNotFound(type, id);
  return row;
}

export async function canReadPatient(caller: Caller, patientId: number): Promise<boolean> {
  if (isPatient(caller)) return caller.patientId === patientId;
  try {
    await assertCanReadPatient(caller, patientId);
    return true;
  } catch (error) {
    if (isHttpError(error) && error.status === 404) return false;
    throw error;
  }
}

/**
 * The row if the caller may change it: visible (else 404), written through its own source (a write
 * naming another source is a 400) by a caller allowed to use that source (else 403).
 */
export async function writableRow(caller: Caller, type: string, id: string, namedSource?: string): Promise<ResourceRow> {
  const row = await visibleRow(caller, type, id);
  assertNamedSourceIsRows(row, namedSource);
  await assertCanUseFhirSource(caller, row.sourceId);
  return row;
}

/** A row stays with its FHIR Source: a write naming another source is refused. */
export function assertNamedSourceIsRows(row: ResourceRow, namedSource: string | undefined): void {
  if (namedSource !== undefined && namedSource !== String(row.sourceId)) {
    throw badRequest(`${row.type}/${row.id} belongs to FHIR Source ${row.sourceId}; it cannot be written through FHIR Source ${namedSource}.`);
  }
}
