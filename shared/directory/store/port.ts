/**
 * The directory's store port: what the directory's families need kept, in their own terms. Two
 * adapters implement it, DynamoDB (`dynamo.ts`, the service's) and in memory (`memory.ts`, a twin
 * for fast tests); one contract suite (test/contract/directory-store.ts) runs against both, so they
 * cannot drift. Checks of the input (types, key text, sizes) and the making of a record (ids,
 * timestamps, defaults) stay in the domain functions (`../organizations.ts`, `../patients.ts`, ...),
 * once, in front of either adapter.
 *
 * A change that spans entities and must be all or nothing (a patient with its identifier claims,
 * organizations and login; an enrolment with its membership checks) is one call here, so each
 * adapter keeps it atomic. When several conditions of one call fail, the refusal is that of the
 * first in the order the call's documentation gives them (the order of the DynamoDB transaction).
 *
 * Updates are optimistic: `read` gives a record with its version, `update(read, next)` writes over
 * that version and answers 409 (`concurrentChange`) when another change landed in between. Links
 * kept on a record (a patient's organizations and studies, a practitioner's roles, a patient's
 * login) change without moving its version, and an update leaves them alone.
 *
 * The errors a store raises for a refused change are the same values from either adapter, built here.
 */
import { badRequest, conflict, notFound } from '../../http/errors';
import { MAX_TRANSACTION } from '../../store/transact';
import type { Code, CodeRef, Consent, DataSource, FhirSource, Id, Identifier, Membership, OAuthClient, Organization, OrgRole, Patient, Study, User } from '../model';

export { concurrentChange } from '../../store/transact';

/** A record as read for an update, with the version the update must still find. */
export interface Versioned<T> {
  entity: T;
  version: number;
}

export interface CodeRecords {
  /** A fresh code id. */
  newId(): Promise<Id>;
  /** Stores a new code; 409 when its (system, code) is already in the table. */
  insert(code: Code): Promise<void>;
  get(id: Id): Promise<Code | undefined>;
  /** Codes for ids, in the order given; unknown ids are skipped. */
  getMany(ids: readonly Id[]): Promise<Code[]>;
  findByCoding(system: string, code: string): Promise<Code | undefined>;
  /** Every code, in id order. */
  list(): Promise<Code[]>;
}

export interface DataSourceRecords {
  /** A fresh data source id. */
  newId(): Promise<Id>;
  insert(source: DataSource): Promise<void>;
  get(id: Id): Promise<DataSource | undefined>;
  /** Data sources for ids, in the order given; unknown ids are skipped. */
  getMany(ids: readonly Id[]): Promise<DataSource[]>;
  /** Every data source, in id order. */
  list(): Promise<DataSource[]>;
  /**
   * Replaces the data source by `change(current)`, unless another change landed in between (409);
   * 404 when there is none. Returns what was stored.
   */
  update(id: Id, change: (current: DataSource) => DataSource): Promise<DataSource>;
  /** Deletes the data source and the codes it supports; 404 when there is none. */
  remove(id: Id): Promise<void>;
  /** Declares a supported code (idempotent); 404 when the data source is missing. */
  addCode(id: Id, code: CodeRef): Promise<void>;
  /** 404 when the data source does not support the code. */
  removeCode(id: Id, codeId: Id): Promise<void>;
  /** The codes a data source supports, in code id order. */
  codes(id: Id): Promise<CodeRef[]>;
}

export interface OAuthClientRecords {
  /** A fresh client number. */
  newId(): Promise<Id>;
  /** Stores a new client; 409 when its `clientId` is taken. A client with `expiresAt` is removed some time after it (TTL); readers check it. */
  insert(client: OAuthClient): Promise<void>;
  /** By OAuth `client_id`, strongly consistent (a deleted key stops working at once). */
  get(clientId: string): Promise<OAuthClient | undefined>;
  /** By client number. */
  getById(id: Id): Promise<OAuthClient | undefined>;
  /** Every client, in number order. */
  list(): Promise<OAuthClient[]>;
  /** A practitioner's clients (API keys), in number order. */
  listOfOwner(userId: Id): Promise<OAuthClient[]>;
  /** As `DataSourceRecords.update`, by `client_id`. */
  update(clientId: string, change: (current: OAuthClient) => OAuthClient): Promise<OAuthClient>;
  /** Deletes the client; 404 when there is none. Returns what was deleted. */
  remove(clientId: string): Promise<OAuthClient>;
}

