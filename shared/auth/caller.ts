/**
 * Who is making a request, as every read and write of the service sees it. Built once per request
 * by `authenticate` from a verified token and the user's record.
 */
import type { Id, OrgRole } from '../directory/model';

interface CallerBase {
  userId: Id;
  /** Scopes granted to the token (informational: access is decided by the rules in `scope.ts`). */
  scopes: readonly string[];
  /** The OAuth client the token was issued to, when known. */
  clientId?: string;
}

export interface PatientCaller extends CallerBase {
  kind: 'patient';
  patientId: Id;
}

export interface PractitionerCaller extends CallerBase {
  kind: 'practitioner';
  /** Same number as `userId`: a practitioner is a user. */
  practitionerId: Id;
  /** Role per organization the practitioner belongs to directly. */
  roles: ReadonlyMap<Id, OrgRole>;
  superuser: boolean;
  /** The token came from one of the practitioner's API keys or backend clients (client credentials), not a sign-in. */
  viaApiKey?: true;
  /**
   * A backend service's token (SMART system scopes): it reads what its practitioner sees, on the
   * FHIR API only, only these resource types (`'*'`: every type), and writes nothing (every role
   * it holds is `viewer`, and it is no superuser).
   */
  system?: { types: '*' | ReadonlySet<string> };
}

export type Caller = PatientCaller | PractitionerCaller;

export function isPatient(caller: Caller): caller is PatientCaller {
  return caller.kind === 'patient';
}

export function isPractitioner(caller: Caller): caller is PractitionerCaller {
  return caller.kind === 'practitioner';
}
