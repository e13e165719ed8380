/**
 * Patients through `/api/v1/`: lists and reads within the caller's scope, and the writes members of
 * a patient's organizations may make. Deleting a patient from their last organization erases the
 * patient: their FHIR Sources, observations and auxiliary rows, record, identifiers and login.
 */
import type { Caller, PatientCaller, PractitionerCaller } from '../auth/caller';
import { assertCanReadPatient, patientScope, requireRole, type ScopeFilter } from '../auth/scope';
import { deleteFhirSource, listFhirSourcesOfPatient } from '../directory/fhir-sources';
import type { Id, Identifier, Organization, Page, Paging, Patient } from '../directory/model';
import { getOrganizations } from '../directory/organizations';
import { pageOfIds } from '../directory/paging';
import {
  addPatientToOrganization,
  createPatient,
  deletePatient,
  getPatients,
  removePatientFromOrganization,
  updatePatient,
  type PatientPatch,
} from '../directory/patients';
import { badRequest, forbidden } from '../http/errors';
import { purgeFhirSourceData, purgePatientData } from './purge';
import { assertCanManagePatient, organizationReach } from './access';
import { asTelecomEmail, ignoreNotFound } from './errors';
import { patientView, type PatientView } from './views';

export interface PatientListFilter {
  organizationId?: Id;
  studyId?: Id;
  patientId?: Id;
  /** An identifier value, in any system. */
  identifierValue?: string;
}

export interface NewPatient {
  organizationId: Id;
  telecomEmail: string;
  nameFamily?: string;
  nameGiven?: string;
  birthDate?: string;
  telecomPhone?: string;
  identifiers?: Identifier[];
}

/** The organizations the caller may see among these, by id. */
export async function visibleOrganizations(caller: Caller, ids: Iterable<Id>): Promise<Map<Id, Organization>> {
  const reach = await organizationReach(caller);
  const wanted = [...new Set(ids)].filter((id) => reach.has(id));
  return new Map((await getOrganizations(wanted)).map((o) => [o.id, o]));
}

/** Patients as the caller may see them (organizations outside their reach left out). */
export async function patientViews(caller: Caller, patients: readonly Patient[]): Promise<PatientView[]> {
  const orgs = await visibleOrganizations(caller, patients.flatMap((p) => p.organizationIds));
  return patients.map((p) => patientView(p, orgs));
}

export async function patientViewFor(caller: Caller, patient: Patient): Promise<PatientView> {
  return (await patientViews(caller, [patient]))[0]!;
}

export async function listPatients(caller: Caller, filter: PatientListFilter, paging: Paging): Promise<Page<PatientView>> {
  const scope: ScopeFilter = {
    ...(filter.organizationId !== undefined ? { organization: filter.organizationId } : {}),
    ...(filter.studyId !== undefined ? { study: filter.studyId } : {}),
    ...(filter.patientId !== undefined ? { patient: filter.patientId } : {}),
    ...(filter.identifierValue !== undefined ? { identifier: { value: filter.identifierValue } } : {}),
  };
  const { patientIds } = await patientScope(caller, scope);
  const page = await pageOfIds(patientIds, paging, getPatients);
  return { count: page.count, items: await patientViews(caller, page.items) };
}

/** Creates a patient in an organization (member role there), with a login account for the email. */
export async function createPatientIn(caller: PractitionerCaller, input: NewPatient): Promise<PatientView> {
  requireRole(caller, input.organizationId, 'member');
  const { organizationId, ...fields } = input;
  const patient = await createPatient({ ...fields, organizationIds: [organizationId], account: { email: input.telecomEmail } }).catch(asTelecomEmail);
  return patientViewFor(caller, patient);
}

export async function readPatient(caller: Caller, patientId: Id): Promise<PatientView> {
  return patientViewFor(caller, await assertCanReadPatient(caller, patientId));
}

/** The caller's own patient record. */
export async function ownPatient(caller: PatientCaller): Promise<PatientView> {
  return readPatient(caller, caller.patientId);
}

/** What a caller who is not a patient gets from `patients/me` (the route's refusal). */
export const notAPatient = () => forbidden('Authenticated user is not a patient.');

export async function updatePatientBy(caller: PractitionerCaller, patientId: Id, patch: PatientPatch, organizationId?: Id): Promise<PatientView> {
  await assertCanManagePatient(caller, patientId, organizationId);
  return patientViewFor(caller, await updatePatient(patientId, patch));
}

/**
 * Adds a patient the caller can see to another organization the caller is a member of (with the
 * member role); 400 when the patient is already there.
 */
export async function addPatientToOrganizationBy(caller: PractitionerCaller, patientId: Id, organizationId: Id): Promise<PatientView> {
  const patient = await assertCanReadPatient(caller, patientId);
  requireRole(caller, organizationId, 'member');
  if (patient.organizationIds.includes(organizationId)) {
    throw badRequest(`Patient ${patientId} is already a member of organization ${organizationId}.`, 'duplicate', {
      fields: { organizationId: ['The patient is already a member of this organization.'] },
    });
  }
  await addPatientToOrganization(patientId, organizationId);
  return readPatient(caller, patientId);
}

/**
 * Removes the patient from the organization (member role there); when it was their last one, the
 * patient is erased with all their data.
 */
export async function removePatientFrom(caller: PractitionerCaller, patientId: Id, organizationId: Id): Promise<{ erased: boolean }> {
  const patient = await assertCanManagePatient(caller, patientId, organizationId);
  if (patient.organizationIds.length > 1) {
    await removePatientFromOrganization(patientId, organizationId);
    return { erased: false };
  }
  await erasePatient(patientId);
  return { erased: true };
}

/** Deletes every FHIR Source of the patient with its data (sources already gone are skipped). */
async function purgeFhirSources(patientId: Id): Promise<void> {
  for (const source of await listFhirSourcesOfPatient(patientId)) {
    await purgeFhirSourceData(source);
    await deleteFhirSource(source.id).catch(ignoreNotFound);
  }
}

/**
 * Erases a patient. Data goes first, while the record still exists, so a failure leaves something a
 * retry can find; then the record, identifiers, memberships and login; then the data once more,
 * for uploads that raced with the first pass (none can follow: writes need the record).
 */
export async function erasePatient(patientId: Id): Promise<void> {
  await purgeFhirSources(patientId);
  await purgePatientData(patientId);
  await deletePatient(patientId).catch(ignoreNotFound);
  await purgeFhirSources(patientId);
  await purgePatientData(patientId);
}

