/**
 * The token endpoint's answer (RFC 6749 §5.1, SMART App Launch 2): a signed access token, the
 * refresh token of the grant when there is one, the granted scope, SMART's `patient` context for a
 * patient, and an OpenID Connect id_token when `openid` was granted.
 */
import type { TokenResource } from '../auth/claims';
import { issueAccessToken, tokenIssuer } from '../auth/tokens';
import { signingKeys } from '../auth/signing-keys';
import { config } from '../config';
import type { User } from '../directory/model';

export interface TokenResponse {
  access_token: string;
  token_type: 'Bearer';
  expires_in: number;
  scope: string;
  refresh_token?: string;
  id_token?: string;
  patient?: string;
}

export interface TokenIssue {
  user: User;
  clientId: string;
  scope: string;
  grantId: string;
  refreshToken?: string;
  nonce?: string;
  /** Shorter than the usual access token (a backend service's). */
  lifetimeSeconds?: number;
  /** The resource the access token is for (RFC 8707); the service's APIs when not given. */
  resource?: TokenResource;
}

/** The FHIR resource the user is, as SMART's `fhirUser` claim names it. */
export function fhirUserOf(user: User): string {
  const base = `${config().siteUrl}/FHIR/R5`;
  return user.kind === 'patient' ? `${base}/Patient/${user.patientId}` : `${base}/Practitioner/${user.id}`;
}

async function idToken(issue: TokenIssue, iat: number, expiresIn: number): Promise<string> {
  const scopes = new Set(issue.scope.split(' '));
  const claims = {
    iss: tokenIssuer(),
    sub: String(issue.user.id),
    aud: issue.clientId,
    iat,
    exp: iat + expiresIn,
    ...(issue.nonce ? { nonce: issue.nonce } : {}),
    ...(scopes.has('email') ? { email: issue.user.email } : {}),
    ...(scopes.has('profile') ? { name: `${issue.user.nameGiven} ${issue.user.nameFamily}`.trim(), given_name: issue.user.nameGiven, family_name: issue.user.nameFamily } : {}),
    ...(scopes.has('fhirUser') ? { fhirUser: fhirUserOf(issue.user) } : {}),
  };
  return (await signingKeys()).sign(claims, 'JWT');
}

export async function tokenResponse(issue: TokenIssue): Promise<TokenResponse> {
  const access = await issueAccessToken({ userId: issue.user.id, kind: issue.user.kind, scope: issue.scope, clientId: issue.clientId, grantId: issue.grantId, ...(issue.lifetimeSeconds ? { lifetimeSeconds: issue.lifetimeSeconds } : {}), ...(issue.resource ? { resource: issue.resource } : {}), ...(issue.user.patientId !== undefined ? { patientId: issue.user.patientId } : {}) });
  return {
    access_token: access.accessToken,
    token_type: 'Bearer',
    expires_in: access.expiresIn,
    scope: access.claims.scope,
    ...(issue.refreshToken ? { refresh_token: issue.refreshToken } : {}),
    ...(access.claims.scope.split(' ').includes('openid') ? { id_token: await idToken(issue, access.claims.iat, access.expiresIn) } : {}),
    ...(issue.user.kind === 'patient' && issue.user.patientId !== undefined ? { patient: String(issue.user.patientId) } : {}),
  };
}
