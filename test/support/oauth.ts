/**
 * Helpers for the OAuth tests: form posts to `/o/*`, PKCE pairs, and the invitation steps the
 * portal runs (issue as a practitioner, redeem, exchange).
 */
import { exportJWK, generateKeyPair, SignJWT, type JWK } from 'jose';
import { randomBytes, randomUUID } from 'node:crypto';
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

// --- backend services (SMART Backend Services: a registered key set, a signed assertion) -----------------

export type AssertionAlg = 'RS384' | 'ES384';

export interface BackendKey {
  alg: AssertionAlg;
  kid: string;
  privateKey: CryptoKey;
  /** The public JWK as registered (with its kid). */
  jwk: JWK;
}

/** A fresh key pair for a backend client, extractable so its public half can be registered. */
export async function backendKey(alg: AssertionAlg, kid = `${alg.toLowerCase()}-${randomBytes(4).toString('hex')}`): Promise<BackendKey> {
  const { publicKey, privateKey } = await generateKeyPair(alg, { extractable: true });
  return { alg, kid, privateKey, jwk: { ...(await exportJWK(publicKey)), kid } };
}

export const TOKEN_ENDPOINT = 'http://localhost:8000/o/token/';

/** A client assertion as a backend client signs it; `claims` and `header` override the defaults. */
export async function signAssertion(
  key: Pick<BackendKey, 'alg' | 'kid' | 'privateKey'>,
  clientId: string,
  options: { claims?: Record<string, unknown>; header?: Record<string, unknown>; expiresIn?: number } = {},
): Promise<string> {
  const now = Math.floor(Date.now() / 1000);
  const claims = { iss: clientId, sub: clientId, aud: TOKEN_ENDPOINT, exp: now + (options.expiresIn ?? 240), jti: randomUUID(), ...options.claims };
  const defined = Object.fromEntries(Object.entries(claims).filter(([, v]) => v !== undefined));
  return new SignJWT(defined).setProtectedHeader({ alg: key.alg, kid: key.kid, typ: 'JWT', ...options.header } as never).sign(key.privateKey);
}

/** Registers a backend client for the practitioner; returns the 201 body. */
export async function registerBackendClient(practitionerToken: string, metadata: Record<string, unknown>) {
  const res = await call('POST', '/api/v1/practitioner_clients', { token: practitionerToken, body: { name: 'pipeline', ...metadata }, headers: { 'content-type': 'application/json' } });
  if (res.status !== 201) throw new Error(`backend client: ${res.status} ${res.text}`);
  return res.json as { id: number; clientId: string; tokenEndpointAuthMethod: string; keyIds?: string[]; jwksUri?: string };
}

/** The token request of a backend client: client_credentials with its assertion. */
export function assertionGrant(assertion: string, scope: string | undefined = 'system/*.rs', extra: Record<string, string> = {}): Promise<TestResponse> {
  return postForm('/o/token/', {
    grant_type: 'client_credentials',
    client_assertion_type: 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer',
    client_assertion: assertion,
    ...(scope === undefined ? {} : { scope }),
    ...extra,
  });
}
