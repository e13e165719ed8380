/** The directory store contract, login accounts and practitioners (run by `directoryStoreContract`). */
import { describe, expect, it } from 'vitest';
import { listOrganizationMembers } from '../../shared/directory/memberships';
import { getPatient } from '../../shared/directory/patients';
import * as users from '../../shared/directory/users';
import { missing, newEmail, newOrganization, newPatient, newPractitioner } from './directory-fixtures';

const emailTaken = { status: 409, message: 'A user with this email already exists.', fields: { email: ['A user with this email already exists.'] } };

export function usersContract(): void {
  describe('users', () => {
    it('stores an account and finds it by id, by ids and by email in any case', async () => {
      const email = newEmail();
      const user = await users.createUser({ email: ` ${email.toUpperCase()} `, kind: 'patient', nameFamily: 'Lee' });
      expect(user).toMatchObject({ email: email.toUpperCase(), kind: 'patient', superuser: false, active: true, nameGiven: '', roles: new Map() });
      expect(await users.getUser(user.id)).toEqual(user);
      expect(await users.getUsers([missing, user.id])).toEqual([user]);
      expect(await users.getUserByEmail(email)).toEqual(user);
      expect(await users.getUserByEmail(` ${email} `)).toEqual(user);
      expect(await users.getUserByEmail(newEmail())).toBeUndefined();
      expect(await users.getPractitioner(user.id)).toBeUndefined();
      expect(await users.listPractitionerIds()).not.toContain(user.id);
    });

    it('holds each email once, whatever its case: a second account is a 409 and one of many racing wins', async () => {
      const email = newEmail();
      const first = await users.createUser({ email, kind: 'patient' });
      await expect(users.createUser({ email: email.toUpperCase(), kind: 'practitioner' })).rejects.toMatchObject(emailTaken);
      expect(await users.getUserByEmail(email)).toEqual(first);
      const raced = newEmail();
      const results = await Promise.allSettled([0, 1, 2].map((i) => users.createUser({ email: i === 1 ? raced.toUpperCase() : raced, kind: 'practitioner' })));
      const won = results.filter((r) => r.status === 'fulfilled');
      expect(won).toHaveLength(1);
      expect((await users.getUserByEmail(raced))?.id).toBe((won[0] as PromiseFulfilledResult<{ id: number }>).value.id);
    });

    it('creates a practitioner with roles on both sides at once; an unknown organization refuses the whole account', async () => {
      const [a, b] = [await newOrganization(), await newOrganization()];
      const doctor = await newPractitioner([[b.id, 'viewer'], [a.id, 'manager']]);
      expect(await users.getPractitioner(doctor.id)).toEqual(doctor);
      expect(doctor.roles).toEqual(new Map([[a.id, 'manager'], [b.id, 'viewer']]));
      expect(await listOrganizationMembers(a.id)).toEqual([{ userId: doctor.id, role: 'manager' }]);
      const ids = await users.listPractitionerIds();
      expect(ids).toContain(doctor.id);
      expect(ids).toEqual([...ids].sort((x, y) => x - y));
      expect(await users.getPractitioners([doctor.id, missing])).toEqual([doctor]);

      const email = newEmail();
      await expect(users.createPractitioner({ email, organizations: [{ organizationId: a.id, role: 'member' }, { organizationId: missing, role: 'member' }] })).rejects.toMatchObject({
        status: 404,
        message: `Organization ${missing} not found.`,
      });
      expect(await users.getUserByEmail(email)).toBeUndefined();
      expect(await listOrganizationMembers(a.id)).toEqual([{ userId: doctor.id, role: 'manager' }]);
      await expect(users.createPractitioner({ email: doctor.email, organizations: [{ organizationId: missing, role: 'member' }] })).rejects.toMatchObject(emailTaken);
      expect((await users.createUser({ email, kind: 'patient' })).email).toBe(email);
    });

    it('updates the account fields, moving the email claim; a taken email is a 409 and changes nothing', async () => {
      const user = await users.createUser({ email: newEmail(), kind: 'practitioner', passwordHash: 'scrypt$old' });
      const other = await users.createUser({ email: newEmail(), kind: 'practitioner' });
      const email = newEmail();
      const changed = await users.updateUser(user.id, { email, nameGiven: 'Ann', passwordHash: null, superuser: true });
      expect(changed).toMatchObject({ id: user.id, email, nameGiven: 'Ann', superuser: true, createdAt: user.createdAt });
      expect(changed.passwordHash).toBeUndefined();
      expect(changed.tokensNotBefore).toBeGreaterThan(Date.now() / 1000 - 5);
      expect(await users.getUser(user.id)).toEqual(changed);
      expect(await users.getUserByEmail(user.email)).toBeUndefined();
      expect(await users.getUserByEmail(email)).toEqual(changed);
      expect((await users.updateUser(user.id, { email: email.toUpperCase() })).email).toBe(email.toUpperCase());

      await expect(users.updateUser(user.id, { email: other.email, nameGiven: 'Not kept' })).rejects.toMatchObject(emailTaken);
      expect((await users.getUser(user.id))?.nameGiven).toBe('Ann');
      expect((await users.getUserByEmail(other.email))?.id).toBe(other.id);
      await expect(users.updateUser(missing, { nameGiven: 'x' })).rejects.toMatchObject({ status: 404, message: `User ${missing} not found.` });
    });

    it('revokes tokens and keeps the live revocations only', async () => {
      const user = await users.createUser({ email: newEmail(), kind: 'practitioner' });
      await users.revokeUserTokens(user.id);
      expect((await users.getUser(user.id))?.tokensNotBefore).toBeGreaterThan(Date.now() / 1000 - 5);
      await expect(users.revokeUserTokens(missing)).rejects.toMatchObject({ status: 404, message: `User ${missing} not found.` });
      await users.addRevocations(user.id, { 'sid:a': 2_000, 'jti:b': 3_000 }, 1_000);
      await users.addRevocations(user.id, { 'jti:c': 4_000 }, 2_500);
      expect((await users.getUser(user.id))?.revocations).toEqual({ 'jti:b': 3_000, 'jti:c': 4_000 });
      await users.addRevocations(missing, { 'sid:a': 2_000 }, 1_000);
      expect(await users.getUser(missing)).toBeUndefined();
    });

    it('deletes an account: its email is free, a practitioner leaves every organization, a patient keeps the record', async () => {
      const org = await newOrganization();
      const doctor = await newPractitioner([[org.id, 'member']]);
      await users.deleteUser(doctor.id);
      expect(await users.getUser(doctor.id)).toBeUndefined();
      expect(await users.getUserByEmail(doctor.email)).toBeUndefined();
      expect(await listOrganizationMembers(org.id)).toEqual([]);
      expect(await users.listPractitionerIds()).not.toContain(doctor.id);
      await expect(users.deleteUser(doctor.id)).rejects.toMatchObject({ status: 404, message: `User ${doctor.id} not found.` });

      const email = newEmail();
      const patient = await newPatient({ account: { email } });
      await users.deleteUser(patient.userId!);
      const { userId: _gone, ...record } = patient;
      expect(await getPatient(patient.id)).toEqual(record);
      await users.createUser({ email, kind: 'patient' });
    });
  });
}
