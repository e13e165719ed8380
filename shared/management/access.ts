/**
 * Who may manage what through `/api/v1/`, on top of the read rules of `shared/auth/scope.ts`:
 *
 * - viewer: reads only;
 * - member: patients, studies (and their patients, requested codes, data sources) and consents of
 *   the organization;
 * - manager: as member, plus the organization's practitioners and its sub-organizations;
 * - superuser: practitioners, data sources and top-level organizations.
 *
 * Roles are per organization and direct (no inheritance down the tree). The organization tree
 * itself is visible below each organization a practitioner belongs to, so a manager can find the
 * sub-organizations they may be given roles in; a patient sees only their own organizations.
 */
import { isPatient, type Caller, type PractitionerCaller } from '../auth/caller';
import { assertCanReadPatient, requireRole } from '../auth/scope';
import { roleAtLeast, type Id, type Organization, type OrgRole, type Patient } from '../directory/model';
import { getOrganization, listChildOrganizations } from '../directory/organizations';
import { getPatient } from '../directory/patients';
import { fieldErrors, forbidden, notFound } from '../http/errors';

/** Organizations the caller may look at: their own and, for a practitioner, every one below them. */
export async function organizationReach(caller: Caller): Promise<Set<Id>> {
  if (isPatient(caller)) return new Set((await getPatient(caller.patientId))?.organizationIds ?? []);
  const reach = new Set<Id>();
  let frontier = [...caller.roles.keys()];
  while (frontier.length > 0) {
    frontier = frontier.filter((id) => !reach.has(id));
    frontier.forEach((id) => reach.add(id));
    const children = await Promise.all(frontier.map(listChildOrganizations));
    frontier = children.flat().map((o) => o.id);
  }
  return reach;
}

/** The organization, if within the caller's reach; 404 otherwise, as for a missing one. */
export async function assertCanSeeOrganization(caller: Caller, organizationId: Id): Promise<Organization> {
  const org = (await organizationReach(caller)).has(organizationId) ? await getOrganization(organizationId) : undefined;
  if (!org) throw notFound(`Organization ${organizationId} not found.`);
  return org;
}

/**
 * The patient, if the caller may change their record: a practitioner who can see them with at
 * least `minimum` in one of the patient's organizations (in `organizationId` when given, which the
 * patient must belong to). 404 for a patient out of sight; 403 for a role too weak.
 */
export async function assertCanManagePatient(caller: PractitionerCaller, patientId: Id, organizationId?: Id, minimum: OrgRole = 'member'): Promise<Patient> {
  const patient = await assertCanReadPatient(caller, patientId);
  if (organizationId !== undefined) {
    if (!patient.organizationIds.includes(organizationId)) {
      throw fieldErrors({ organizationId: [`Patient ${patientId} is not a member of organization ${organizationId}.`] });
    }
    requireRole(caller, organizationId, minimum);
    return patient;
  }
  if (!patient.organizationIds.some((org) => roleAtLeast(caller.roles.get(org), minimum))) {
    throw forbidden(`Changing this patient needs the ${minimum} role in one of their organizations.`);
  }
  return patient;
}
