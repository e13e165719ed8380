/**
 * Practitioners' memberships on the directory table, stored twice in one transaction: the relation
 * item in the organization's partition (to list its practitioners) and the role in the user's
 * `roles` map (so authenticating a token yields every role in one GetItem).
 */
import { getItem, put, queryAll, remove, transact, update, type Write } from '../../store/directory-table';
import { now } from '../fields';
import { idFromSortKey, keys, REL } from '../../store/directory-keys';
import type { Id, OrgRole } from '../model';
import { organizationMustExist } from './dynamo-relations';
import { notAMember, notAPractitioner, type MembershipRecords } from './port';

/** The relation item of a membership, in the organization's partition. */
export const memberItem = (orgId: Id, userId: Id, role: OrgRole): Write => put({ ...keys.organizationMember(orgId, userId), role });

/** The writes that give a practitioner a role in an organization (new or changed). */
export function membershipWrites(orgId: Id, userId: Id, role: OrgRole): Write[] {
  return [
    memberItem(orgId, userId, role),
    update(
      keys.user(userId),
      'SET #roles.#org = :role, #updatedAt = :now',
      {
        condition: 'attribute_exists(pk) AND #kind = :practitioner',
        names: { '#roles': 'roles', '#org': String(orgId), '#updatedAt': 'updatedAt', '#kind': 'kind' },
        values: { ':role': role, ':now': now(), ':practitioner': 'practitioner' },
      },
      () => notAPractitioner(userId),
    ),
  ];
}

/** The write that takes the role off the user item. */
function roleRemoval(orgId: Id, userId: Id): Write {
  return update(keys.user(userId), 'REMOVE #roles.#org SET #updatedAt = :now', {
    condition: 'attribute_exists(pk)',
    names: { '#roles': 'roles', '#org': String(orgId), '#updatedAt': 'updatedAt' },
    values: { ':now': now() },
  });
}

/** Ends a membership whatever is left of it (the user may be gone already). */
export async function endMembership(orgId: Id, userId: Id): Promise<void> {
  try {
    await transact([remove(keys.organizationMember(orgId, userId)), roleRemoval(orgId, userId)]);
  } catch {
    await transact([remove(keys.organizationMember(orgId, userId))]);
  }
}

export const memberships: MembershipRecords = {
  role: async (orgId, userId) => (await getItem(keys.organizationMember(orgId, userId)))?.role as OrgRole | undefined,
  list: async (orgId) => {
    const items = await queryAll({ pk: keys.organization(orgId).pk, skPrefix: REL.member });
    return items.map((i) => ({ userId: idFromSortKey(String(i.sk)), role: i.role as OrgRole }));
  },
  set: (orgId, userId, role) => transact([organizationMustExist(orgId), ...membershipWrites(orgId, userId, role)]),
  remove: (orgId, userId) =>
    transact([
      remove(keys.organizationMember(orgId, userId), { condition: 'attribute_exists(pk)' }, () => notAMember(orgId, userId)),
      roleRemoval(orgId, userId),
    ]),
};
