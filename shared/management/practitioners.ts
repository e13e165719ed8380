/**
 * Practitioner accounts through `/api/v1/practitioners`: superusers only (a practitioner may read
 * their own record). Organization memberships after creation are managed per organization.
 */
import type { Caller } from '../auth/caller';
import { hashPassword } from '../auth/passwords';
import { requirePractitioner, requireSuperuser } from '../auth/scope';
import type { Id, OrgRole, Paging, Practitioner } from '../directory/model';
import { getOrganizations } from '../directory/organizations';
import { pageOfIds } from '../directory/paging';
import { createPractitioner, deleteUser, getPractitioner, getPractitioners, listPractitionerIds, updateUser } from '../directory/users';
import { badRequest, notFound } from '../http/errors';
import { asTelecomEmail } from './errors';
import { practitionerView } from './views';

export interface NewPractitioner {
  telecomEmail: string;
  nameFamily?: string;
  nameGiven?: string;
  organizationId?: Id;
  role?: OrgRole;
  password?: string;
  superuser?: boolean;
}

export interface PractitionerChanges {
  telecomEmail?: string;
  nameFamily?: string;
  nameGiven?: string;
  password?: string;
  superuser?: boolean;
  active?: boolean;
}

async function practitionerViews(practitioners: readonly Practitioner[]) {
  const orgs = new Map((await getOrganizations([...new Set(practitioners.flatMap((p) => [...p.roles.keys()]))])).map((o) => [o.id, o]));
  return practitioners.map((p) => practitionerView(p, orgs));
}

export async function listPractitionersFor(caller: Caller, paging: Paging) {
  requireSuperuser(caller);
  const page = await pageOfIds(await listPractitionerIds(), paging, getPractitioners);
  return { count: page.count, items: await practitionerViews(page.items) };
}

export async function readPractitionerFor(caller: Caller, id: Id) {
  const practitioner = requirePractitioner(caller);
  if (practitioner.userId !== id) requireSuperuser(caller);
  const found = await getPractitioner(id);
  if (!found) throw notFound(`Practitioner ${id} not found.`);
  return (await practitionerViews([found]))[0]!;
}

export async function createPractitionerBy(caller: Caller, input: NewPractitioner) {
  requireSuperuser(caller);
  const created = await createPractitioner({
    email: input.telecomEmail,
    ...(input.nameFamily !== undefined ? { nameFamily: input.nameFamily } : {}),
    ...(input.nameGiven !== undefined ? { nameGiven: input.nameGiven } : {}),
    ...(input.password !== undefined ? { passwordHash: await hashPassword(input.password) } : {}),
    ...(input.superuser ? { superuser: true } : {}),
    organizations: input.organizationId === undefined ? [] : [{ organizationId: input.organizationId, role: input.role ?? 'member' }],
  }).catch(asTelecomEmail);
  return (await practitionerViews([created]))[0]!;
}

export async function updatePractitionerBy(caller: Caller, id: Id, changes: PractitionerChanges) {
  const admin = requireSuperuser(caller);
  if (!(await getPractitioner(id))) throw notFound(`Practitioner ${id} not found.`);
  if (id === admin.userId && (changes.superuser === false || changes.active === false)) {
    throw badRequest('You cannot remove your own superuser status or deactivate yourself.', 'business-rule');
  }
  await updateUser(id, {
    ...(changes.telecomEmail !== undefined ? { email: changes.telecomEmail } : {}),
    ...(changes.nameFamily !== undefined ? { nameFamily: changes.nameFamily } : {}),
    ...(changes.nameGiven !== undefined ? { nameGiven: changes.nameGiven } : {}),
    ...(changes.password !== undefined ? { passwordHash: await hashPassword(changes.password) } : {}),
    ...(changes.superuser !== undefined ? { superuser: changes.superuser } : {}),
    ...(changes.active !== undefined ? { active: changes.active } : {}),
  }).catch(asTelecomEmail);
  return readPractitionerFor(caller, id);
}

export async function deletePractitionerBy(caller: Caller, id: Id): Promise<void> {
  const admin = requireSuperuser(caller);
  if (id === admin.userId) throw badRequest('You cannot delete your own account.', 'business-rule');
  if (!(await getPractitioner(id))) throw notFound(`Practitioner ${id} not found.`);
  await deleteUser(id);
}
