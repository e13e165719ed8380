/**
 * A practitioner's membership of an organization, with a role. Stored twice in one transaction:
 * the relation item in the organization's partition (to list its practitioners) and the role in
 * the user's `roles` map (so authenticating a token yields every role in one GetItem).
 */
import { badRequest, notFound } from '../http/errors';
import { check, getItem, now, put, queryAll, remove, transact, update, type Write } from './db';
import { idFromSortKey, keys, REL } from './keys';
import { ORG_ROLES, type Id, type OrgRole } from './model';

export interface Membership {
  userId: Id;
  role: OrgRole;
}

export function assertRole(role: string): asserts role is OrgRole {
  if (!(ORG_ROLES as readonly string[]).includes(role)) {
    throw badRequest(`Unknown role '${role}'.`, 'code-invalid', { fields: { role: [`"${role}" is not a valid choice.`] } });
  }
}

/** The writes that give a practitioner a role in an organization (new or changed). */
export function membershipWrites(orgId: Id, userId: Id, role: OrgRole): Write[] {
  return [
    put({ ...keys.organizationMember(orgId, userId), role }),
    update(
      keys.user(userId),
      'SET #roles.#org = :role, #updatedAt = :now',
      {
        condition: 'attribute_exists(pk) AND #kind = :practitioner',
        names: { '#roles': 'roles', '#org': String(orgId), '#updatedAt': 'updatedAt', '#kind': 'kind' },
        values: { ':role': role, ':now': now(), ':practitioner': 'practitioner' },
      },
      () => badRequest(`User ${userId} is not a practitioner.`, 'not-found', { fields: { userId: ['Not a practitioner.'] } }),
    ),
  ];
}

export const organizationMustExist = (orgId: Id) =>
  check(keys.organization(orgId), 'attribute_exists(pk)', {}, () => notFound(`Organization ${orgId} not found.`));

/** Gives a practitioner a role in an organization; `created` tells a new membership from a changed role. */
export async function setOrganizationRole(orgId: Id, userId: Id, role: OrgRole): Promise<{ created: boolean }> {
  assertRole(role);
  const existing = await memberRole(orgId, userId);
  await transact([organizationMustExist(orgId), ...membershipWrites(orgId, userId, role)]);
  return { created: existing === undefined };
}

/** Ends a practitioner's membership; 404 when they were not a member. */
export async function removeOrganizationMember(orgId: Id, userId: Id): Promise<void> {
  await transact([
    remove(keys.organizationMember(orgId, userId), { condition: 'attribute_exists(pk)' }, () =>
      notFound(`User ${userId} is not a member of organization ${orgId}.`),
    ),
    ...membershipRemovalWrites(orgId, userId).slice(1),
  ]);
}

/** The writes that end a membership (relation item and role). */
export function membershipRemovalWrites(orgId: Id, userId: Id): Write[] {
  return [
    remove(keys.organizationMember(orgId, userId)),
    update(keys.user(userId), 'REMOVE #roles.#org SET #updatedAt = :now', {
      condition: 'attribute_exists(pk)',
      names: { '#roles': 'roles', '#org': String(orgId), '#updatedAt': 'updatedAt' },
      values: { ':now': now() },
    }),
  ];
}

/** Ends a membership whatever is left of it (the user may be gone already). */
export async function endMembership(orgId: Id, userId: Id): Promise<void> {
  try {
    await transact(membershipRemovalWrites(orgId, userId));
  } catch {
    await transact([remove(keys.organizationMember(orgId, userId))]);
  }
}

export async function memberRole(orgId: Id, userId: Id): Promise<OrgRole | undefined> {
  const item = await getItem(keys.organizationMember(orgId, userId));
  return item?.role as OrgRole | undefined;
}

/** The practitioners of an organization with their roles, in user id order. */
export async function listOrganizationMembers(orgId: Id): Promise<Membership[]> {
  const items = await queryAll({ pk: keys.organization(orgId).pk, skPrefix: REL.member });
  return items.map((i) => ({ userId: idFromSortKey(String(i.sk)), role: i.role as OrgRole }));
}

/** The distinct practitioners of any of these organizations, ascending. */
export async function membersOfOrganizations(orgIds: Iterable<Id>): Promise<Id[]> {
  const lists = await Promise.all([...new Set(orgIds)].map(listOrganizationMembers));
  return [...new Set(lists.flat().map((m) => m.userId))].sort((a, b) => a - b);
}
