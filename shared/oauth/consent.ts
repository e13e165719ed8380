/**
 * Consent: which clients must ask the person before a code is issued, and what the consent page
 * says a client will be able to do. The service's own clients (`service-clients.ts`: the patient
 * portal and the start page's sign-in) are the service itself and skip it; every other client that
 * signs people in is asked, once per scope set, and the answer is remembered (`approvals.ts`).
 *
 * What a client can do follows from the resource its tokens are for and the account that signs in,
 * not from the scopes alone: scopes describe a token, the account's own access decides what it
 * reaches (`shared/auth/scope.ts`). So the page states the account's reach through that resource,
 * and the scopes add what they name (who you are, your email, your name, staying connected).
 */
import type { TokenResource } from '../auth/claims';
import { MCP_PATH, FHIR_BASES } from '../http/families';
import type { OAuthClient, UserKind } from '../directory/model';
import { SERVICE_CLIENTS } from './service-clients';

const FIRST_PARTY: ReadonlySet<string> = new Set(SERVICE_CLIENTS.map((c) => c.clientId));

/** Whether the person is asked before this client gets a code (every client but the service's own). */
export function needsConsent(client: Pick<OAuthClient, 'clientId'>): boolean {
  return !FIRST_PARTY.has(client.clientId);
}

export interface AccessToDescribe {
  scope: string;
  resource: TokenResource;
  kind: UserKind;
  /** Whether the client gets refresh tokens (keeps access while the person is away). */
  refreshes: boolean;
}

function dataLine(resource: TokenResource, kind: UserKind): string {
  const what =
    kind === 'patient'
      ? 'your readings (Observations) and your clinical record (conditions, medications, allergies, lab results)'
      : 'the readings (Observations) and clinical records of the patients you can see, and your organizations, studies and data sources';
  return resource === 'mcp'
    ? `${what}, read-only, through the assistants' endpoint ${MCP_PATH}`
    : `${what}: read them, and add and change records as you can yourself, through the FHIR and management APIs (${FHIR_BASES[0]}, /api/v1)`;
}

/** The plain-language list the consent and connections pages show, in a fixed order. */
export function describeAccess(access: AccessToDescribe): string[] {
  const scopes = new Set(access.scope.split(' ').filter(Boolean));
  const lines = [dataLine(access.resource, access.kind)];
  if (scopes.has('openid') || scopes.has('fhirUser')) lines.push(`who you are: your account${scopes.has('fhirUser') ? ` and your ${access.kind === 'patient' ? 'Patient' : 'Practitioner'} record` : ''}`);
  if (scopes.has('email')) lines.push('your email address');
  if (scopes.has('profile')) lines.push('your name');
  if (access.refreshes) lines.push('it stays connected while you are away, until you withdraw it on the page of your connected applications (/o/connections/)');
  return lines;
}

/** Whether an approved scope set covers the scopes asked now (the same or fewer). */
export function covers(approved: string, asked: string): boolean {
  const have = new Set(approved.split(' ').filter(Boolean));
  return asked
    .split(' ')
    .filter(Boolean)
    .every((s) => have.has(s));
}

/** The union of two scope sets, in the order first seen. */
export function unionOf(a: string, b: string): string {
  return [...new Set([...a.split(' '), ...b.split(' ')].filter(Boolean))].join(' ');
}
