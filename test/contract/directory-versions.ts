/**
 * The directory store contract, optimistic updates and copies (run by `directoryStoreContract`):
 * through the port itself, since only a caller holding a read can show what a stale one does.
 */
import { describe, expect, it } from 'vitest';
import { listConsents, recordConsents } from '../../shared/directory/consents';
import { createFhirSource, getFhirSource } from '../../shared/directory/fhir-sources';
import { listOrganizationMembers, setOrganizationRole } from '../../shared/directory/memberships';
import type { Id } from '../../shared/directory/model';
import { deleteOrganization, getOrganization } from '../../shared/directory/organizations';
import { addPatientToOrganization, createPatientAccount, getPatient } from '../../shared/directory/patients';
import { directoryStore } from '../../shared/directory/store/current';
import type { Versioned } from '../../shared/directory/store/port';
import { addStudyCode, enrollPatients, getStudy, listStudyCodes } from '../../shared/directory/studies';
import { addRevocations, createUser, getUser } from '../../shared/directory/users';
import { newCode, newDataSource, newEmail, newOrganization, newPatient, newPractitioner, newStudy } from './directory-fixtures';

const concurrent = { status: 409, message: 'The record was changed by another request at the same time; please retry.' };

interface Updatable<T> {
  read(id: Id): Promise<Versioned<T>>;
  update(read: Versioned<T>, next: T): Promise<void>;
}

/** Two updates over one read: the first lands (version 1 -> 2), the second is a 409 that leaves it. */
async function secondUpdateRefused<T extends { id: Id; updatedAt: string }>(records: Updatable<T>, id: Id, get: (id: Id) => Promise<T | undefined>) {
  const read = await records.read(id);
  expect(read).toEqual({ entity: await get(id), version: 1 });
  const first = { ...read.entity, updatedAt: 'first' };
  await records.update(read, first);
  await expect(records.update(read, { ...read.entity, updatedAt: 'second' })).rejects.toMatchObject(concurrent);
  expect(await get(id)).toEqual(first);
  expect(await records.read(id)).toEqual({ entity: first, version: 2 });
}

export function versionsContract(): void {
  describe('optimistic updates', () => {
    it('refuses an update over a version another update moved on, for every family', async () => {
      const store = directoryStore();
      const org = await newOrganization();
      await secondUpdateRefused(store.organizations, org.id, getOrganization);
      const user = await createUser({ email: newEmail(), kind: 'practitioner' });
      await secondUpdateRefused(store.users, user.id, getUser);
      const patient = await newPatient();
      await secondUpdateRefused(store.patients, patient.id, getPatient);
      const study = await newStudy(org.id);
      await secondUpdateRefused(store.studies, study.id, getStudy);
      const source = await createFhirSource({ patientId: patient.id, dataSourceId: (await newDataSource()).id });
      const sources: Updatable<typeof source> = { read: store.fhirSources.read, update: (read, next) => store.fhirSources.update(read, next, false) };
      await secondUpdateRefused(sources, source.id, getFhirSource);
    });

    it('refuses an update of a record deleted since it was read', async () => {
      const { organizations } = directoryStore();
      const org = await newOrganization();
      const read = await organizations.read(org.id);
      await deleteOrganization(org.id);
      await expect(organizations.update(read, { ...org, name: 'Back' })).rejects.toMatchObject(concurrent);
      expect(await getOrganization(org.id)).toBeUndefined();
    });

    it('lets an update land over links written since its read, and keeps them', async () => {
      const { patients, users } = directoryStore();
      const org = await newOrganization();
      const patient = await newPatient({ organizationIds: [org.id] });
      const study = await newStudy(org.id);
      const readPatient = await patients.read(patient.id);
      await addPatientToOrganization(patient.id, (await newOrganization()).id);
      await enrollPatients(study.id, [patient.id]);
      const account = await createPatientAccount(patient.id, { email: newEmail() });
      await patients.update(readPatient, { ...readPatient.entity, nameGiven: 'Renamed' });
      const stored = await getPatient(patient.id);
      expect(stored).toMatchObject({ nameGiven: 'Renamed', userId: account.id, studyIds: [study.id] });
      expect(stored?.organizationIds).toHaveLength(2);

      const doctor = await newPractitioner();
      const readUser = await users.read(doctor.id);
      await setOrganizationRole(org.id, doctor.id, 'member');
      await users.update(readUser, { ...readUser.entity, nameGiven: 'Renamed' });
      expect(await getUser(doctor.id)).toMatchObject({ nameGiven: 'Renamed', roles: new Map([[org.id, 'member']]) });
      expect(await listOrganizationMembers(org.id)).toEqual([{ userId: doctor.id, role: 'member' }]);

      // Revocations are kept by an update of their own, which moves the version.
      const before = await users.read(doctor.id);
      await addRevocations(doctor.id, { 'sid:x': 9_999_999_999 });
      await expect(users.update(before, { ...before.entity, nameGiven: 'Stale' })).rejects.toMatchObject(concurrent);
    });
  });

  describe('copies', () => {
    it('hands out copies: changing what a call returned changes nothing stored', async () => {
      const org = await newOrganization();
      const patient = await newPatient({ organizationIds: [org.id], identifiers: [{ system: 'urn:copy', value: newEmail() }] });
      const stored = await getPatient(patient.id);
      patient.nameFamily = 'Changed';
      patient.organizationIds.push(1);
      patient.identifiers[0]!.value = 'changed';
      (await getPatient(patient.id))!.studyIds.push(1);
      (await directoryStore().patients.read(patient.id)).entity.identifiers.pop();
      (await directoryStore().patients.getMany([patient.id]))[0]!.nameGiven = 'Changed';
      expect(await getPatient(patient.id)).toEqual(stored);

      const doctor = await newPractitioner([[org.id, 'member']]);
      (doctor.roles as Map<Id, string>).set(2, 'manager');
      (((await getUser(doctor.id))!.roles) as Map<Id, string>).clear();
      expect((await getUser(doctor.id))?.roles).toEqual(new Map([[org.id, 'member']]));
      (await listOrganizationMembers(org.id))[0]!.role = 'viewer';
      expect(await listOrganizationMembers(org.id)).toEqual([{ userId: doctor.id, role: 'member' }]);

      const study = await newStudy(org.id);
      const code = await newCode();
      (await addStudyCode(study.id, code.id)).code = 'changed';
      (await listStudyCodes(study.id))[0]!.system = 'changed';
      expect(await listStudyCodes(study.id)).toEqual([{ id: code.id, system: code.system, code: code.code }]);
      await enrollPatients(study.id, [patient.id]);
      (await recordConsents(patient.id, [{ studyId: study.id, codeId: code.id, consented: true }]))[0]!.consented = false;
      (await listConsents(patient.id))[0]!.code.code = 'changed';
      expect(await listConsents(patient.id)).toMatchObject([{ consented: true, code: { code: code.code } }]);
    });
  });
}
