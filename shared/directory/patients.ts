/**
 * Patients: demographics, identifiers (unique per system and value across all patients, through
 * claim items), organization memberships and an optional login account.
 *
 * A patient's organizations and studies are kept on the patient item (number sets) and as relation
 * items in each organization's / study's partition, written in one transaction: one GetItem tells
 * who may see a patient, one Query lists an organization's patients, both strongly consistent.
 */
import { badRequest, conflict, fieldErrors, notFound } from '../http/errors';
import { fitsPartitionKey } from '../store/key-limits';
import {
  assertKeyText,
  batchGet,
  getItem,
  idList,
  MAX_TRANSACTION,
  now,
  put,
  putNew,
  queryAll,
  remove,
  transact,
  transactInChunks,
  update,
  withoutKeys,
  type Item,
  type Write,
} from './db';
import { entityStore, pick } from './entity';
import { newId } from './ids';
import { idFromSortKey, indexes, keys, REL } from './keys';
import { organizationMustExist } from './memberships';
import type { Id, Identifier, Patient, User } from './model';
import { newUserWrites } from './users';

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

export const patientNotFound = (id: Id) => notFound(`Patient ${id} not found.`);

export const identifierTaken = (identifier: Identifier) =>
  conflict(`Identifier ${identifier.system}|${identifier.value} is already assigned to another patient.`, {
    fields: { identifiers: ['Identifier is already assigned to another patient.'] },
  });

const BIRTH_DATE = /^\d{4}-(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])$/;

function assertBirthDate(value: string | undefined | null): void {
  if (value === undefined || value === null) return;
  const parsed = new Date(`${value}T00:00:00Z`);
  if (!BIRTH_DATE.test(value) || Number.isNaN(parsed.getTime()) || parsed.toISOString().slice(0, 10) !== value) {
    throw badRequest('Date has wrong format. Use YYYY-MM-DD.', 'invalid', { fields: { birthDate: ['Date has wrong format. Use one of these formats instead: YYYY-MM-DD.'] } });
  }
}

function normalizeIdentifiers(identifiers: readonly Identifier[] | undefined): Identifier[] {
  const seen = new Map<string, Identifier>();
  for (const raw of identifiers ?? []) {
    const identifier = { system: raw.system.trim(), value: raw.value.trim() };
    assertKeyText('identifiers.system', identifier.system);
    assertKeyText('identifiers.value', identifier.value);
    const claim = keys.patientIdentifier(identifier.system, identifier.value).pk;
    if (!fitsPartitionKey(claim)) throw fieldErrors({ identifiers: ['An identifier\'s system and value are too long together to be stored; shorten either.'] });
    seen.set(claim, identifier);
  }
  return [...seen.values()];
}

function toPatient(item: Item): Patient {
  const rest = withoutKeys(item) as Record<string, unknown>;
  return {
    ...(rest as unknown as Patient),
    identifiers: (rest.identifiers as Identifier[] | undefined) ?? [],
    organizationIds: idList(rest.organizationIds),
    studyIds: idList(rest.studyIds),
  };
}

/** The patient item, with the membership sets (number sets; DynamoDB has no empty set). */
function toItem(patient: Patient): Item {
  const { organizationIds, studyIds, ...rest } = patient;
  return {
    ...keys.patient(patient.id),
    ...rest,
    ...(organizationIds.length > 0 ? { organizationIds: new Set(organizationIds) } : {}),
    ...(studyIds.length > 0 ? { studyIds: new Set(studyIds) } : {}),
  };
}

/** Membership sets change through their own updates; entity updates use `setFields`, never `replace`. */
const patients = entityStore<Patient, Id>({ key: keys.patient, toEntity: toPatient, toItem, notFound: patientNotFound });

function identifierClaim(patientId: Id, identifier: Identifier): Write {
  return put(
    { ...keys.patientIdentifier(identifier.system, identifier.value), ...indexes.patientIdentifier(identifier.system, identifier.value), patientId, ...identifier },
    { condition: 'attribute_not_exists(pk) OR patientId = :me', values: { ':me': patientId } },
    () => identifierTaken(identifier),
  );
}

function identifierRelease(patientId: Id, identifier: Identifier): Write {
  return remove(keys.patientIdentifier(identifier.system, identifier.value), { condition: 'attribute_not_exists(pk) OR patientId = :me', values: { ':me': patientId } });
}

/** The writes that put a patient in an organization (the organization must exist). */
function joinWrites(patientId: Id, orgId: Id): Write[] {
  return [put({ ...keys.organizationPatient(orgId, patientId) }), organizationMustExist(orgId)];
}

