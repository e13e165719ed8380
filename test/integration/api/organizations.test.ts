/**
 * `/api/v1/organizations`: the list limited to the caller's organizations and their subtrees, the
 * tree, types, members, studies, and the manager / superuser rules for writes.
 *
 *   A (root) > B (child) > B1;   C (separate)
 *   manA manager of A, mA member of A, manB manager of B, mC member of C, admin superuser (no organization)
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { memberRole } from '../../../shared/directory/memberships';
import type { Organization, Patient, Practitioner } from '../../../shared/directory/model';
import { getOrganization } from '../../../shared/directory/organizations';
import { getUser } from '../../../shared/directory/users';
import { refused, resultIds, send } from '../../support/api';
import { makeOrganization, makePatient, makePractitioner, makeStudy } from '../../support/directory';

type Who = { token: string };
let A: Organization, B: Organization, B1: Organization, C: Organization;
let manA: Practitioner & Who, mA: Practitioner & Who, manB: Practitioner & Who, mC: Practitioner & Who, admin: Practitioner & Who;
let p1: Patient & Partial<Who>;

beforeAll(async () => {
  A = await makeOrganization({ name: 'A' });
  B = await makeOrganization({ name: 'B', partOf: A, type: 'dept' });
  B1 = await makeOrganization({ name: 'B1', partOf: B, type: 'team' });
  C = await makeOrganization({ name: 'C' });
  manA = await makePractitioner({ organizations: [A], role: 'manager' });
  mA = await makePractitioner({ organizations: [A] });
  manB = await makePractitioner({ organizations: [B], role: 'manager' });
  mC = await makePractitioner({ organizations: [C] });
  admin = await makePractitioner({ superuser: true });
  p1 = await makePatient({ organizations: [B], login: true });
});

describe('reading organizations', () => {
  it('lists the caller\'s organizations and everything below them, with the caller\'s role', async () => {
    const res = await send('GET', '/api/v1/organizations', manA.token);
    expect(res.status).toBe(200);
    expect(resultIds(res.json)).toEqual([A.id, B.id, B1.id]);
    expect(res.json.results[0]).toEqual({ id: A.id, name: 'A', type: 'prov', partOf: null, currentUserRole: 'manager', children: [] });
    expect(res.json.results[1]).toMatchObject({ id: B.id, partOf: A.id, currentUserRole: null });
    expect(resultIds((await send('GET', '/api/v1/organizations', manB.token)).json)).toEqual([B.id, B1.id]);
    expect(resultIds((await send('GET', '/api/v1/organizations', mC.token)).json)).toEqual([C.id]);
    expect(resultIds((await send('GET', '/api/v1/organizations', admin.token)).json)).toEqual([]);
    expect(resultIds((await send('GET', '/api/v1/organizations', p1.token)).json)).toEqual([B.id]);
    expect(resultIds((await send('GET', `/api/v1/organizations?part_of=${B.id}`, manA.token)).json)).toEqual([B1.id]);
  });

  it('reads one organization and its tree within reach; 404 beyond', async () => {
    expect((await send('GET', `/api/v1/organizations/${B1.id}`, manA.token)).json).toMatchObject({ id: B1.id, name: 'B1' });
    const tree = await send('GET', `/api/v1/organizations/${A.id}/tree`, mA.token);
    expect(tree.json).toMatchObject({ id: A.id, currentUserRole: 'member', children: [{ id: B.id, children: [{ id: B1.id, children: [] }] }] });
    expect((await send('GET', `/api/v1/organizations/${A.id}`, manB.token)).status).toBe(404);
    expect((await send('GET', `/api/v1/organizations/${C.id}/tree`, manA.token)).status).toBe(404);
    expect((await send('GET', `/api/v1/organizations/${C.id}`, p1.token)).status).toBe(404);
  });

  it('lists organization types', async () => {
    const res = await send('GET', '/api/v1/organizations/types', mC.token);
    expect(res.json).toMatchObject({ prov: 'Healthcare Provider', dept: 'Hospital Department' });
  });

  it('shows members and studies to the organization\'s own practitioners only', async () => {
    const users = await send('GET', `/api/v1/organizations/${A.id}/users`, mA.token);
    expect(users.json).toEqual([
      { id: manA.id, email: manA.email, firstName: manA.nameGiven, lastName: manA.nameFamily, role: 'manager' },
      { id: mA.id, email: mA.email, firstName: mA.nameGiven, lastName: mA.nameFamily, role: 'member' },
    ]);
    expect((await send('GET', `/api/v1/organizations/${B.id}/users`, manA.token)).status).toBe(403);
    expect((await send('GET', `/api/v1/organizations/${A.id}/users`, mC.token)).status).toBe(404);
    expect((await send('GET', `/api/v1/organizations/${B.id}/users`, p1.token)).status).toBe(403);
    const study = await makeStudy({ organization: B, name: 'B study', patients: [p1] });
    expect((await send('GET', `/api/v1/organizations/${B.id}/studies`, manB.token)).json.map((s: { id: number }) => s.id)).toEqual([study.id]);
    expect((await send('GET', `/api/v1/organizations/${B.id}/studies`, p1.token)).json.map((s: { id: number }) => s.id)).toEqual([study.id]);
    expect((await send('GET', `/api/v1/organizations/${B.id}/studies`, manA.token)).status).toBe(403);
  });
});

describe('writing organizations', () => {
  it('a manager creates a sub-organization and becomes its manager; a superuser a top-level one', async () => {
    const sub = await send('POST', '/api/v1/organizations', manA.token, { name: 'A2', type: 'team', part_of: A.id });
    expect(sub.status).toBe(201);
    expect(sub.json).toMatchObject({ name: 'A2', partOf: A.id, currentUserRole: 'manager' });
    expect(await memberRole(sub.json.id, manA.id)).toBe('manager');
    const top = await send('POST', '/api/v1/organizations', admin.token, { name: 'Top', type: 'edu' });
    expect(top.status).toBe(201);
    expect(await memberRole(top.json.id, admin.id)).toBe('manager');
  });

  it('refuses members, other trees, top-level creation by non-superusers and bad bodies', async () => {
    expect((await refused('POST', '/api/v1/organizations', mA.token, { name: 'X', type: 'team', part_of: A.id })).status).toBe(403);
    expect((await refused('POST', '/api/v1/organizations', manA.token, { name: 'X', type: 'team', part_of: C.id })).status).toBe(403);
    expect((await refused('POST', '/api/v1/organizations', manA.token, { name: 'X', type: 'team' })).status).toBe(403);
    expect((await refused('POST', '/api/v1/organizations', p1.token, { name: 'X', type: 'team', part_of: B.id })).status).toBe(403);
    expect((await refused('POST', '/api/v1/organizations', manA.token, { name: 'X', type: 'castle', part_of: A.id })).json).toEqual({ type: ['"castle" is not a valid choice.'] });
    expect((await refused('POST', '/api/v1/organizations', manA.token, { name: 'X', type: 'team', part_of: A.id, manager: 5 })).json).toEqual({ manager: ['Unknown field.'] });
  });

  it('a manager renames; moving to the top needs a superuser; cycles are refused', async () => {
    expect((await send('PATCH', `/api/v1/organizations/${B1.id}`, manB.token, { name: 'B-one' })).status).toBe(403); // manB is not a member of B1
    expect((await send('PATCH', `/api/v1/organizations/${B.id}`, manB.token, { name: 'B renamed' })).json).toMatchObject({ name: 'B renamed' });
    expect((await refused('PATCH', `/api/v1/organizations/${B.id}`, manB.token, { part_of: null })).status).toBe(403);
    expect((await refused('PATCH', `/api/v1/organizations/${A.id}`, manA.token, { part_of: B.id })).status).toBe(403);
    const both = await makePractitioner({ roles: [[A, 'manager'], [B, 'manager']] });
    expect((await refused('PATCH', `/api/v1/organizations/${A.id}`, both.token, { part_of: B.id })).json).toEqual({ partOf: ['This would make the organization tree a cycle.'] });
    expect((await refused('PATCH', `/api/v1/organizations/${A.id}`, mA.token, { name: 'Y' })).status).toBe(403);
  });

  it('deletes an empty sub-organization (manager of it or its parent); 409 while it holds patients', async () => {
    const empty = await send('POST', '/api/v1/organizations', manA.token, { name: 'Temp', type: 'team', part_of: A.id });
    expect((await refused('DELETE', `/api/v1/organizations/${empty.json.id}`, mA.token)).status).toBe(403);
    expect((await send('DELETE', `/api/v1/organizations/${empty.json.id}`, manA.token)).status).toBe(204);
    expect(await getOrganization(empty.json.id)).toBeUndefined();
    expect((await refused('DELETE', `/api/v1/organizations/${B.id}`, manA.token)).status).toBe(409);
    expect((await refused('DELETE', `/api/v1/organizations/${A.id}`, manA.token)).status).toBe(403);
  });

  it('a manager adds, changes and removes practitioners', async () => {
    const newcomer = await makePractitioner();
    const added = await send('POST', `/api/v1/organizations/${A.id}/user`, manA.token, { jhe_user_id: newcomer.id, organization_partitioner_role: 'viewer' });
    expect(added.status).toBe(201);
    expect(added.json).toEqual({ id: newcomer.id, email: newcomer.email, firstName: newcomer.nameGiven, lastName: newcomer.nameFamily, role: 'viewer' });
    expect((await send('POST', `/api/v1/organizations/${A.id}/user`, manA.token, { user_id: newcomer.id, role: 'member' })).status).toBe(200);
    expect((await getUser(newcomer.id))!.roles.get(A.id)).toBe('member');
    expect((await refused('POST', `/api/v1/organizations/${A.id}/user`, mA.token, { user_id: newcomer.id, role: 'manager' })).status).toBe(403);
    expect((await refused('POST', `/api/v1/organizations/${A.id}/user`, manA.token, { user_id: p1.userId, role: 'member' })).status).toBe(400);
    expect((await refused('POST', `/api/v1/organizations/${A.id}/user`, manA.token, { user_id: newcomer.id, role: 'owner' })).status).toBe(400);
    expect((await refused('POST', `/api/v1/organizations/${C.id}/user`, manA.token, { user_id: newcomer.id, role: 'member' })).status).toBe(404);
    expect((await send('DELETE', `/api/v1/organizations/${A.id}/remove_user`, manA.token, { jhe_user_id: newcomer.id })).status).toBe(204);
    expect((await getUser(newcomer.id))!.roles.has(A.id)).toBe(false);
    expect((await refused('DELETE', `/api/v1/organizations/${A.id}/remove_user`, manA.token, { user_id: newcomer.id })).status).toBe(404);
  });
});
