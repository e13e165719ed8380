/**
 * A practitioner's membership of an organization, with a role: kept on both sides at once, the
 * organization's list of practitioners and the user's `roles` (so authenticating a token yields
 * every role in one read).
 */
import { badRequest } from '../http/errors';
import { ORG_ROLES, type Id, type OrgRole } from './model';
import { directoryStore } from './store/current';

export type { Membership } from './model';

export function assertRole(role: string): asserts role is OrgRole {
  if (!(ORG_ROLES as readonly string[]).includes(role)) {
    throw badRequest(`Unknown role '${role}'.`, 'code-invalid', { fields: { role: [`"${role}" is not a valid choice.`] } });
  }
}

/** Gives a practitioner a role in an organization; `created` tells a new membership from a changed role. */
export async function setOrganizationRole(orgId: Id, userId: Id, role: OrgRole): Promise<{ created: boolean }> {
  assertRole(role);
  const { memberships } = directoryStore();
  const existing = await memberships.role(orgId, userId);
  await memberships.set(orgId, userId, role);
  return { created: existing === undefined };
}

/** Ends a practitioner's membership; 404 when they were not a member. */
export const removeOrganizationMember = (orgId: Id, userId: Id): Promise<void> => directoryStore().memberships.remove(orgId, userId);

export const memberRole = (orgId: Id, userId: Id): Promise<OrgRole | undefined> => directoryStore().memberships.role(orgId, userId);

/** The practitioners of an organization with their roles, in user id order. */
export const listOrganizationMembers = (orgId: Id) => directoryStore().memberships.list(orgId);

/** The distinct practitioners of any of these organizations, ascending. */
export async function membersOfOrganizations(orgIds: Iterable<Id>): Promise<Id[]> {
  const lists = await Promise.all([...new Set(orgIds)].map(listOrganizationMembers));
  return [...new Set(lists.flat().map((m) => m.userId))].sort((a, b) => a - b);
}