export interface OrganizationRecords {
  /** A fresh organization id. */
  newId(): Promise<Id>;
  /**
   * Stores a new organization. Refusals: a parent that does not exist (400 `parentNotFound`);
   * with `manager`, that user becomes its manager in the same write, unless not a practitioner
   * (400 `notAPractitioner`).
   */
  insert(org: Organization, manager?: Id): Promise<void>;
  get(id: Id): Promise<Organization | undefined>;
  /** Organizations for ids, in the order given; unknown ids are skipped. */
  getMany(ids: readonly Id[]): Promise<Organization[]>;
  /** Every organization, in id order. */
  list(): Promise<Organization[]>;
  /** Direct children of an organization (`undefined`: the top-level ones), in id order. */
  children(partOf: Id | undefined): Promise<Organization[]>;
  /** 404 when there is none. */
  read(id: Id): Promise<Versioned<Organization>>;
  /** Writes `next` over the version read (409); a parent it moves under must exist (400 `parentNotFound`). */
  update(read: Versioned<Organization>, next: Organization): Promise<void>;
  /**
   * Deletes an organization holding no sub-organizations, studies or patients (409
   * `organizationInUse` otherwise; 404 when there is none); its practitioners lose their role there.
   */
  remove(id: Id): Promise<void>;
  /** Ids of the organization's patients (direct members), ascending. */
  patientIds(orgId: Id): Promise<Id[]>;
  /** Of these patients, the ones who are members of the organization, in the order given (strongly consistent; a read by key each, for caller scoping). */
  membersAmong(orgId: Id, patientIds: readonly Id[]): Promise<Id[]>;
  /** Ids of the organization's studies, ascending. */
  studyIds(orgId: Id): Promise<Id[]>;
}

/** A practitioner's role in an organization, kept on both sides: the organization's list and the user's `roles`. */
export interface MembershipRecords {
  role(orgId: Id, userId: Id): Promise<OrgRole | undefined>;
  /** The organization's practitioners with their roles, in user id order. */
  list(orgId: Id): Promise<Membership[]>;
  /** Gives or changes a role on both sides at once. Refusals: 404 unknown organization, then 400 `notAPractitioner`. */
  set(orgId: Id, userId: Id, role: OrgRole): Promise<void>;
  /** Ends a membership on both sides; 404 `notAMember` when there is none. */
  remove(orgId: Id, userId: Id): Promise<void>;
}

/** What an account update writes: never the roles or revocations, which have writes of their own. */
export const ACCOUNT_FIELDS = ['email', 'passwordHash', 'superuser', 'nameFamily', 'nameGiven', 'active', 'tokensNotBefore', 'updatedAt'] as const satisfies readonly (keyof User)[];

export interface UserRecords {
  /** A fresh user id. */
  newId(): Promise<Id>;
  /**
   * Stores a new account with its email claim (409 `emailTaken`, whatever the case) and, for a
   * practitioner created with roles, those memberships (404 for an unknown organization), at once.
   */
  insert(user: User): Promise<void>;
  /** Strongly consistent (a deleted or deactivated account shows at once). */
  get(id: Id): Promise<User | undefined>;
  /** Accounts for ids, in the order given; unknown ids are skipped. */
  getMany(ids: readonly Id[]): Promise<User[]>;
  /** The account holding this email, compared trimmed and case-insensitively. */
  findByEmail(email: string): Promise<User | undefined>;
  /** Every practitioner's id, ascending. */
  practitionerIds(): Promise<Id[]>;
  /** 404 when there is none. */
  read(id: Id): Promise<Versioned<User>>;
  /**
   * Writes `ACCOUNT_FIELDS` of `next` over the version read (409), an absent one removed; a changed
   * email moves its claim in the same write (409 `emailTaken`).
   */
  update(read: Versioned<User>, next: User): Promise<void>;
  /** Replaces the user's revocations over the version read (409). */
  setRevocations(read: Versioned<User>, revocations: Readonly<Record<string, number>>): Promise<void>;
  /** Sets `tokensNotBefore` without a version (it only moves forward); 404 when there is none. */
  revokeTokens(id: Id, notBefore: number): Promise<void>;
  /**
   * Deletes the account and frees its email (404 when there is none); a patient's record loses its
   * login in the same write (404 `loginPatientNotFound` when the record is gone); a practitioner
   * then leaves every organization.
   */
  remove(id: Id): Promise<void>;
}

