/**
 * The invitation code of a portal link (`?code=<host[:port]>_<token>`, built by
 * `shared/oauth/invitations.ts`) and the answers of its redemption, as the portal page reads them.
 */
import type { PortalProblem } from './messages';

export interface InvitationCode {
  host: string;
  token: string;
}

/** Splits a code into host and token; undefined when it is not exactly `<host>_<token>`. */
export function parseInvitationCode(code: string): InvitationCode | undefined {
  const parts = code.trim().split('_');
  if (parts.length !== 2) return undefined;
  const [host, token] = parts as [string, string];
  if (!host || !/^[A-Za-z0-9]{16,128}$/.test(token)) return undefined;
  return { host, token };
}

/** What a refused redemption (`POST /api/v1/invitation/<token>`) means for the patient. */
export function redemptionProblem(status: number): PortalProblem {
  switch (status) {
    case 404:
      return 'invitation-unknown';
    case 410:
      return 'invitation-expired';
    case 403:
      return 'invitation-cancelled';
    case 409:
      return 'invitation-replaced';
    default:
      return 'service-error';
  }
}
