import { describe, expect, it } from 'vitest';
import { listOrganizationMembers, memberRole, removeOrganizationMember, setOrganizationRole } from '../../../shared/directory/memberships';
import {
  ancestorsOf,
  createOrganization,
  deleteOrganization,
  getOrganization,
  getOrganizations,
  listChildOrganizations,
  listOrganizations,
  organizationTree,
  updateOrganization,
} from '../../../shared/directory/organizations';
import { getPractitioner } from '../../../shared/directory/users';
import { makeOrganization, makePatient, makePractitioner, makeStudy } from '../../support/directory';
import { directoryRows } from '../../support/store';

describe('organizations', () => {
  it('creates, reads, lists and updates a tree of organizations', async () => {
    const root = await createOrganization({ name: 'Root', type: 'prov' });
    const child = await createOrganization({ name: 'Child', type: 'dept', partOf: root.id });
    const grandchild = await createOrganization({ name: 'Grandchild', type: 'team', partOf: child.id });
    expect(await getOrganization(child.id)).toEqual(child);
    expect(child).toMatchObject({ name: 'Child', type: 'dept', partOf: root.id });
    expect(child.createdAt).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    expect((await getOrganizations([grandchild.id, root.id, 999999])).map((o) => o.id)).toEqual([grandchild.id, root.id]);
    expect((await listChildOrganizations(root.id)).map((o) => o.id)).toEqual([child.id]);
    expect((await listChildOrganizations(undefined)).map((o) => o.id)).toContain(root.id);
    expect((await listOrganizations()).map((o) => o.id)).toEqual(expect.arrayContaining([root.id, child.id, grandchild.id]));
    const tree = await organizationTree(root.id);
    expect(tree?.children[0]?.children[0]?.id).toBe(grandchild.id);
    expect((await ancestorsOf(grandchild.id)).map((o) => o.id)).toEqual([child.id, root.id]);

    const renamed = await updateOrganization(child.id, { name: 'Renamed', partOf: null });
    expect(renamed.partOf).toBeUndefined();
    expect(await getOrganization(child.id)).toEqual(renamed);
    expect((await listChildOrganizations(root.id)).map((o) => o.id)).toEqual([]);
    expect((await listChildOrganizations(undefined)).map((o) => o.id)).toContain(child.id);
  });

  it('refuses an unknown type, a missing parent and a cycle, changing nothing', async () => {
    await expect(createOrganization({ name: 'X', type: 'castle' as never })).rejects.toMatchObject({ status: 400, fields: { type: [expect.any(String)] } });
    await expect(createOrganization({ name: 'X', type: 'prov', partOf: 987654 })).rejects.toMatchObject({ status: 400 });
    const a = await makeOrganization();
    const b = await makeOrganization({ partOf: a });
    await expect(updateOrganization(a.id, { partOf: b.id })).rejects.toMatchObject({ status: 400 });
    await expect(updateOrganization(a.id, { partOf: a.id })).rejects.toMatchObject({ status: 400 });
    expect((await getOrganization(a.id))?.partOf).toBeUndefined();
    await expect(updateOrganization(987654, { name: 'x' })).rejects.toMatchObject({ status: 404 });
  });

  it('makes the creator of a sub-organization its manager', async () => {
    const parent = await makeOrganization();
    const doctor = await makePractitioner({ organizations: [parent], role: 'manager' });
    const sub = await createOrganization({ name: 'Sub', type: 'team', partOf: parent.id }, { manager: doctor.id });
    expect(await memberRole(sub.id, doctor.id)).toBe('manager');
    expect((await getPractitioner(doctor.id))?.roles.get(sub.id)).toBe('manager');
  });

  it('deletes an empty organization only, and its practitioners lose their role there', async () => {
    const org = await makeOrganization();
    const doctor = await makePractitioner({ organizations: [org] });
    const child = await makeOrganization({ partOf: org });
    await expect(deleteOrganization(org.id)).rejects.toMatchObject({ status: 409 });
    await deleteOrganization(child.id);
    const withPatient = await makeOrganization();
    await makePatient({ organizations: [withPatient] });
    await expect(deleteOrganization(withPatient.id)).rejects.toMatchObject({ status: 409 });
    const withStudy = await makeOrganization();
    await makeStudy({ organization: withStudy });
    await expect(deleteOrganization(withStudy.id)).rejects.toMatchObject({ status: 409 });
    expect(await getOrganization(withStudy.id)).toBeDefined();

    await deleteOrganization(org.id);
    expect(await getOrganization(org.id)).toBeUndefined();
    expect((await getPractitioner(doctor.id))?.roles.has(org.id)).toBe(false);
    expect(await listOrganizationMembers(org.id)).toEqual([]);
    await expect(deleteOrganization(org.id)).rejects.toMatchObject({ status: 404 });
  });
});

describe('practitioner memberships', () => {
  it('sets, changes, lists and removes roles on both sides at once', async () => {
    const org = await makeOrganization();
    const doctor = await makePractitioner();
    expect(await setOrganizationRole(org.id, doctor.id, 'viewer')).toEqual({ created: true });
    expect(await setOrganizationRole(org.id, doctor.id, 'manager')).toEqual({ created: false });
    expect(await listOrganizationMembers(org.id)).toEqual([{ userId: doctor.id, role: 'manager' }]);
    expect((await getPractitioner(doctor.id))?.roles).toEqual(new Map([[org.id, 'manager']]));
    await removeOrganizationMember(org.id, doctor.id);
    expect(await listOrganizationMembers(org.id)).toEqual([]);
    expect((await getPractitioner(doctor.id))?.roles.size).toBe(0);
    await expect(removeOrganizationMember(org.id, doctor.id)).rejects.toMatchObject({ status: 404 });
  });

  it('refuses unknown roles, organizations and non-practitioners, writing nothing', async () => {
    const org = await makeOrganization();
    const doctor = await makePractitioner();
    const patient = await makePatient({ organizations: [org], login: true });
    const before = await directoryRows();
    await expect(setOrganizationRole(org.id, doctor.id, 'owner' as never)).rejects.toMatchObject({ status: 400 });
    await expect(setOrganizationRole(987654, doctor.id, 'member')).rejects.toMatchObject({ status: 404 });
    await expect(setOrganizationRole(org.id, patient.userId!, 'member')).rejects.toMatchObject({ status: 400 });
    await expect(setOrganizationRole(org.id, 987654, 'member')).rejects.toMatchObject({ status: 400 });
    expect(await listOrganizationMembers(org.id)).toEqual([]);
    expect(await memberRole(987654, doctor.id)).toBeUndefined();
    expect(await directoryRows()).toEqual(before);
  });
});