/** What a patient update writes: never the memberships or the login, which have writes of their own. */
export const PATIENT_FIELDS = ['nameFamily', 'nameGiven', 'birthDate', 'telecomPhone', 'telecomEmail', 'identifiers', 'updatedAt'] as const satisfies readonly (keyof Patient)[];

export interface PatientRecords {
  /** A fresh patient id. */
  newId(): Promise<Id>;
  /**
   * Stores a new patient, all or nothing, with its identifier claims (409 `identifierTaken`), its
   * organizations (404 for an unknown one) and, when given, its login account (409 `emailTaken`),
   * refused in that order.
   */
  insert(patient: Patient, account?: User): Promise<void>;
  get(id: Id): Promise<Patient | undefined>;
  /** Patients for ids, in the order given; unknown ids are skipped. */
  getMany(ids: readonly Id[]): Promise<Patient[]>;
  /** 404 when there is none. */
  read(id: Id): Promise<Versioned<Patient>>;
  /**
   * Writes `PATIENT_FIELDS` of `next` over the version read (409), an absent one removed, with the
   * identifier claims that follow (`identifierChanges`): a new identifier another patient holds is
   * a 409 `identifierTaken`, and nothing changes.
   */
  update(read: Versioned<Patient>, next: Patient): Promise<void>;
  /** Whether the store can hold this identifier's claim (system and value too long together cannot). */
  canClaim(identifier: Identifier): boolean;
  /** The patient holding this identifier (system and value both exact); none for one no claim can hold. */
  findByIdentifier(system: string, value: string): Promise<Id | undefined>;
  /** The distinct patients holding an identifier with this value in any system, ascending. */
  withIdentifierValue(value: string): Promise<Id[]>;
  /** Puts the patient in an organization. Refusals, in order: 409 `alreadyInOrganization`, 404 organization, 404 patient. */
  join(patientId: Id, orgId: Id): Promise<void>;
  /** Takes the patient out of an organization (the caller ends its studies there first); 409 when the patient is gone. */
  leave(patientId: Id, orgId: Id): Promise<void>;
  /** Stores a login account for the patient and links it, at once: 409 `emailTaken`, then 409 `patientHasAccount` (or 404 patient). */
  addAccount(patientId: Id, account: User): Promise<void>;
  /**
   * Deletes the patient and their login account at once (404 when there is none), then frees their
   * identifiers and clears their memberships, enrolments and consents.
   */
  remove(id: Id): Promise<void>;
}

export interface StudyRecords {
  /** A fresh study id. */
  newId(): Promise<Id>;
  /** Stores a new study in its organization (404 when it does not exist). */
  insert(study: Study): Promise<void>;
  get(id: Id): Promise<Study | undefined>;
  /** Studies for ids, in the order given; unknown ids are skipped. */
  getMany(ids: readonly Id[]): Promise<Study[]>;
  /** 404 when there is none. */
  read(id: Id): Promise<Versioned<Study>>;
  /** Writes `next` over the version read (409); moved to another organization, that one must exist (404). */
  update(read: Versioned<Study>, next: Study): Promise<void>;
  /**
   * Deletes the study (404 when there is none), then its enrolments with the consents given for it,
   * its requested codes, data sources and apps.
   */
  remove(id: Id): Promise<void>;
  /**
   * Enrols patients (idempotent per patient), all or nothing. Refusals: 404 study, then per
   * patient in the order given 400 `enrolledPatientNotFound`, 400 `notInStudyOrganization`.
   * At most `MAX_ENROLMENTS` patients a call.
   */
  enrol(study: Study, patientIds: readonly Id[]): Promise<void>;
  isEnrolled(studyId: Id, patientId: Id): Promise<boolean>;
  /** Ends an enrolment, deleting the consents given for the study first; 409 when the patient is gone. */
  unenrol(studyId: Id, patientId: Id): Promise<void>;
  /** Ids of the enrolled patients, ascending. */
  patientIds(studyId: Id): Promise<Id[]>;
  /** Adds a requested code (idempotent); 404 study. */
  addCode(studyId: Id, code: CodeRef): Promise<void>;
  /** Removes a requested code (404 `codeNotRequested`), then the consents given for it in this study. */
  removeCode(studyId: Id, codeId: Id): Promise<void>;
  /** The requested codes, in code id order. */
  codes(studyId: Id): Promise<CodeRef[]>;
  /** Links a data source (idempotent). Refusals: 404 study, then 400 for an unknown data source. */
  addDataSource(studyId: Id, dataSourceId: Id): Promise<void>;
  /** 404 when not linked. */
  removeDataSource(studyId: Id, dataSourceId: Id): Promise<void>;
  /** Ids of the linked data sources, ascending. */
  dataSourceIds(studyId: Id): Promise<Id[]>;
  /** Ids of the studies that use a data source, ascending; read from an index, so a link just made may show a moment later. */
  usingDataSource(dataSourceId: Id): Promise<Id[]>;
  /** Takes a (deleted) data source out of every study. */
  unlinkDataSource(dataSourceId: Id): Promise<void>;
  /** Links an app (OAuth client, by number; idempotent). Refusals: 404 study, then 400 for an unknown client. */
  addClient(studyId: Id, clientNumber: Id): Promise<void>;
  /** 404 when not linked. */
  removeClient(studyId: Id, clientNumber: Id): Promise<void>;
  /** Numbers of the linked apps, ascending. */
  clientIds(studyId: Id): Promise<Id[]>;
  /** Takes a (deleted) client out of every study. */
  unlinkClient(clientNumber: Id): Promise<void>;
}

