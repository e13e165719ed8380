/**
 * Patients: demographics, identifiers (unique per system and value across all patients),
 * organization memberships and enrolments (kept on the patient and in each organization's and
 * study's lists, at once) and an optional login account.
 */
import { badRequest, fieldErrors, notFound } from '../http/errors';
import { assertKeyText, now } from './fields';
import type { Id, Identifier, Patient, User } from './model';
import { directoryStore } from './store/current';
import { fitsOneWrite, identifierChanges, patientHasAccount } from './store/port';
import { patientOnce, patientsOnce } from './read-once';
import { newUser } from './users';

export { identifierTaken, patientNotFound } from './store/port';

export interface PatientInput {
  nameFamily?: string;
  nameGiven?: string;
  birthDate?: string;
  telecomPhone?: string;
  telecomEmail?: string;
  identifiers?: readonly Identifier[];
  organizationIds?: readonly Id[];
  /** Create a login account for the patient (kind `patient`), with this email (default: `telecomEmail`). */
  account?: { email?: string; passwordHash?: string };
}

/** Fields to change; `null` clears an optional field; `identifiers` replaces them all. */
export interface PatientPatch {
  nameFamily?: string;
  nameGiven?: string;
  birthDate?: string | null;
  telecomPhone?: string | null;
  telecomEmail?: string | null;
  identifiers?: readonly Identifier[];
}

const BIRTH_DATE = /^\d{4}-(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])$/;

function assertBirthDate(value: string | undefined | null): void {
  if (value === undefined || value === null) return;
  const parsed = new Date(`${value}T00:00:00Z`);
  if (!BIRTH_DATE.test(value) || Number.isNaN(parsed.getTime()) || parsed.toISOString().slice(0, 10) !== value) {
    throw badRequest('Date has wrong format. Use YYYY-MM-DD.', 'invalid', { fields: { birthDate: ['Date has wrong format. Use one of these formats instead: YYYY-MM-DD.'] } });
  }
}

/** One identifier as one text (system and value), to tell identifiers apart. */
const identifierText = (i: Identifier): string => `${i.system}\u0000${i.value}`;

function normalizeIdentifiers(identifiers: readonly Identifier[] | undefined): Identifier[] {
  const seen = new Map<string, Identifier>();
  for (const raw of identifiers ?? []) {
    const identifier = { system: raw.system.trim(), value: raw.value.trim() };
    assertKeyText('identifiers.system', identifier.system);
    assertKeyText('identifiers.value', identifier.value);
    if (!directoryStore().patients.canClaim(identifier)) throw fieldErrors({ identifiers: ['An identifier\'s system and value are too long together to be stored; shorten either.'] });
    seen.set(identifierText(identifier), identifier);
  }
  return [...seen.values()];
}

export async function createPatient(input: PatientInput): Promise<Patient> {
  assertBirthDate(input.birthDate);
  const identifiers = normalizeIdentifiers(input.identifiers);
  const organizationIds = [...new Set(input.organizationIds ?? [])].sort((a, b) => a - b);
  const { patients } = directoryStore();
  const id = await patients.newId();
  const at = now();
  let account: User | undefined;
  if (input.account) {
    const email = input.account.email ?? input.telecomEmail;
    if (!email) throw badRequest('Email is required to create a patient with a login.', 'required', { fields: { telecomEmail: ['This field is required.'] } });
    account = await newUser({
      email,
      kind: 'patient',
      patientId: id,
      nameFamily: input.nameFamily ?? '',
      nameGiven: input.nameGiven ?? '',
      ...(input.account.passwordHash ? { passwordHash: input.account.passwordHash } : {}),
    });
  }
  const patient: Patient = {
    id,
    ...(account ? { userId: account.id } : {}),
    nameFamily: input.nameFamily ?? '',
    nameGiven: input.nameGiven ?? '',
    ...(input.birthDate ? { birthDate: input.birthDate } : {}),
    ...(input.telecomPhone ? { telecomPhone: input.telecomPhone } : {}),
    ...(input.telecomEmail ? { telecomEmail: input.telecomEmail } : {}),
    identifiers,
    organizationIds,
    studyIds: [],
    createdAt: at,
    updatedAt: at,
  };
  if (!fitsOneWrite.newPatient(identifiers.length, organizationIds.length, account !== undefined)) {
    throw badRequest('Too many identifiers or organizations for one patient.', 'too-costly');
  }
  await patients.insert(patient, account);
  return patient;
}

/** The patient; read once within `readingPatientsOnce` (./read-once.ts). */
export const getPatient = (id: Id): Promise<Patient | undefined> => patientOnce(id, (one) => directoryStore().patients.get(one));

/** Patients for ids, in the order given; unknown ids are skipped. Each read once within `readingPatientsOnce`. */
export const getPatients = (ids: readonly Id[]): Promise<Patient[]> => patientsOnce(ids, (many) => directoryStore().patients.getMany(many));

