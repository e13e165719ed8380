/**
 * The twin's tables, shared by its record families as the one directory table is shared: a single
 * call (a patient with its login, an enrolment) may touch several. Links kept on both sides in the
 * table (a patient's organizations, a practitioner's roles) are kept once here, on the record, and
 * each side's list is read from it.
 */
import { copy, nestedEntries, type Holdings } from '../../store/memory';
import type { CodeRef, Consent, FhirSource, Id, Identifier, Organization, Patient, Study, User } from '../model';
import { links, versionedTable, type VersionedTable } from './memory-records';
import { fhirSourceNotFound, organizationNotFound, patientNotFound, studyNotFound, userNotFound, type DirectoryStore } from './port';

export interface MemoryTables {
  organizations: VersionedTable<Organization>;
  users: VersionedTable<User>;
  /** Email claims (`emailClaim` of the address) -> user id. */
  emails: Map<string, Id>;
  patients: VersionedTable<Patient>;
  /** Identifier claims (`identifierClaim`) -> the identifier and the patient holding it. */
  identifiers: Map<string, { patientId: Id; identifier: Identifier }>;
  studies: VersionedTable<Study>;
  studyCodes: ReturnType<typeof links<CodeRef>>;
  studyDataSources: ReturnType<typeof links<true>>;
  studyClients: ReturnType<typeof links<true>>;
  /** Per patient, decisions by `consentKey`. */
  consents: Map<Id, Map<string, Consent>>;
  fhirSources: VersionedTable<FhirSource>;
  /** The data sources and OAuth clients, kept by their own twins: a link to one checks it exists. */
  catalog: Pick<DirectoryStore, 'dataSources' | 'oauthClients'>;
}

export const identifierClaim = (identifier: Identifier): string => JSON.stringify([identifier.system, identifier.value]);

export const consentKey = (studyId: Id, codeId: Id): string => `${studyId}/${codeId}`;

/** A user as the table hands it out: roles in organization id order, as a map of them reads back. */
const copyUser = (user: User): User => ({ ...copy({ ...user, roles: undefined }), roles: new Map([...user.roles].sort(([a], [b]) => a - b)) });

export function memoryTables(catalog: MemoryTables['catalog']): MemoryTables {
  return {
    organizations: versionedTable<Organization>(organizationNotFound),
    users: versionedTable<User>(userNotFound, copyUser),
    emails: new Map(),
    patients: versionedTable<Patient>(patientNotFound),
    identifiers: new Map(),
    studies: versionedTable<Study>(studyNotFound),
    studyCodes: links<CodeRef>(),
    studyDataSources: links<true>(),
    studyClients: links<true>(),
    consents: new Map(),
    fhirSources: versionedTable<FhirSource>(fhirSourceNotFound),
    catalog,
  };
}

/** What the tables hold, for a test's look (`holding`). */
export const heldTables = (t: MemoryTables): Holdings => ({
  organizations: t.organizations.held,
  users: t.users.held,
  emails: () => t.emails,
  patients: t.patients.held,
  identifiers: () => t.identifiers,
  studies: t.studies.held,
  studyCodes: t.studyCodes.held,
  studyDataSources: t.studyDataSources.held,
  studyClients: t.studyClients.held,
  consents: () => nestedEntries(t.consents),
  fhirSources: t.fhirSources.held,
});
