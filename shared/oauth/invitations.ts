/**
 * Invitations: how a patient's app (the portal) gets its first token. A practitioner issues one for
 * a patient and an app; its secret token (32 alphanumerics, stored only as a SHA-256 hash) travels
 * in a link as the code `<host[:port]>_<token>`. Redeeming it (`POST /api/v1/invitation/<token>`)
 * answers a grant document: an authorization code for the app, bound to the PKCE S256 challenge of
 * the token itself, so only the holder of the link can exchange it at `/o/token/`.
 *
 * Lifecycle: `issued` -> `redeemed` (again within 12 hours of the last redemption, each one
 * restarting that window and replacing the earlier redemption's code) ; issuing again for the same
 * patient and app marks the earlier one `reissued`; a practitioner may `cancel` it; it expires 7
 * days after issue. Unknown 404, expired 410, reissued or past its window 409, cancelled 403.
 *
 * A patient without a login account gets one on first redemption: passwordless (it signs in by
 * invitation only, until the patient sets a password with an invitation: `invitation-passwords.ts`),
 * under the patient's contact email when that is free.
 */
import { INVITATION_REDEMPTION_WINDOW_SECONDS, INVITATION_SECONDS } from '../auth/lifetimes';
import { hashSecret, randomAlphanumeric } from '../secrets';
import { config } from '../config';
import type { Id, OAuthClient, Patient } from '../directory/model';
import { getOAuthClient, getOAuthClientById } from '../directory/oauth-clients';
import { createPatientAccount, getPatient } from '../directory/patients';
import { conflict, fieldErrors, forbidden, gone, HttpError, notFound } from '../http/errors';
import { nowMs } from './clock';
import { newAuthorizationCode } from './authorization-codes';
import { invitationVerifier, s256Challenge } from './pkce';
import { absoluteUri, redirectUrisOf } from './service-clients';
import { oauthStore } from './store/current';
import type { Invitation, InvitationChange, InvitationStatus } from './store/port';

export type { Invitation, InvitationStatus } from './store/port';

export interface IssuedInvitation {
  invitation: Invitation;
  /** The secret, shown once. */
  token: string;
  /** `<host[:port]>_<token>`. */
  code: string;
  invitationLink: string;
}

export interface GrantDocument {
  grant: { grant_type: 'authorization_code'; redirect_uri: string; client_id: string; code: string };
  token_endpoint: string;
  /** When the grant's code expires. */
  expires: string;
}

/** Scope of the tokens an invitation leads to. */
export const INVITATION_SCOPE = 'openid email';

const TOKEN = /^[A-Za-z0-9]{32}$/;
const unknownInvitation = () => notFound('Invitation not found or already used.');

/** The invitation code of a token: the site's host (with port) and the token. */
export function invitationCode(token: string): string {
  return `${new URL(config().siteUrl).host}_${token}`;
}

/** The app's invitation link for a code (`CODE` in its template replaced by the URL-encoded code). */
export function invitationLink(client: OAuthClient, code: string): string {
  return absoluteUri(client.invitationUrl!).replace('CODE', encodeURIComponent(code));
}

/** The app an invitation is issued for, if invitations can lead to it. */
export async function invitationClient(clientNumber: Id): Promise<OAuthClient> {
  const client = await getOAuthClientById(clientNumber);
  if (!client) throw notFound(`Client ${clientNumber} not found.`);
  const problems: string[] = [];
  if (!client.invitationUrl) problems.push('This app has no invitation link.');
  if (client.type !== 'public' || !client.grantTypes.includes('authorization_code') || client.redirectUris.length === 0) {
    problems.push('This app cannot sign patients in (it needs to be a public client with the authorization_code grant and a redirect URI).');
  }
  if (problems.length > 0) throw fieldErrors({ client_id: problems });
  return client;
}

/** Issues an invitation for a patient and an app (authorization is the caller's job); an earlier one for the same pair is marked reissued. */
export async function issueInvitation(input: { patient: Patient; client: OAuthClient; sendEmail: boolean; createdBy?: Id }): Promise<IssuedInvitation> {
  const { patient, client } = input;
  const token = randomAlphanumeric(32);
  const tokenHash = hashSecret(token);
  const now = nowMs();
  const at = new Date(now).toISOString();
  const invitation: Invitation = {
    id: await oauthStore().invitations.newId(),
    tokenHash,
    patientId: patient.id,
    clientNumber: client.id,
    clientId: client.clientId,
    status: 'issued',
    sendEmail: input.sendEmail,
    ...(input.createdBy !== undefined ? { createdBy: input.createdBy } : {}),
    createdAt: at,
    updatedAt: at,
    expires: new Date(now + INVITATION_SECONDS * 1000).toISOString(),
    redemptions: 0,
  };
  await oauthStore().invitations.issue(invitation, (previous) =>
    previous.status === 'issued' || previous.status === 'redeemed' ? statusChange('reissued', at) : undefined,
  );
  const code = invitationCode(token);
  return { invitation, token, code, invitationLink: invitationLink(client, code) };
}