/** Patients one `StudyRecords.enrol` call takes: one DynamoDB transaction holds 3 actions each, plus the study's check. */
export const MAX_ENROLMENTS = Math.floor((MAX_TRANSACTION - 1) / 3);

/**
 * What one all-or-nothing call holds (one DynamoDB transaction; the twin takes what the table
 * would): the domain asks before it calls, and refuses a request that does not fit.
 */
export const fitsOneWrite = {
  /** `ConsentRecords.record`: each decision with its code's check, each study's enrolment check once. */
  consents: (decisions: number, studies: number): boolean => 2 * decisions + studies <= MAX_TRANSACTION,
  /** `PatientRecords.insert`: the patient, a claim per identifier, two actions per organization and two for a login. */
  newPatient: (identifiers: number, organizations: number, login: boolean): boolean => 1 + identifiers + 2 * organizations + (login ? 2 : 0) <= MAX_TRANSACTION,
  /** `PatientRecords.update`: the patient and a claim per identifier taken or freed. */
  identifierChange: (claimsChanged: number): boolean => 1 + claimsChanged <= MAX_TRANSACTION,
};

export interface ConsentRecords {
  /**
   * Stores the patient's decisions (each replaces an earlier one for its study and code), all or
   * nothing. Refusals, per decision in order: 400 `consentCodeNotRequested`, then (on the first
   * decision of each study) 400 `notEnrolled`.
   */
  record(patientId: Id, consents: readonly Consent[]): Promise<void>;
  /** Every decision of the patient, by study then code. */
  list(patientId: Id): Promise<Consent[]>;
  /** Deletes the patient's decisions for one study, or all. */
  remove(patientId: Id, studyId?: Id): Promise<void>;
  /** Deletes these decisions (absent ones are skipped). */
  removeDecisions(patientId: Id, decisions: ReadonlyArray<{ studyId: Id; codeId: Id }>): Promise<void>;
}

export interface FhirSourceRecords {
  /** A fresh FHIR Source id. */
  newId(): Promise<Id>;
  /** Stores a new source. Refusals: 400 for an unknown data source, then 404 for an unknown patient. */
  insert(source: FhirSource): Promise<void>;
  /** Strongly consistent (it gates writes). */
  get(id: Id): Promise<FhirSource | undefined>;
  /** A patient's sources, newest first. */
  ofPatient(patientId: Id): Promise<FhirSource[]>;
  /** 404 when there is none. */
  read(id: Id): Promise<Versioned<FhirSource>>;
  /** Writes `next` over the version read (409); with `checkDataSource`, its data source must exist (400). */
  update(read: Versioned<FhirSource>, next: FhirSource, checkDataSource: boolean): Promise<void>;
  /** 404 when there is none. */
  remove(id: Id): Promise<void>;
}

export interface DirectoryStore {
  codes: CodeRecords;
  dataSources: DataSourceRecords;
  oauthClients: OAuthClientRecords;
  organizations: OrganizationRecords;
  memberships: MembershipRecords;
  users: UserRecords;
  patients: PatientRecords;
  studies: StudyRecords;
  consents: ConsentRecords;
  fhirSources: FhirSourceRecords;
}

/** Emails are unique compared this way. */
export const emailClaim = (email: string): string => email.trim().toLowerCase();

