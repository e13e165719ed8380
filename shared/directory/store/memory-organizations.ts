/** The in-memory twin of the organizations and of practitioners' memberships (read from the users' roles). */
import { copy, counter } from '../../store/memory';
import { now } from '../fields';
import type { Id, Membership, OrgRole } from '../model';
import type { MemoryTables } from './memory-tables';
import { notAMember, notAPractitioner, organizationInUse, organizationNotFound, parentNotFound, type DirectoryStore } from './port';

export function assertOrganization(t: MemoryTables, orgId: Id): void {
  if (!t.organizations.has(orgId)) throw organizationNotFound(orgId);
}

function assertPractitioner(t: MemoryTables, userId: Id): void {
  if (!(t.users.has(userId) && t.users.stored(userId).kind === 'practitioner')) throw notAPractitioner(userId);
}

/** Sets or takes away (`undefined`) a role on the user, which stamps it as changed. */
function setRole(t: MemoryTables, orgId: Id, userId: Id, role: OrgRole | undefined): void {
  const user = t.users.stored(userId);
  const roles = new Map(user.roles);
  if (role === undefined) roles.delete(orgId);
  else roles.set(orgId, role);
  user.roles = roles;
  user.updatedAt = now();
}

const membersOf = (t: MemoryTables, orgId: Id): Membership[] =>
  t.users.all().flatMap((user) => {
    const role = user.roles.get(orgId);
    return role === undefined ? [] : [{ userId: user.id, role }];
  });

export function memoryOrganizations(t: MemoryTables): Pick<DirectoryStore, 'organizations' | 'memberships'> {
  const { organizations } = t;
  const assertParent = (parent: Id) => {
    if (!organizations.has(parent)) throw parentNotFound(parent);
  };
  const children = (partOf: Id | undefined) => organizations.all().filter((o) => o.partOf === partOf);
  const patientIds = (orgId: Id) => t.patients.all().filter((p) => p.organizationIds.includes(orgId)).map((p) => p.id);
  const studyIds = (orgId: Id) => t.studies.all().filter((s) => s.organizationId === orgId).map((s) => s.id);

  return {
    organizations: {
      newId: counter(),
      insert: async (org, manager) => {
        if (org.partOf) assertParent(org.partOf);
        if (manager) assertPractitioner(t, manager);
        organizations.insert(org);
        if (manager) setRole(t, org.id, manager, 'manager');
      },
      get: organizations.get,
      getMany: organizations.getMany,
      list: organizations.list,
      children: async (partOf) => children(partOf).map(copy),
      read: organizations.read,
      update: async (read, next) => {
        organizations.assertAt(read);
        if (next.partOf !== undefined && next.partOf !== read.entity.partOf) assertParent(next.partOf);
        organizations.replace(read, next);
      },
      remove: async (id) => {
        organizations.stored(id);
        if (children(id).length > 0 || patientIds(id).length > 0 || studyIds(id).length > 0) throw organizationInUse();
        for (const { userId } of membersOf(t, id)) setRole(t, id, userId, undefined);
        organizations.remove(id);
      },
      patientIds: async (orgId) => patientIds(orgId),
      // Read from the patients' records, as `patientIds`: a join or leave through the patients' twin shows at once.
      membersAmong: async (orgId, ids) => ids.filter((id) => t.patients.has(id) && t.patients.stored(id).organizationIds.includes(orgId)),
      studyIds: async (orgId) => studyIds(orgId),
    },
    memberships: {
      role: async (orgId, userId) => (t.users.has(userId) ? t.users.stored(userId).roles.get(orgId) : undefined),
      list: async (orgId) => membersOf(t, orgId),
      set: async (orgId, userId, role) => {
        assertOrganization(t, orgId);
        assertPractitioner(t, userId);
        setRole(t, orgId, userId, role);
      },
      remove: async (orgId, userId) => {
        if (!(t.users.has(userId) && t.users.stored(userId).roles.has(orgId))) throw notAMember(orgId, userId);
        setRole(t, orgId, userId, undefined);
      },
    },
  };
}
