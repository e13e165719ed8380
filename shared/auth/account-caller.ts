/**
 * The caller an account acts as, from its record and what its token adds: for a request (after
 * `authenticate.ts` checked the token) and for work the account started that runs without one.
 */
import type { User } from '../directory/model';
import { systemScopeTypes } from './claims';
import type { Caller } from './caller';

/**
 * The caller an account acts as, as its record stands now: what a token's claims add (scopes, the
 * client) given apart. For work the account started that runs without a request (an export's
 * parts). `undefined` when the account may not act (deactivated, or a patient login without its patient).
 */
export function accountCaller(user: User, token: { scopes: readonly string[]; clientId?: string; viaApiKey?: boolean }): Caller | undefined {
  if (!user.active) return undefined;
  const client = token.clientId !== undefined ? { clientId: token.clientId } : {};
  if (user.kind === 'patient') {
    if (user.patientId === undefined) return undefined;
    return { kind: 'patient', userId: user.id, patientId: user.patientId, scopes: [...token.scopes], ...client };
  }
  const viaApiKey = token.viaApiKey ? { viaApiKey: true as const } : {};
  const scopes = [...token.scopes];
  const systemTypes = systemScopeTypes(scopes);
  if (systemTypes) {
    // A backend service reads as its practitioner does (reads do not depend on the role) and writes nothing.
    const roles = new Map([...user.roles.keys()].map((org) => [org, 'viewer' as const]));
    return { kind: 'practitioner', userId: user.id, practitionerId: user.id, roles, superuser: false, scopes, ...client, ...viaApiKey, system: { types: systemTypes } };
  }
  return { kind: 'practitioner', userId: user.id, practitionerId: user.id, roles: user.roles, superuser: user.superuser, scopes, ...client, ...viaApiKey };
}