/** A change of an invitation's status (and other fields). */
function statusChange(status: InvitationStatus, at: string, extra: InvitationChange = {}): InvitationChange {
  return { status, updatedAt: at, ...extra };
}

/** A patient's invitations, oldest first (the token is never stored, so never listed). */
export const listInvitations = (patientId: Id): Promise<Invitation[]> => oauthStore().invitations.listOfPatient(patientId);

/** An invitation by its numeric id. */
export async function getInvitation(id: Id): Promise<Invitation | undefined> {
  return (await oauthStore().invitations.getById(id))?.invitation;
}

/** Cancels an invitation: it can no longer be redeemed, and the code of its last redemption stops working. */
export async function cancelInvitation(id: Id): Promise<Invitation> {
  const { invitations } = oauthStore();
  const seen = await invitations.getById(id);
  if (!seen) throw notFound(`Invitation ${id} not found.`);
  if (seen.invitation.status === 'cancelled') return seen.invitation;
  const change = statusChange('cancelled', new Date(nowMs()).toISOString());
  await invitations.change(seen, change);
  return { ...seen.invitation, ...change };
}

/** Why an invitation cannot be redeemed (or set a password) now, if it cannot. */
export function invitationRefusal(invitation: Invitation, now: number): HttpError | undefined {
  if (invitation.status === 'cancelled') return forbidden('This invitation was cancelled.');
  if (now >= Date.parse(invitation.expires)) return gone('This invitation has expired; ask for a new one.');
  if (invitation.status === 'reissued') return conflict('This invitation was replaced by a newer one.');
  if (invitation.status === 'redeemed' && now >= Date.parse(invitation.redeemedAt!) + INVITATION_REDEMPTION_WINDOW_SECONDS * 1000) {
    return conflict('This invitation was already used.');
  }
  return undefined;
}

const PLACEHOLDER_EMAIL_DOMAIN = 'accounts.invalid';

/** The patient's login account, created (passwordless) when the patient has none. */
export async function accountOf(patient: Patient): Promise<Id> {
  if (patient.userId !== undefined) return patient.userId;
  const emails = [patient.telecomEmail, `patient-${patient.id}@${PLACEHOLDER_EMAIL_DOMAIN}`].filter((e): e is string => Boolean(e));
  for (const email of emails) {
    try {
      return (await createPatientAccount(patient.id, { email })).id;
    } catch (e) {
      if (!(e instanceof HttpError && e.status === 409)) throw e;
      // Either the address belongs to another account (try the next one), or a concurrent redemption created the account.
      const now = await getPatient(patient.id);
      if (now?.userId !== undefined) return now.userId;
    }
  }
  throw conflict(`Patient ${patient.id} could not be given a login account.`);
}

/** Redeems an invitation's token: the grant document for its app. */
export async function redeemInvitation(token: string): Promise<GrantDocument> {
  if (!TOKEN.test(token)) throw unknownInvitation();
  const tokenHash = hashSecret(token);
  const { invitations } = oauthStore();
  const seen = await invitations.get(tokenHash);
  if (!seen) throw unknownInvitation();
  const { invitation } = seen;
  const now = nowMs();
  const refused = invitationRefusal(invitation, now);
  if (refused) throw refused;
  const [client, patient] = await Promise.all([getOAuthClient(invitation.clientId), getPatient(invitation.patientId)]);
  if (!patient) throw unknownInvitation();
  const redirectUri = client && redirectUrisOf(client)[0];
  if (!client || !redirectUri) throw gone('The app of this invitation no longer exists.');
  const userId = await accountOf(patient);
  const { code, stored } = newAuthorizationCode({
    clientId: client.clientId,
    redirectUri,
    userId,
    kind: 'patient',
    scope: INVITATION_SCOPE,
    codeChallenge: s256Challenge(invitationVerifier(token)),
    invitationHash: tokenHash,
  });
  const at = new Date(now).toISOString();
  await invitations.redeem(seen, statusChange('redeemed', at, { redeemedAt: at, codeHash: stored.codeHash, redemptions: invitation.redemptions + 1 }), stored);
  return {
    grant: { grant_type: 'authorization_code', redirect_uri: redirectUri, client_id: client.clientId, code },
    token_endpoint: `${config().siteUrl}/o/token/`,
    expires: new Date(stored.expiresAt * 1000).toISOString(),
  };
}

/** Whether a code an invitation's redemption issued is still honoured: the invitation was not redeemed again, reissued or cancelled since. */
export async function invitationHonours(invitationHash: string, codeHash: string): Promise<boolean> {
  const invitation = (await oauthStore().invitations.get(invitationHash))?.invitation;
  return invitation !== undefined && invitation.codeHash === codeHash && invitation.status === 'redeemed';
}
