/**
 * Helpers for the OAuth tests: form posts to `/o/*`, PKCE pairs, and the invitation steps the
 * portal runs (issue as a practitioner, redeem, exchange).
 */
import { randomBytes } from 'node:crypto';
import { getOAuthClient } from '../../shared/directory/oauth-clients';
import type { OAuthClient } from '../../shared/directory/model';
import { s256Challenge } from '../../shared/oauth/pkce';
import { ensureServiceClients, PORTAL_CLIENT_ID, WEB_CLIENT_ID } from '../../shared/oauth/service-clients';
import { makeOrganization, makePatient, makePractitioner } from './directory';
import { call, type TestResponse } from './invoke';

export const FORM = { 'content-type': 'application/x-www-form-urlencoded' };

export function postForm(url: string, params: Record<string, string>, headers: Record<string, string> = {}): Promise<TestResponse> {
  return call('POST', url, { headers: { ...FORM, ...headers }, body: new URLSearchParams(params).toString() });
}

export function pkcePair(): { verifier: string; challenge: string } {
  const verifier = randomBytes(32).toString('base64url');
  return { verifier, challenge: s256Challenge(verifier) };
}

/** The portal's verifier for an invitation token: unpadded standard Base64 of the token. */
export function portalVerifier(token: string): string {
  return Buffer.from(token).toString('base64').replace(/=+$/, '');
}

export function basic(clientId: string, secret: string): Record<string, string> {
  return { authorization: `Basic ${Buffer.from(`${clientId}:${secret}`).toString('base64')}` };
}

/** Issues an invitation through the API; returns the 201 body. */
export async function invite(practitionerToken: string, patientId: number, clientNumber: number) {
  const res = await call('POST', '/api/v1/invitation', { token: practitionerToken, body: { patient_id: patientId, client_id: clientNumber }, headers: { 'content-type': 'application/json' } });
  if (res.status !== 201) throw new Error(`invitation: ${res.status} ${res.text}`);
  return res.json as { id: number; token: string; invitationLink: string; status: string; tokenHash: string };
}

/** Redeems and exchanges an invitation the way the portal does; returns the token response. */
export async function redeemAndExchange(token: string) {
  const redeemed = await call('POST', `/api/v1/invitation/${token}`);
  if (redeemed.status !== 200) throw new Error(`redeem: ${redeemed.status} ${redeemed.text}`);
  const { grant } = redeemed.json;
  const res = await postForm('/o/token/', { ...grant, code_verifier: portalVerifier(token) });
  if (res.status !== 200) throw new Error(`token: ${res.status} ${res.text}`);
  return res.json as { access_token: string; refresh_token: string; patient: string; scope: string; expires_in: number; id_token?: string };
}

/** The service's own clients (created where missing). */
export async function serviceClients(): Promise<{ portal: OAuthClient; web: OAuthClient }> {
  await ensureServiceClients();
  return { portal: (await getOAuthClient(PORTAL_CLIENT_ID))!, web: (await getOAuthClient(WEB_CLIENT_ID))! };
}

/** An organization with a practitioner (role member) and a patient without a login. */
export async function invitationWorld() {
  const org = await makeOrganization();
  const doctor = await makePractitioner({ organizations: [org] });
  const patient = await makePatient({ organizations: [org] });
  return { org, doctor, patient };
}