/** The claims an identifier change takes and frees (identifiers compared on system and value, exactly). */
export function identifierChanges(before: readonly Identifier[], after: readonly Identifier[]): { claimed: Identifier[]; released: Identifier[] } {
  const keyOf = (i: Identifier) => JSON.stringify([i.system, i.value]);
  const had = new Set(before.map(keyOf));
  const kept = new Set(after.map(keyOf));
  return { claimed: after.filter((i) => !had.has(keyOf(i))), released: before.filter((i) => !kept.has(keyOf(i))) };
}

export const codingTaken = (code: Pick<Code, 'system' | 'code'>) =>
  conflict(`The code ${code.system}|${code.code} already exists.`, { fields: { code: ['This code already exists.'] } });
export const dataSourceNotFound = (id: Id) => notFound(`Data source ${id} not found.`);
export const codeNotSupported = (id: Id, codeId: Id) => notFound(`Data source ${id} does not support code ${codeId}.`);
export const clientIdTaken = (clientId: string) => conflict(`Client id '${clientId}' is already taken.`, { fields: { clientId: ['This client id is already taken.'] } });
export const clientNotFound = (id: Id | string) => notFound(`Client ${id} not found.`);

/** A reference to an entity that does not exist, as a 400 on the field that names it. */
const unknownReference = (what: string, id: Id, field: string) =>
  badRequest(`${what} ${id} not found.`, 'not-found', { fields: { [field]: [`Invalid pk "${id}" - object does not exist.`] } });

export const organizationNotFound = (id: Id) => notFound(`Organization ${id} not found.`);
export const parentNotFound = (parent: Id) => unknownReference('Parent organization', parent, 'partOf');
export const organizationInUse = () => conflict('The organization still has sub-organizations, studies or patients; remove them first.');
export const notAPractitioner = (userId: Id) => badRequest(`User ${userId} is not a practitioner.`, 'not-found', { fields: { userId: ['Not a practitioner.'] } });
export const notAMember = (orgId: Id, userId: Id) => notFound(`User ${userId} is not a member of organization ${orgId}.`);

export const userNotFound = (id: Id) => notFound(`User ${id} not found.`);
export const emailTaken = () => conflict('A user with this email already exists.', { fields: { email: ['A user with this email already exists.'] } });
/** A patient account whose patient record is gone. */
export const loginPatientNotFound = () => notFound('Patient not found.');

export const patientNotFound = (id: Id) => notFound(`Patient ${id} not found.`);
export const identifierTaken = (identifier: Identifier) =>
  conflict(`Identifier ${identifier.system}|${identifier.value} is already assigned to another patient.`, {
    fields: { identifiers: ['Identifier is already assigned to another patient.'] },
  });
export const alreadyInOrganization = (patientId: Id, orgId: Id) => conflict(`Patient ${patientId} is already a member of organization ${orgId}.`);
export const patientHasAccount = (patientId: Id) => conflict(`Patient ${patientId} already has a login account.`);

export const studyNotFound = (id: Id) => notFound(`Study ${id} not found.`);
export const enrolledPatientNotFound = (patientId: Id) => unknownReference('Patient', patientId, 'patientIds');
export const notInStudyOrganization = (patientId: Id) =>
  badRequest(`Patient ${patientId} is not a member of the study's organization.`, 'business-rule', {
    fields: { patientIds: [`Patient ${patientId} is not a member of the study's organization.`] },
  });
export const codeNotRequested = (studyId: Id, codeId: Id) => notFound(`Study ${studyId} does not request code ${codeId}.`);
export const studyDataSourceNotFound = (dataSourceId: Id) => unknownReference('Data source', dataSourceId, 'dataSourceId');
export const dataSourceNotLinked = (studyId: Id, dataSourceId: Id) => notFound(`Data source ${dataSourceId} is not used by study ${studyId}.`);
export const studyClientNotFound = (clientNumber: Id) => unknownReference('Client', clientNumber, 'clientId');
export const clientNotLinked = (studyId: Id, clientNumber: Id) => notFound(`Client ${clientNumber} is not used by study ${studyId}.`);

export const consentCodeNotRequested = (studyId: Id, code: CodeRef) => badRequest(`Study ${studyId} does not request code ${code.system}|${code.code}.`, 'business-rule');
export const notEnrolled = (patientId: Id, studyId: Id) => badRequest(`Patient ${patientId} is not enrolled in study ${studyId}.`, 'business-rule');

export const fhirSourceNotFound = (id: Id) => notFound(`FHIR Source ${id} not found.`);
export const fhirSourceDataSourceNotFound = (dataSourceId: Id) => unknownReference('Data source', dataSourceId, 'dataSource');
