/**
 * Practitioner accounts through `/api/v1/practitioners`: superusers only (a practitioner may read
 * their own record). Organization memberships after creation are managed per organization.
 */
import type { PractitionerCaller } from '../auth/caller';
import { hashPassword } from '../auth/passwords';
import { requireSuperuser } from '../auth/scope';
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
  isSuperuser?: boolean;
}

export interface PractitionerChanges {
  telecomEmail?: string;
  nameFamily?: string;
  nameGiven?: string;
  password?: string;
  isSuperuser?: boolean;
  isActive?: boolean;
}

async function practitionerViews(practitioners: readonly Practitioner[]) {
  const orgs = new Map((await getOrganizations([...new Set(practitioners.flatMap((p) => [...p.roles.keys()]))])).map((o) => [o.id, o]));
  return practitioners.map((p) => practitionerView(p, orgs));
}

export async function listPractitionersFor(caller: PractitionerCaller, paging: Paging) {
  requireSuperuser(caller);
  const page = await pageOfIds(await listPractitionerIds(), paging, getPractitioners);
  return { count: page.count, items: await practitionerViews(page.items) };
}

export async function readPractitionerFor(caller: PractitionerCaller, id: Id) {
  if (caller.userId !== id) requireSuperuser(caller);
  const found = await getPractitioner(id);
  if (!found) throw notFound(`Practitioner ${id} not found.`);
  return (await practitionerViews([found]))[0]!;
}

export async function createPractitionerBy(caller: PractitionerCaller, input: NewPractitioner) {
  requireSuperuser(caller);
  const created = await createPractitioner({
    email: input.telecomEmail,
    nameFamily: input.nameFamily,
    nameGiven: input.nameGiven,
    passwordHash: input.password === undefined ? undefined : await hashPassword(input.password),
    superuser: input.isSuperuser,
    organizations: input.organizationId === undefined ? [] : [{ organizationId: input.organizationId, role: input.role ?? 'member' }],
  }).catch(asTelecomEmail);
  return (await practitionerViews([created]))[0]!;
}

export async function updatePractitionerBy(caller: PractitionerCaller, id: Id, changes: PractitionerChanges) {
  requireSuperuser(caller);
  if (!(await getPractitioner(id))) throw notFound(`Practitioner ${id} not found.`);
  if (id === caller.userId && (changes.isSuperuser === false || changes.isActive === false)) {
    throw badRequest('You cannot remove your own superuser status or deactivate yourself.', 'business-rule');
  }
  // Absent (undefined) fields are left as they are.
  await updateUser(id, {
    email: changes.telecomEmail,
    nameFamily: changes.nameFamily,
    nameGiven: changes.nameGiven,
    passwordHash: changes.password === undefined ? undefined : await hashPassword(changes.password),
    superuser: changes.isSuperuser,
    active: changes.isActive,
  }).catch(asTelecomEmail);
  return readPractitionerFor(caller, id);
}

export async function deletePractitionerBy(caller: PractitionerCaller, id: Id): Promise<void> {
  requireSuperuser(caller);
  if (id === caller.userId) throw badRequest('You cannot delete your own account.', 'business-rule');
  if (!(await getPractitioner(id))) throw notFound(`Practitioner ${id} not found.`);
  await deleteUser(id);
}
