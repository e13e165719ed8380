/** The in-memory twin of the patients: identifier claims, organization memberships (on the record) and login accounts. */
import { ascending, counter } from '../../store/memory';
import { pick } from '../../store/directory-entity';
import { identifierClaimFits } from '../../store/directory-keys';
import type { Id, Identifier } from '../model';
import { assertOrganization } from './memory-organizations';
import { identifierClaim, type MemoryTables } from './memory-tables';
import { assertNewAccount, dropAccount, storeAccount } from './memory-users';
import {
  alreadyInOrganization,
  concurrentChange,
  identifierChanges,
  identifierTaken,
  PATIENT_FIELDS,
  patientHasAccount,
  patientNotFound,
  type PatientRecords,
} from './port';

export function memoryPatients(t: MemoryTables): PatientRecords {
  const { patients, identifiers } = t;
  const holder = (identifier: Identifier) => identifiers.get(identifierClaim(identifier))?.patientId;
  /** A claim is free for the patient unless another one holds it. */
  const freeFor = (patientId: Id, identifier: Identifier) => [undefined, patientId].includes(holder(identifier));
  const claim = (patientId: Id, identifier: Identifier) => identifiers.set(identifierClaim(identifier), { patientId, identifier: { ...identifier } });
  const release = (patientId: Id, identifier: Identifier) => {
    if (holder(identifier) === patientId) identifiers.delete(identifierClaim(identifier));
  };

  return {
    newId: counter(),
    insert: async (patient, account) => {
      for (const identifier of patient.identifiers) if (!freeFor(patient.id, identifier)) throw identifierTaken(identifier);
      for (const orgId of patient.organizationIds) assertOrganization(t, orgId);
      if (account) assertNewAccount(t, account);
      patients.insert(patient);
      for (const identifier of patient.identifiers) claim(patient.id, identifier);
      if (account) storeAccount(t, account);
    },
    get: patients.get,
    getMany: patients.getMany,
    read: patients.read,
    update: async (read, next) => {
      patients.assertAt(read);
      const { claimed, released } = identifierChanges(read.entity.identifiers, next.identifiers);
      for (const identifier of claimed) if (!freeFor(next.id, identifier)) throw identifierTaken(identifier);
      if (!released.every((identifier) => freeFor(next.id, identifier))) throw concurrentChange();
      patients.setFields(read, pick(next, PATIENT_FIELDS));
      for (const identifier of claimed) claim(next.id, identifier);
      for (const identifier of released) release(next.id, identifier);
    },
    canClaim: (identifier) => identifierClaimFits(identifier.system, identifier.value),
    findByIdentifier: async (system, value) => holder({ system, value }),
    withIdentifierValue: async (value) => ascending(new Set([...identifiers.values()].filter((c) => c.identifier.value === value).map((c) => c.patientId))),
    join: async (patientId, orgId) => {
      const patient = patients.has(patientId) ? patients.stored(patientId) : undefined;
      if (patient?.organizationIds.includes(orgId)) throw alreadyInOrganization(patientId, orgId);
      assertOrganization(t, orgId);
      if (!patient) throw patientNotFound(patientId);
      patient.organizationIds = ascending([...patient.organizationIds, orgId]);
    },
    leave: async (patientId, orgId) => {
      if (!patients.has(patientId)) throw concurrentChange();
      const patient = patients.stored(patientId);
      patient.organizationIds = patient.organizationIds.filter((id) => id !== orgId);
    },
    addAccount: async (patientId, account) => {
      assertNewAccount(t, account);
      if (!patients.has(patientId) || patients.stored(patientId).userId !== undefined) throw patientHasAccount(patientId);
      storeAccount(t, account);
      patients.stored(patientId).userId = account.id;
    },
    remove: async (id) => {
      const patient = patients.stored(id);
      patients.remove(id);
      if (patient.userId !== undefined && t.users.has(patient.userId)) dropAccount(t, t.users.stored(patient.userId));
      for (const identifier of patient.identifiers) release(id, identifier);
      t.consents.delete(id);
    },
  };
}