/** Updates demographics and (when given) replaces the identifiers, claims included, atomically. */
export async function updatePatient(id: Id, patch: PatientPatch): Promise<Patient> {
  assertBirthDate(patch.birthDate);
  const { patients } = directoryStore();
  const read = await patients.read(id);
  const current = read.entity;
  const optional = (field: 'birthDate' | 'telecomPhone' | 'telecomEmail') => {
    const value = patch[field] === undefined ? current[field] : patch[field];
    return value ? { [field]: value } : {};
  };
  const { birthDate: _b, telecomPhone: _p, telecomEmail: _e, ...base } = current;
  const identifiers = patch.identifiers === undefined ? current.identifiers : normalizeIdentifiers(patch.identifiers);
  const next: Patient = {
    ...base,
    ...(patch.nameFamily !== undefined ? { nameFamily: patch.nameFamily } : {}),
    ...(patch.nameGiven !== undefined ? { nameGiven: patch.nameGiven } : {}),
    ...optional('birthDate'),
    ...optional('telecomPhone'),
    ...optional('telecomEmail'),
    identifiers,
    updatedAt: now(),
  };
  const { claimed, released } = identifierChanges(current.identifiers, identifiers);
  if (!fitsOneWrite.identifierChange(claimed.length + released.length)) throw badRequest('Too many identifiers for one patient.', 'too-costly');
  await patients.update(read, next);
  return next;
}

/**
 * Adds one identifier (the portal's identifier call): idempotent for the patient's own
 * identifier, 409 when another patient holds it, other identifiers untouched.
 */
export async function addPatientIdentifier(id: Id, identifier: Identifier): Promise<Patient> {
  const [normalized] = normalizeIdentifiers([identifier]);
  const { entity: patient } = await directoryStore().patients.read(id);
  if (patient.identifiers.some((i) => identifierText(i) === identifierText(normalized!))) return patient;
  return updatePatient(id, { identifiers: [...patient.identifiers, normalized!] });
}

/** The patient holding this identifier, if any (system and value both exact). */
export async function findPatientByIdentifier(system: string, value: string): Promise<Id | undefined> {
  if (!system || !value) return undefined;
  return directoryStore().patients.findByIdentifier(system, value);
}

/** Patients holding an identifier with this value in any system (index read: eventually consistent). */
export async function findPatientsByIdentifierValue(value: string): Promise<Id[]> {
  if (!value) return [];
  return directoryStore().patients.withIdentifierValue(value);
}

/** Puts a patient in an organization; 409 when they are already a member. */
export const addPatientToOrganization = (patientId: Id, orgId: Id): Promise<void> => directoryStore().patients.join(patientId, orgId);

/**
 * Takes a patient out of an organization, and so out of that organization's studies (with their
 * consents for those studies); 404 when they were not a member.
 */
export async function removePatientFromOrganization(patientId: Id, orgId: Id): Promise<void> {
  const { patients, studies } = directoryStore();
  const { entity: patient } = await patients.read(patientId);
  if (!patient.organizationIds.includes(orgId)) throw notFound(`Patient ${patientId} is not a member of organization ${orgId}.`);
  const studiesHere = (await studies.getMany(patient.studyIds)).filter((s) => s.organizationId === orgId);
  // Study enrolments first: the patient stays visible to the organization until the last step.
  for (const study of studiesHere) await leaveStudy(patientId, study.id);
  await patients.leave(patientId, orgId);
}

/** Ends a study enrolment and deletes the patient's consents for that study. */
export const leaveStudy = (patientId: Id, studyId: Id): Promise<void> => directoryStore().studies.unenrol(studyId, patientId);

/** Ids of an organization's patients, ascending (strongly consistent). */
export const listPatientIdsOfOrganization = (orgId: Id): Promise<Id[]> => directoryStore().organizations.patientIds(orgId);

/** Gives an existing patient a login account (kind `patient`); 409 when they have one already. */
export async function createPatientAccount(patientId: Id, account: { email: string; passwordHash?: string }): Promise<User> {
  const { patients } = directoryStore();
  const { entity: patient } = await patients.read(patientId);
  if (patient.userId !== undefined) throw patientHasAccount(patientId);
  const user = await newUser({
    email: account.email,
    kind: 'patient',
    patientId,
    nameFamily: patient.nameFamily,
    nameGiven: patient.nameGiven,
    ...(account.passwordHash ? { passwordHash: account.passwordHash } : {}),
  });
  await patients.addAccount(patientId, user);
  return user;
}

/**
 * Deletes a patient record with its identifiers, memberships, enrolments, consents and login
 * account. The record and account go first, at once, so the patient and their tokens disappear
 * together; the rest is cleared after. (Observations, auxiliary rows and FHIR Sources are owned by
 * their stores and deleted by their own modules.)
 */
export const deletePatient = (id: Id): Promise<void> => directoryStore().patients.remove(id);