export async function createPatient(input: PatientInput): Promise<Patient> {
  assertBirthDate(input.birthDate);
  const identifiers = normalizeIdentifiers(input.identifiers);
  const organizationIds = [...new Set(input.organizationIds ?? [])].sort((a, b) => a - b);
  const id = await newId('patient');
  const at = now();
  let account: { user: User; writes: Write[] } | undefined;
  if (input.account) {
    const email = input.account.email ?? input.telecomEmail;
    if (!email) throw badRequest('Email is required to create a patient with a login.', 'required', { fields: { telecomEmail: ['This field is required.'] } });
    account = await newUserWrites({
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
    ...(account ? { userId: account.user.id } : {}),
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
  const writes = [
    patients.create(patient, () => conflict('Patient id collision.')),
    ...identifiers.map((i) => identifierClaim(id, i)),
    ...organizationIds.flatMap((orgId) => joinWrites(id, orgId)),
    ...(account?.writes ?? []),
  ];
  if (writes.length > MAX_TRANSACTION) throw badRequest('Too many identifiers or organizations for one patient.', 'too-costly');
  await transact(writes);
  return patient;
}

export const getPatient = patients.get;

/** Patients for ids, in the order given; unknown ids are skipped. */
export const getPatients = patients.getMany;

/** Updates demographics and (when given) replaces the identifiers, claims included, atomically. */
export async function updatePatient(id: Id, patch: PatientPatch): Promise<Patient> {
  assertBirthDate(patch.birthDate);
  const { entity: current, version } = await patients.read(id);
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
  const claimKey = (i: Identifier) => keys.patientIdentifier(i.system, i.value).pk;
  const kept = new Set(identifiers.map(claimKey));
  const had = new Set(current.identifiers.map(claimKey));
  const writes = [
    patients.setFields(id, pick(next, ['nameFamily', 'nameGiven', 'birthDate', 'telecomPhone', 'telecomEmail', 'identifiers', 'updatedAt']), version),
    ...identifiers.filter((i) => !had.has(claimKey(i))).map((i) => identifierClaim(id, i)),
    ...current.identifiers.filter((i) => !kept.has(claimKey(i))).map((i) => identifierRelease(id, i)),
  ];
  if (writes.length > MAX_TRANSACTION) throw badRequest('Too many identifiers for one patient.', 'too-costly');
  await transact(writes);
  return next;
}

/**
 * Adds one identifier (the portal's identifier call): idempotent for the patient's own
 * identifier, 409 when another patient holds it, other identifiers untouched.
 */
export async function addPatientIdentifier(id: Id, identifier: Identifier): Promise<Patient> {
  const [normalized] = normalizeIdentifiers([identifier]);
  const { entity: patient } = await patients.read(id);
  const claim = keys.patientIdentifier(normalized!.system, normalized!.value).pk;
  if (patient.identifiers.some((i) => keys.patientIdentifier(i.system, i.value).pk === claim)) return patient;
  return updatePatient(id, { identifiers: [...patient.identifiers, normalized!] });
}

/** The patient holding this identifier, if any (system and value both exact). */
export async function findPatientByIdentifier(system: string, value: string): Promise<Id | undefined> {
  if (!system || !value) return undefined;
  const key = keys.patientIdentifier(system, value);
  if (!fitsPartitionKey(key.pk)) return undefined;
  const claim = await getItem(key);
  return claim?.patientId as Id | undefined;
}

/** Patients holding an identifier with this value in any system (index read: eventually consistent). */
export async function findPatientsByIdentifierValue(value: string): Promise<Id[]> {
  const index = indexes.identifierValue(value);
  if (!value || !fitsPartitionKey(index.pk)) return [];
  const items = await queryAll({ index: index.name, pk: index.pk, attributes: ['patientId'] });
  return [...new Set(items.map((i) => i.patientId as Id))].sort((a, b) => a - b);
}

/** Puts a patient in an organization; 409 when they are already a member. */
export async function addPatientToOrganization(patientId: Id, orgId: Id): Promise<void> {
  await transact([
    putNew({ ...keys.organizationPatient(orgId, patientId) }, () => conflict(`Patient ${patientId} is already a member of organization ${orgId}.`)),
    organizationMustExist(orgId),
    update(keys.patient(patientId), 'ADD #orgs :org', { condition: 'attribute_exists(pk)', names: { '#orgs': 'organizationIds' }, values: { ':org': new Set([orgId]) } }, () =>
      patientNotFound(patientId),
    ),
  ]);
}

/**
 * Takes a patient out of an organization, and so out of that organization's studies (with their
 * consents for those studies); 404 when they were not a member.
 */
export async function removePatientFromOrganization(patientId: Id, orgId: Id): Promise<void> {
  const { entity: patient } = await patients.read(patientId);
  if (!patient.organizationIds.includes(orgId)) throw notFound(`Patient ${patientId} is not a member of organization ${orgId}.`);
  const studies = await batchGet(patient.studyIds.map(keys.study));
  const studiesHere = studies.filter((s) => s.organizationId === orgId).map((s) => s.id as Id);
  // Study enrolments first: the patient stays visible to the organization until the last step.
  for (const studyId of studiesHere) await leaveStudy(patientId, studyId);
  await transact([
    remove(keys.organizationPatient(orgId, patientId)),
    update(keys.patient(patientId), 'DELETE #orgs :org', { condition: 'attribute_exists(pk)', names: { '#orgs': 'organizationIds' }, values: { ':org': new Set([orgId]) } }),
  ]);
}

/** Ends a study enrolment and deletes the patient's consents for that study. */
export async function leaveStudy(patientId: Id, studyId: Id): Promise<void> {
  const consents = await queryAll({ pk: keys.patient(patientId).pk, skPrefix: keys.consentsOfStudy(studyId), attributes: ['pk', 'sk'] });
  const writes: Write[] = [
    remove(keys.studyPatient(studyId, patientId)),
    update(keys.patient(patientId), 'DELETE #studies :study', { condition: 'attribute_exists(pk)', names: { '#studies': 'studyIds' }, values: { ':study': new Set([studyId]) } }),
  ];
  const deletions = consents.map((c) => remove({ pk: c.pk as string, sk: c.sk as string }));
  await transactInChunks(deletions);
  await transact(writes);
}

/** Ids of an organization's patients, ascending (strongly consistent). */
export async function listPatientIdsOfOrganization(orgId: Id): Promise<Id[]> {
  const items = await queryAll({ pk: keys.organization(orgId).pk, skPrefix: REL.patient, attributes: ['sk'] });
  return items.map((i) => idFromSortKey(String(i.sk)));
}

/** Gives an existing patient a login account (kind `patient`); 409 when they have one already. */
export async function createPatientAccount(patientId: Id, account: { email: string; passwordHash?: string }): Promise<User> {
  const { entity: patient } = await patients.read(patientId);
  if (patient.userId !== undefined) throw conflict(`Patient ${patientId} already has a login account.`);
  const { user, writes } = await newUserWrites({
    email: account.email,
    kind: 'patient',
    patientId,
    nameFamily: patient.nameFamily,
    nameGiven: patient.nameGiven,
    ...(account.passwordHash ? { passwordHash: account.passwordHash } : {}),
  });
  await transact([
    ...writes,
    update(keys.patient(patientId), 'SET #userId = :user', { condition: 'attribute_exists(pk) AND attribute_not_exists(#userId)', names: { '#userId': 'userId' }, values: { ':user': user.id } }, () =>
      conflict(`Patient ${patientId} already has a login account.`),
    ),
  ]);
  return user;
}

/**
 * Deletes a patient record with its identifiers, memberships, enrolments, consents and login
 * account. The record and account go first, in one transaction, so the patient and their tokens
 * disappear at once; the relation items are cleared after. (Observations, auxiliary rows and FHIR
 * Sources are owned by their stores and deleted by their own modules.)
 */
export async function deletePatient(id: Id): Promise<void> {
  const { entity: patient, version } = await patients.read(id);
  const account = patient.userId !== undefined ? await getItem(keys.user(patient.userId)) : undefined;
  await transact([
    patients.remove(id, version),
    ...(account ? [remove(keys.user(patient.userId!)), remove(keys.email(account.email as string))] : []),
  ]);
  const leftovers: Write[] = [
    ...patient.identifiers.map((i) => identifierRelease(id, i)),
    ...patient.organizationIds.map((orgId) => remove(keys.organizationPatient(orgId, id))),
    ...patient.studyIds.map((studyId) => remove(keys.studyPatient(studyId, id))),
    ...(await queryAll({ pk: keys.patient(id).pk, attributes: ['pk', 'sk'] })).map((c) => remove({ pk: c.pk as string, sk: c.sk as string })),
  ];
  await transactInChunks(leftovers);
}
