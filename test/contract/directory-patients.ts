/** The directory store contract, patients with their identifiers, organizations and logins (run by `directoryStoreContract`). */
import { describe, expect, it } from 'vitest';
import { listConsents, recordConsents } from '../../shared/directory/consents';
import * as patients from '../../shared/directory/patients';
import { addStudyCode, enrollPatients, listStudyPatientIds } from '../../shared/directory/studies';
import { createUser, getUser, getUserByEmail } from '../../shared/directory/users';
import { missing, newCode, newEmail, newIdentifier, newOrganization, newPatient, newStudy } from './directory-fixtures';

const taken = (identifier: { system: string; value: string }) => ({
  status: 409,
  message: `Identifier ${identifier.system}|${identifier.value} is already assigned to another patient.`,
  fields: { identifiers: ['Identifier is already assigned to another patient.'] },
});

export function patientsContract(): void {
  describe('patients', () => {
    it('stores a patient with identifiers, organizations and a login at once, and finds them every way', async () => {
      const [a, b] = [await newOrganization(), await newOrganization()];
      const [mrn, other] = [newIdentifier(), newIdentifier('urn:other')];
      const sameValue = { system: 'urn:same-value', value: mrn.value };
      const email = newEmail();
      const patient = await newPatient({
        birthDate: '1970-01-31',
        telecomEmail: email,
        identifiers: [mrn, mrn, other, sameValue],
        organizationIds: [b.id, a.id, a.id],
        account: {},
      });
      expect(patient).toMatchObject({ birthDate: '1970-01-31', identifiers: [mrn, other, sameValue], organizationIds: [a.id, b.id], studyIds: [] });
      expect(await patients.getPatient(patient.id)).toEqual(patient);
      expect(await patients.getPatients([missing, patient.id])).toEqual([patient]);
      expect(await getUser(patient.userId!)).toMatchObject({ kind: 'patient', patientId: patient.id, email, roles: new Map() });
      expect(await getUserByEmail(email)).toMatchObject({ id: patient.userId });
      expect(await patients.findPatientByIdentifier(mrn.system, mrn.value)).toBe(patient.id);
      expect(await patients.findPatientByIdentifier(other.system, mrn.value)).toBeUndefined();
      expect(await patients.listPatientIdsOfOrganization(a.id)).toEqual([patient.id]);

      const second = await newPatient({ identifiers: [{ system: 'urn:third', value: mrn.value }], organizationIds: [a.id] });
      const third = await newPatient({ organizationIds: [a.id] });
      expect(await patients.findPatientsByIdentifierValue(mrn.value)).toEqual([patient.id, second.id]);
      expect(await patients.findPatientsByIdentifierValue(`none-${mrn.value}`)).toEqual([]);
      expect(await patients.listPatientIdsOfOrganization(a.id)).toEqual([patient.id, second.id, third.id]);
    });

    it('refuses a held identifier (409), then an unknown organization (404), then a taken email (409), storing nothing', async () => {
      const org = await newOrganization();
      const held = newIdentifier();
      const holder = await newPatient({ identifiers: [held] });
      const user = await createUser({ email: newEmail(), kind: 'patient' });
      const free = newIdentifier();
      const attempt = (input: Parameters<typeof newPatient>[0]) => newPatient({ identifiers: [free], organizationIds: [org.id], account: { email: user.email }, ...input });
      await expect(attempt({ identifiers: [free, held], organizationIds: [org.id, missing] })).rejects.toMatchObject(taken(held));
      await expect(attempt({ organizationIds: [org.id, missing] })).rejects.toMatchObject({ status: 404, message: `Organization ${missing} not found.` });
      await expect(attempt({})).rejects.toMatchObject({ status: 409, message: 'A user with this email already exists.' });
      expect(await patients.findPatientByIdentifier(held.system, held.value)).toBe(holder.id);
      expect(await patients.findPatientByIdentifier(free.system, free.value)).toBeUndefined();
      expect(await patients.listPatientIdsOfOrganization(org.id)).toEqual([]);
      expect(await getUserByEmail(user.email)).toEqual(user);

      const race = newIdentifier();
      const results = await Promise.allSettled([0, 1, 2].map(() => newPatient({ identifiers: [race] })));
      const won = results.filter((r) => r.status === 'fulfilled');
      expect(won).toHaveLength(1);
      expect(await patients.findPatientByIdentifier(race.system, race.value)).toBe((won[0] as PromiseFulfilledResult<{ id: number }>).value.id);
    });

    it('updates demographics and identifiers at once: new ones claimed, dropped ones freed, another patient\'s refused', async () => {
      const [old, kept, added] = [newIdentifier(), newIdentifier(), newIdentifier()];
      const patient = await newPatient({ birthDate: '1980-05-05', telecomPhone: '123', identifiers: [old, kept] });
      const updated = await patients.updatePatient(patient.id, { nameGiven: 'New', telecomPhone: null, identifiers: [kept, added] });
      expect(updated).toMatchObject({ nameGiven: 'New', birthDate: '1980-05-05', identifiers: [kept, added], createdAt: patient.createdAt });
      expect(updated.telecomPhone).toBeUndefined();
      expect(await patients.getPatient(patient.id)).toEqual(updated);
      expect(await patients.findPatientByIdentifier(old.system, old.value)).toBeUndefined();
      expect(await patients.findPatientByIdentifier(added.system, added.value)).toBe(patient.id);
      expect(await patients.findPatientByIdentifier(kept.system, kept.value)).toBe(patient.id);

      const theirs = newIdentifier();
      const other = await newPatient({ identifiers: [theirs] });
      await expect(patients.updatePatient(patient.id, { nameGiven: 'Not kept', identifiers: [theirs] })).rejects.toMatchObject(taken(theirs));
      expect(await patients.getPatient(patient.id)).toEqual(updated);
      expect(await patients.findPatientByIdentifier(kept.system, kept.value)).toBe(patient.id);
      expect(await patients.findPatientByIdentifier(theirs.system, theirs.value)).toBe(other.id);

      const once = await patients.addPatientIdentifier(patient.id, old);
      expect(once.identifiers).toEqual([kept, added, old]);
      expect(await patients.addPatientIdentifier(patient.id, old)).toEqual(once);
      await expect(patients.addPatientIdentifier(patient.id, theirs)).rejects.toMatchObject(taken(theirs));
      await expect(patients.updatePatient(missing, { nameGiven: 'x' })).rejects.toMatchObject({ status: 404, message: `Patient ${missing} not found.` });
    });

    it('joins organizations (409 twice, 404 for an unknown one, then for an unknown patient) and leaves one with its studies\' consents', async () => {
      const [a, b] = [await newOrganization(), await newOrganization()];
      const patient = await newPatient({ organizationIds: [a.id] });
      await patients.addPatientToOrganization(patient.id, b.id);
      await expect(patients.addPatientToOrganization(patient.id, b.id)).rejects.toMatchObject({ status: 409, message: `Patient ${patient.id} is already a member of organization ${b.id}.` });
      await expect(patients.addPatientToOrganization(missing, missing)).rejects.toMatchObject({ status: 404, message: `Organization ${missing} not found.` });
      await expect(patients.addPatientToOrganization(missing, b.id)).rejects.toMatchObject({ status: 404, message: `Patient ${missing} not found.` });
      expect(await patients.listPatientIdsOfOrganization(b.id)).toEqual([patient.id]);
      expect((await patients.getPatient(patient.id))?.updatedAt).toBe(patient.updatedAt);

      const code = await newCode();
      const [studyA, studyB] = [await newStudy(a.id), await newStudy(b.id)];
      for (const study of [studyA, studyB]) {
        await addStudyCode(study.id, code.id);
        await enrollPatients(study.id, [patient.id]);
        await recordConsents(patient.id, [{ studyId: study.id, codeId: code.id, consented: true }]);
      }
      expect((await patients.getPatient(patient.id))?.studyIds).toEqual([studyA.id, studyB.id]);

      await patients.removePatientFromOrganization(patient.id, a.id);
      expect(await patients.getPatient(patient.id)).toMatchObject({ organizationIds: [b.id], studyIds: [studyB.id] });
      expect(await listStudyPatientIds(studyA.id)).toEqual([]);
      expect((await listConsents(patient.id)).map((c) => c.studyId)).toEqual([studyB.id]);
      expect(await patients.listPatientIdsOfOrganization(a.id)).toEqual([]);
      await expect(patients.removePatientFromOrganization(patient.id, a.id)).rejects.toMatchObject({ status: 404, message: `Patient ${patient.id} is not a member of organization ${a.id}.` });
    });

    it('gives a patient a login once: a taken email, then an existing login, is a 409 that stores nothing', async () => {
      const patient = await newPatient();
      const taken = await createUser({ email: newEmail(), kind: 'patient' });
      await expect(patients.createPatientAccount(patient.id, { email: taken.email })).rejects.toMatchObject({ status: 409, message: 'A user with this email already exists.' });
      const user = await patients.createPatientAccount(patient.id, { email: newEmail(), passwordHash: 'scrypt$x' });
      expect(user).toMatchObject({ kind: 'patient', patientId: patient.id, nameFamily: patient.nameFamily, passwordHash: 'scrypt$x' });
      expect(await getUser(user.id)).toEqual(user);
      expect(await patients.getPatient(patient.id)).toEqual({ ...patient, userId: user.id });
      const again = newEmail();
      await expect(patients.createPatientAccount(patient.id, { email: again })).rejects.toMatchObject({ status: 409, message: `Patient ${patient.id} already has a login account.` });
      expect(await getUserByEmail(again)).toBeUndefined();
      await expect(patients.createPatientAccount(missing, { email: again })).rejects.toMatchObject({ status: 404 });
    });

    it('deletes a patient with login, identifiers, memberships, enrolments and consents, freeing them all', async () => {
      const org = await newOrganization();
      const identifier = newIdentifier();
      const email = newEmail();
      const patient = await newPatient({ organizationIds: [org.id], identifiers: [identifier], account: { email } });
      const study = await newStudy(org.id);
      const code = await newCode();
      await addStudyCode(study.id, code.id);
      await enrollPatients(study.id, [patient.id]);
      await recordConsents(patient.id, [{ studyId: study.id, codeId: code.id, consented: true }]);

      await patients.deletePatient(patient.id);
      expect(await patients.getPatient(patient.id)).toBeUndefined();
      expect(await getUser(patient.userId!)).toBeUndefined();
      expect(await getUserByEmail(email)).toBeUndefined();
      expect(await patients.findPatientByIdentifier(identifier.system, identifier.value)).toBeUndefined();
      expect(await patients.findPatientsByIdentifierValue(identifier.value)).toEqual([]);
      expect(await patients.listPatientIdsOfOrganization(org.id)).toEqual([]);
      expect(await listStudyPatientIds(study.id)).toEqual([]);
      expect(await listConsents(patient.id)).toEqual([]);
      await expect(patients.deletePatient(patient.id)).rejects.toMatchObject({ status: 404, message: `Patient ${patient.id} not found.` });
      const again = await newPatient({ identifiers: [identifier], account: { email } });
      expect(await patients.findPatientByIdentifier(identifier.system, identifier.value)).toBe(again.id);
    });
  });
}
