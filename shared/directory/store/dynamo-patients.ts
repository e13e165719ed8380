/**
 * Patients on the directory table. A patient's organizations and studies are kept on the patient
 * item (number sets) and as relation items in each organization's / study's partition, written in
 * one transaction: one GetItem tells who may see a patient, one Query lists an organization's
 * patients, both strongly consistent. Identifiers are claim items (unique per system and value),
 * also on gsi2 by value.
 */
import { conflict, type HttpError } from '../../http/errors';
import { getItem, idList, put, putNew, queryAll, remove, transact, transactInChunks, update, withoutKeys, type Item, type Write } from '../../store/directory-table';
import { entityStore, pick } from '../../store/directory-entity';
import { newId } from '../ids';
import { identifierClaimFits, indexes, keys } from '../../store/directory-keys';
import { fitsPartitionKey } from '../../store/key-limits';
import type { Id, Identifier, Patient } from '../model';
import { organizationMustExist, partitionDeletes } from './dynamo-relations';
import { userWrites } from './dynamo-users';
import { alreadyInOrganization, identifierChanges, identifierTaken, PATIENT_FIELDS, patientHasAccount, patientNotFound, type PatientRecords } from './port';

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
const patientEntities = entityStore<Patient, Id>({ key: keys.patient, toEntity: toPatient, toItem, notFound: patientNotFound });

/** A claim the patient already holds may be written again; another patient's refuses the write. */
const heldByNoneOr = (patientId: Id) => ({ condition: 'attribute_not_exists(pk) OR patientId = :me', values: { ':me': patientId } });

function identifierClaim(patientId: Id, identifier: Identifier): Write {
  return put(
    { ...keys.patientIdentifier(identifier.system, identifier.value), ...indexes.patientIdentifier(identifier.system, identifier.value), patientId, ...identifier },
    heldByNoneOr(patientId),
    () => identifierTaken(identifier),
  );
}

const identifierRelease = (patientId: Id, identifier: Identifier): Write => remove(keys.patientIdentifier(identifier.system, identifier.value), heldByNoneOr(patientId));

/** Placeholders of the patient's number sets in the update expressions. */
const SETS = { organizationIds: ['#orgs', ':org'], studyIds: ['#studies', ':study'] } as const;

/** The write that adds to (`ADD`) or takes from (`DELETE`) one of the patient's number sets. */
export function patientSetWrite(patientId: Id, action: 'ADD' | 'DELETE', set: keyof typeof SETS, id: Id, onConflict?: () => HttpError): Write {
  const [name, value] = SETS[set];
  return update(keys.patient(patientId), `${action} ${name} ${value}`, { condition: 'attribute_exists(pk)', names: { [name]: set }, values: { [value]: new Set([id]) } }, onConflict);
}

export const patients: PatientRecords = {
  newId: () => newId('patient'),
  insert: (patient, account) =>
    transact([
      patientEntities.create(patient, () => conflict('Patient id collision.')),
      ...patient.identifiers.map((i) => identifierClaim(patient.id, i)),
      ...patient.organizationIds.flatMap((orgId) => [put({ ...keys.organizationPatient(orgId, patient.id) }), organizationMustExist(orgId)]),
      ...(account ? userWrites(account) : []),
    ]),
  get: patientEntities.get,
  getMany: patientEntities.getMany,
  read: patientEntities.read,
  update: ({ entity: current, version }, next) => {
    const { claimed, released } = identifierChanges(current.identifiers, next.identifiers);
    return transact([
      patientEntities.setFields(next.id, pick(next, PATIENT_FIELDS), version),
      ...claimed.map((i) => identifierClaim(next.id, i)),
      ...released.map((i) => identifierRelease(next.id, i)),
    ]);
  },
  canClaim: (identifier) => identifierClaimFits(identifier.system, identifier.value),
  // Text too long for a key can be no item's key: nothing to look up (and DynamoDB would refuse the read).
  findByIdentifier: async (system, value) => (identifierClaimFits(system, value) ? ((await getItem(keys.patientIdentifier(system, value)))?.patientId as Id | undefined) : undefined),
  withIdentifierValue: async (value) => {
    const index = indexes.identifierValue(value);
    if (!fitsPartitionKey(index.pk)) return [];
    const items = await queryAll({ index: index.name, pk: index.pk, attributes: ['patientId'] });
    return [...new Set(items.map((i) => i.patientId as Id))].sort((a, b) => a - b);
  },
  join: (patientId, orgId) =>
    transact([
      putNew({ ...keys.organizationPatient(orgId, patientId) }, () => alreadyInOrganization(patientId, orgId)),
      organizationMustExist(orgId),
      patientSetWrite(patientId, 'ADD', 'organizationIds', orgId, () => patientNotFound(patientId)),
    ]),
  leave: (patientId, orgId) => transact([remove(keys.organizationPatient(orgId, patientId)), patientSetWrite(patientId, 'DELETE', 'organizationIds', orgId)]),
  addAccount: (patientId, account) =>
    transact([
      ...userWrites(account),
      update(
        keys.patient(patientId),
        'SET #userId = :user',
        { condition: 'attribute_exists(pk) AND attribute_not_exists(#userId)', names: { '#userId': 'userId' }, values: { ':user': account.id } },
        () => patientHasAccount(patientId),
      ),
    ]),
  remove: async (id) => {
    const { entity: patient, version } = await patientEntities.read(id);
    const account = patient.userId !== undefined ? await getItem(keys.user(patient.userId)) : undefined;
    await transact([patientEntities.remove(id, version), ...(account ? [remove(keys.user(patient.userId!)), remove(keys.email(account.email as string))] : [])]);
    const leftovers: Write[] = [
      ...patient.identifiers.map((i) => identifierRelease(id, i)),
      ...patient.organizationIds.map((orgId) => remove(keys.organizationPatient(orgId, id))),
      ...patient.studyIds.map((studyId) => remove(keys.studyPatient(studyId, id))),
      ...(await partitionDeletes(keys.patient(id))),
    ];
    await transactInChunks(leftovers);
  },
};
