/** The directory store contract, organizations and practitioners' memberships (run by `directoryStoreContract`). */
import { describe, expect, it } from 'vitest';
import * as members from '../../shared/directory/memberships';
import * as orgs from '../../shared/directory/organizations';
import { addPatientToOrganization, deletePatient, removePatientFromOrganization } from '../../shared/directory/patients';
import { directoryStore } from '../../shared/directory/store/current';
import { createUser, getPractitioner, getUser } from '../../shared/directory/users';
import { missing, newEmail, newOrganization, newPatient, newPractitioner, newStudy, tick, unique } from './directory-fixtures';

export function organizationsContract(): void {
  describe('organizations', () => {
    it('keeps a tree: by id, by ids, every one and each one\'s children in id order, ancestors, a move to the top', async () => {
      const root = await newOrganization();
      const [first, second] = [await newOrganization(root.id), await newOrganization(root.id)];
      const grandchild = await newOrganization(first.id);
      expect(await orgs.getOrganization(first.id)).toEqual(first);
      expect(await orgs.getOrganization(missing)).toBeUndefined();
      expect(await orgs.getOrganizations([grandchild.id, missing, root.id])).toEqual([grandchild, root]);
      const mine = [root, first, second, grandchild].map((o) => o.id);
      expect((await orgs.listOrganizations()).filter((o) => mine.includes(o.id))).toEqual([root, first, second, grandchild]);
      expect(await orgs.listChildOrganizations(root.id)).toEqual([first, second]);
      const topLevel = (await orgs.listChildOrganizations(undefined)).map((o) => o.id);
      expect(mine.filter((id) => topLevel.includes(id))).toEqual([root.id]);
      expect((await orgs.ancestorsOf(grandchild.id)).map((o) => o.id)).toEqual([first.id, root.id]);
      expect((await orgs.organizationTree(root.id))?.children.map((c) => c.children.map((g) => g.id))).toEqual([[grandchild.id], []]);

      const moved = await orgs.updateOrganization(second.id, { name: 'Moved', partOf: null });
      expect(moved).toMatchObject({ id: second.id, name: 'Moved', createdAt: second.createdAt });
      expect(moved.partOf).toBeUndefined();
      expect(await orgs.getOrganization(second.id)).toEqual(moved);
      expect(await orgs.listChildOrganizations(root.id)).toEqual([first]);
      expect((await orgs.listChildOrganizations(undefined)).map((o) => o.id)).toContain(second.id);
    });

    it('refuses an unknown parent with a 400, storing and changing nothing', async () => {
      const name = `Orphan ${unique()}`;
      await expect(orgs.createOrganization({ name, type: 'prov', partOf: missing })).rejects.toMatchObject({
        status: 400,
        message: `Parent organization ${missing} not found.`,
        fields: { partOf: [`Invalid pk "${missing}" - object does not exist.`] },
      });
      expect((await orgs.listOrganizations()).filter((o) => o.name === name)).toEqual([]);
      const org = await newOrganization();
      await expect(orgs.updateOrganization(org.id, { name: 'Not kept', partOf: missing })).rejects.toMatchObject({ status: 400, message: `Parent organization ${missing} not found.` });
      expect(await orgs.getOrganization(org.id)).toEqual(org);
      await expect(orgs.updateOrganization(missing, { name: 'x' })).rejects.toMatchObject({ status: 404, message: `Organization ${missing} not found.` });
    });

    it('makes the creator its manager at once; a manager who is no practitioner refuses the whole creation', async () => {
      const parent = await newOrganization();
      const doctor = await newPractitioner([[parent.id, 'manager']]);
      await tick();
      const sub = await orgs.createOrganization({ name: 'Sub', type: 'team', partOf: parent.id }, { manager: doctor.id });
      expect(await members.memberRole(sub.id, doctor.id)).toBe('manager');
      expect(await members.listOrganizationMembers(sub.id)).toEqual([{ userId: doctor.id, role: 'manager' }]);
      const stored = await getPractitioner(doctor.id);
      expect(stored?.roles).toEqual(new Map([[parent.id, 'manager'], [sub.id, 'manager']]));
      expect(stored!.updatedAt > doctor.updatedAt).toBe(true);

      const patient = await createUser({ email: newEmail(), kind: 'patient' });
      const name = `Managed ${unique()}`;
      await expect(orgs.createOrganization({ name, type: 'team' }, { manager: patient.id })).rejects.toMatchObject({
        status: 400,
        message: `User ${patient.id} is not a practitioner.`,
        fields: { userId: ['Not a practitioner.'] },
      });
      await expect(orgs.createOrganization({ name, type: 'team' }, { manager: missing })).rejects.toMatchObject({ status: 400 });
      expect((await orgs.listOrganizations()).filter((o) => o.name === name)).toEqual([]);
      expect(await getUser(patient.id)).toEqual(patient);
    });

    it('deletes only an empty organization (409 while it holds sub-organizations, studies or patients), ending its roles', async () => {
      const inUse = { status: 409, message: 'The organization still has sub-organizations, studies or patients; remove them first.' };
      const org = await newOrganization();
      const child = await newOrganization(org.id);
      await expect(orgs.deleteOrganization(org.id)).rejects.toMatchObject(inUse);
      await orgs.deleteOrganization(child.id);
      const withPatient = await newOrganization();
      await newPatient({ organizationIds: [withPatient.id] });
      await expect(orgs.deleteOrganization(withPatient.id)).rejects.toMatchObject(inUse);
      const withStudy = await newOrganization();
      await newStudy(withStudy.id);
      await expect(orgs.deleteOrganization(withStudy.id)).rejects.toMatchObject(inUse);
      expect(await orgs.getOrganization(withStudy.id)).toBeDefined();

      const other = await newOrganization();
      const doctor = await newPractitioner([[org.id, 'member'], [other.id, 'viewer']]);
      await orgs.deleteOrganization(org.id);
      expect(await orgs.getOrganization(org.id)).toBeUndefined();
      expect(await orgs.listChildOrganizations(org.id)).toEqual([]);
      expect(await members.listOrganizationMembers(org.id)).toEqual([]);
      expect((await getPractitioner(doctor.id))?.roles).toEqual(new Map([[other.id, 'viewer']]));
      await expect(orgs.deleteOrganization(org.id)).rejects.toMatchObject({ status: 404, message: `Organization ${org.id} not found.` });
    });
  });

  describe('patients among members (caller scoping)', () => {
    const membersAmong = (orgId: number, patientIds: number[]) => directoryStore().organizations.membersAmong(orgId, patientIds);

    it('answers which of the patients named are members of an organization, in the order named, repeats kept', async () => {
      const [org, other] = [await newOrganization(), await newOrganization()];
      const [a, c] = [await newPatient({ organizationIds: [org.id] }), await newPatient({ organizationIds: [org.id, other.id] })];
      const [b, d] = [await newPatient({ organizationIds: [other.id] }), await newPatient()];
      expect(await membersAmong(org.id, [d.id, c.id, b.id, a.id])).toEqual([c.id, a.id]);
      expect(await membersAmong(org.id, [a.id, a.id])).toEqual([a.id, a.id]);
      expect(await membersAmong(other.id, [a.id, b.id, c.id])).toEqual([b.id, c.id]);
      expect(await membersAmong(org.id, [missing, a.id])).toEqual([a.id]);
      expect(await membersAmong(missing, [a.id, b.id])).toEqual([]);
      expect(await membersAmong(org.id, [])).toEqual([]);
    });

    it('follows a join and a leave made through the directory functions, and a deleted patient', async () => {
      const [org, other] = [await newOrganization(), await newOrganization()];
      const [joiner, stayer] = [await newPatient({ organizationIds: [other.id] }), await newPatient({ organizationIds: [org.id] })];
      expect(await membersAmong(org.id, [joiner.id, stayer.id])).toEqual([stayer.id]);

      await addPatientToOrganization(joiner.id, org.id);
      expect(await membersAmong(org.id, [joiner.id, stayer.id])).toEqual([joiner.id, stayer.id]);
      expect(await membersAmong(other.id, [joiner.id, stayer.id])).toEqual([joiner.id]);

      await removePatientFromOrganization(joiner.id, other.id);
      expect(await membersAmong(other.id, [joiner.id, stayer.id])).toEqual([]);
      expect(await membersAmong(org.id, [joiner.id, stayer.id])).toEqual([joiner.id, stayer.id]);

      await removePatientFromOrganization(stayer.id, org.id);
      await deletePatient(joiner.id);
      expect(await membersAmong(org.id, [joiner.id, stayer.id])).toEqual([]);
    });
  });

  describe('memberships', () => {
    it('sets, changes, lists (in user id order) and ends roles on both sides', async () => {
      const org = await newOrganization();
      const [first, second] = [await newPractitioner(), await newPractitioner()];
      expect(await members.setOrganizationRole(org.id, second.id, 'viewer')).toEqual({ created: true });
      expect(await members.setOrganizationRole(org.id, first.id, 'member')).toEqual({ created: true });
      expect(await members.setOrganizationRole(org.id, second.id, 'manager')).toEqual({ created: false });
      expect(await members.listOrganizationMembers(org.id)).toEqual([
        { userId: first.id, role: 'member' },
        { userId: second.id, role: 'manager' },
      ]);
      expect(await members.membersOfOrganizations([org.id, org.id])).toEqual([first.id, second.id]);
      expect((await getPractitioner(second.id))?.roles).toEqual(new Map([[org.id, 'manager']]));

      await tick();
      await members.removeOrganizationMember(org.id, second.id);
      expect(await members.memberRole(org.id, second.id)).toBeUndefined();
      expect(await members.listOrganizationMembers(org.id)).toEqual([{ userId: first.id, role: 'member' }]);
      const after = await getPractitioner(second.id);
      expect(after?.roles.size).toBe(0);
      expect(after!.updatedAt > second.updatedAt).toBe(true);
      await expect(members.removeOrganizationMember(org.id, second.id)).rejects.toMatchObject({
        status: 404,
        message: `User ${second.id} is not a member of organization ${org.id}.`,
      });
    });

    it('refuses an unknown organization (404) before a user who is no practitioner (400), writing nothing', async () => {
      const org = await newOrganization();
      const patient = await createUser({ email: newEmail(), kind: 'patient' });
      await expect(members.setOrganizationRole(missing, patient.id, 'member')).rejects.toMatchObject({ status: 404, message: `Organization ${missing} not found.` });
      await expect(members.setOrganizationRole(org.id, patient.id, 'member')).rejects.toMatchObject({ status: 400, message: `User ${patient.id} is not a practitioner.` });
      await expect(members.setOrganizationRole(org.id, missing, 'member')).rejects.toMatchObject({ status: 400 });
      await expect(members.setOrganizationRole(org.id, patient.id, 'owner' as never)).rejects.toMatchObject({ status: 400 });
      expect(await members.listOrganizationMembers(org.id)).toEqual([]);
      expect(await members.memberRole(org.id, patient.id)).toBeUndefined();
      expect(await getUser(patient.id)).toEqual(patient);
    });
  });
}
