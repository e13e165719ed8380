/**
 * The caller's own account: `users/profile` and `users/organizations`. A patient's profile shows
 * their patient record; a practitioner's their name, email and roles.
 */
import { isPatient, type Caller } from '../auth/caller';
import { getOrganizations } from '../directory/organizations';
import { getUser } from '../directory/users';
import { unauthorized } from '../http/errors';
import { readPatient } from './patients';
import { organizationView } from './views';

export async function profileOf(caller: Caller) {
  const user = await getUser(caller.userId);
  if (!user) throw unauthorized('The access token is invalid or expired.');
  if (isPatient(caller)) {
    const { id, jheUserId, identifiers, organizations } = await readPatient(caller, caller.patientId);
    return { id: user.id, patient: { id, jheUserId, identifiers, organizations }, userType: 'patient' as const, isSuperuser: false };
  }
  return {
    id: user.id,
    email: user.email,
    firstName: user.nameGiven,
    lastName: user.nameFamily,
    patient: null,
    userType: 'practitioner' as const,
    isSuperuser: user.superuser,
    settings: {},
  };
}

/** The organizations the caller belongs to directly, with their role (practitioners). */
export async function ownOrganizations(caller: Caller) {
  if (isPatient(caller)) {
    const { organizations } = await readPatient(caller, caller.patientId);
    return organizations.map((o) => ({ ...o, currentUserRole: null, children: [] }));
  }
  const orgs = await getOrganizations([...caller.roles.keys()].sort((a, b) => a - b));
  return orgs.map((o) => organizationView(o, caller.roles.get(o.id)));
}
