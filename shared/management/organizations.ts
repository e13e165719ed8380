/**
 * Organizations through `/api/v1/`. Listed and read within the caller's reach (their own and the
 * organizations below them); sub-organizations are created, changed and deleted by managers, top-
 * level ones by superusers; the creator of an organization becomes its manager. Practitioner
 * membership is managed by the organization's managers. Members and studies of an organization are
 * shown to its own practitioners only.
 */
import { isPatient, type Caller, type PractitionerCaller } from '../auth/caller';
import { requireRole, requireSuperuser, studyScope } from '../auth/scope';
import { listOrganizationMembers, removeOrganizationMember, setOrganizationRole } from '../directory/memberships';
import { ORGANIZATION_TYPES, type Id, type Organization, type OrganizationType, type OrgRole, type Paging } from '../directory/model';
import {
  createOrganization,
  deleteOrganization,
  getOrganizations,
  organizationTree,
  updateOrganization,
  type OrganizationNode,
  type OrganizationPatch,
} from '../directory/organizations';
import { pageOf } from '../directory/paging';
import { getStudies } from '../directory/studies';
import { getUser, getUsers } from '../directory/users';
import { fieldErrors, forbidden, notFound } from '../http/errors';
import { assertCanSeeOrganization, organizationReach } from './access';
import { studyViews } from './studies';
import { memberView, organizationView, type OrganizationView } from './views';

const roleOf = (caller: Caller, orgId: Id): OrgRole | undefined => (isPatient(caller) ? undefined : caller.roles.get(orgId));

export async function listOrganizationsFor(caller: Caller, partOf: Id | null | undefined, paging: Paging) {
  const reach = [...(await organizationReach(caller))].sort((a, b) => a - b);
  const all = await getOrganizations(reach);
  const chosen = partOf === undefined ? all : all.filter((o) => (o.partOf ?? null) === partOf);
  const page = pageOf(chosen, paging);
  return { count: page.count, items: page.items.map((o) => organizationView(o, roleOf(caller, o.id))) };
}

export async function readOrganization(caller: Caller, organizationId: Id): Promise<OrganizationView> {
  const org = await assertCanSeeOrganization(caller, organizationId);
  return organizationView(org, roleOf(caller, org.id));
}

export async function organizationTreeFor(caller: Caller, organizationId: Id): Promise<OrganizationView> {
  await assertCanSeeOrganization(caller, organizationId);
  const tree = await organizationTree(organizationId);
  if (!tree) throw notFound(`Organization ${organizationId} not found.`);
  const view = (node: OrganizationNode): OrganizationView => organizationView(node, roleOf(caller, node.id), node.children.map(view));
  return view(tree);
}

export const organizationTypes = (): Record<OrganizationType, string> => ({ ...ORGANIZATION_TYPES });

export interface NewOrganization {
  name: string;
  type: OrganizationType;
  partOf?: Id;
}

/** A top-level organization needs a superuser; a sub-organization the manager role in its parent. */
function requireParentAuthority(caller: PractitionerCaller, parent: Id | undefined): PractitionerCaller {
  return parent === undefined ? requireSuperuser(caller) : requireRole(caller, parent, 'manager');
}

export async function createOrganizationBy(caller: PractitionerCaller, input: NewOrganization): Promise<OrganizationView> {
  const practitioner = requireParentAuthority(caller, input.partOf);
  const org = await createOrganization(input, { manager: practitioner.userId });
  return organizationView(org, 'manager');
}

/** The organization, if the caller may change it: manager there (404 when out of reach). */
async function organizationToManage(caller: PractitionerCaller, organizationId: Id): Promise<Organization> {
  const org = await assertCanSeeOrganization(caller, organizationId);
  requireRole(caller, organizationId, 'manager');
  return org;
}

export async function updateOrganizationBy(caller: PractitionerCaller, organizationId: Id, patch: OrganizationPatch): Promise<OrganizationView> {
  const org = await organizationToManage(caller, organizationId);
  if (patch.partOf !== undefined && (patch.partOf ?? undefined) !== org.partOf) requireParentAuthority(caller, patch.partOf ?? undefined);
  const next = await updateOrganization(organizationId, patch);
  return organizationView(next, roleOf(caller, next.id));
}

/**
 * Deletes an organization: a sub-organization by a manager of it or of its parent, a top-level one
 * by a superuser who manages it. 409 while it still holds sub-organizations, studies or patients.
 */
export async function deleteOrganizationBy(caller: PractitionerCaller, organizationId: Id): Promise<void> {
  const org = await assertCanSeeOrganization(caller, organizationId);
  if (org.partOf === undefined) {
    requireSuperuser(caller);
    requireRole(caller, org.id, 'manager');
  } else if (caller.roles.get(org.id) !== 'manager') {
    requireRole(caller, org.partOf, 'manager');
  }
  await deleteOrganization(organizationId);
}

// --- members and studies ---------------------------------------------------------------------------

/** The organization's own practitioners (any role) may see who else belongs to it. */
function requireMembership(caller: PractitionerCaller, organizationId: Id): void {
  if (!caller.roles.has(organizationId)) throw forbidden(`You are not a member of organization ${organizationId}.`);
}

export async function listMembers(caller: PractitionerCaller, organizationId: Id) {
  await assertCanSeeOrganization(caller, organizationId);
  requireMembership(caller, organizationId);
  const members = await listOrganizationMembers(organizationId);
  const users = new Map((await getUsers(members.map((m) => m.userId))).map((u) => [u.id, u]));
  return members.flatMap((m) => {
    const user = users.get(m.userId);
    return user ? [memberView(user, m.role)] : [];
  });
}

export async function listOrganizationStudies(caller: Caller, organizationId: Id) {
  await assertCanSeeOrganization(caller, organizationId);
  if (!isPatient(caller)) requireMembership(caller, organizationId);
  return studyViews(await getStudies(await studyScope(caller, { organization: organizationId })));
}

/** Gives a practitioner a role in the organization (manager only); `created` tells a new membership from a changed role. */
export async function setMemberRole(caller: PractitionerCaller, organizationId: Id, userId: Id, role: OrgRole) {
  await organizationToManage(caller, organizationId);
  const user = await getUser(userId);
  if (!user || user.kind !== 'practitioner') throw fieldErrors({ userId: [`Invalid pk "${userId}" - object does not exist.`] });
  const { created } = await setOrganizationRole(organizationId, userId, role);
  return { created, member: memberView(user, role) };
}

export async function removeMember(caller: PractitionerCaller, organizationId: Id, userId: Id): Promise<void> {
  await organizationToManage(caller, organizationId);
  await removeOrganizationMember(organizationId, userId);
}
