/**
 * `POST /o/token/` (RFC 6749 §4.1.3, §4.4, §6): the three grants this server issues tokens for,
 * each for the resource the request names (RFC 8707, `resources.ts`).
 * - `authorization_code`: PKCE S256 only, the exact redirect URI, a code used once;
 * - `refresh_token`: rotation on every use, a replayed token revokes its grant;
 * - `client_credentials`: a practitioner's API key acting as that practitioner (no refresh token);
 *   or a backend service signed in with its assertion (SMART Backend Services), reading what its
 *   practitioner sees under system scopes, for five minutes.
 */
import { apiKeyGrantId } from '../auth/claims';
import { BACKEND_ACCESS_TOKEN_SECONDS } from '../auth/lifetimes';
import { hashSecret } from '../secrets';
import type { OAuthClient, User } from '../directory/model';
import { spendAssertion, type VerifiedAssertion } from './client-assertion';
import { authenticateClient, type AuthenticatedClient } from './client-auth';
import { oauthError } from './errors';
import { required, type Params } from './form';
import { checkAuthorizationCode, useAuthorizationCode } from './authorization-codes';
import { noteClientUse } from './clients';
import { approvalStands } from './approvals';
import { grantOfRefreshToken, revokeGrant, rotateRefreshToken, startGrant } from './grants';
import { invitationHonours } from './invitations';
import { keptResource, requestedResource } from './resources';
import { grantedScope, grantedSystemScope, narrowedScope } from './scopes';
import { GRANT_TYPES } from './discovery';
import { ensureServiceClients } from './service-clients';
import { tokenResponse, type TokenResponse } from './token-response';
import { activeUser } from './users';

/** Scope of an API key's tokens when the request names none. */
export const API_KEY_DEFAULT_SCOPE = 'user/*.cruds';

const withdrawn = () => oauthError('invalid_grant', "The person withdrew this application's access; ask them to sign in again.");

function requireGrantType(client: OAuthClient, grantType: string): void {
  if (!client.grantTypes.includes(grantType)) throw oauthError('unauthorized_client', `This client may not use the ${grantType} grant.`);
}

async function authorizationCodeGrant(client: OAuthClient, params: Params): Promise<TokenResponse> {
  const stored = await checkAuthorizationCode({
    code: required(params, 'code'),
    clientId: client.clientId,
    redirectUri: required(params, 'redirect_uri'),
    verifier: params.code_verifier,
  });
  // Each redemption of an invitation replaces the grants of the earlier ones.
  if (stored.invitationHash && !(await invitationHonours(stored.invitationHash, stored.codeHash))) {
    throw oauthError('invalid_grant', 'The invitation was redeemed again, reissued or cancelled since this code was issued.');
  }
  const user = await activeUser(stored.userId, stored.kind);
  if (!user) throw oauthError('invalid_grant', 'The account of this authorization code can no longer sign in.');
  if (stored.approvalId && !(await approvalStands({ ...stored, approvalId: stored.approvalId }))) throw withdrawn();
  const resource = keptResource(params.resource, stored.resource, 'authorization code');
  const approval = stored.approvalId ? { approvalId: stored.approvalId } : {};
  const grant = startGrant({ grantId: stored.grantId, userId: user.id, kind: user.kind, clientId: client.clientId, scope: stored.scope, ...(resource ? { resource } : {}), ...approval });
  await useAuthorizationCode(stored, grant.grant);
  await noteClientUse(client, { grantId: stored.grantId, userId: user.id });
  const withRefresh = client.grantTypes.includes('refresh_token');
  return tokenResponse({
    user,
    clientId: client.clientId,
    scope: stored.scope,
    grantId: stored.grantId,
    ...(withRefresh ? { refreshToken: grant.refreshToken } : {}),
    ...(stored.nonce ? { nonce: stored.nonce } : {}),
    ...(resource ? { resource } : {}),
  });
}

async function refreshTokenGrant(client: OAuthClient, params: Params): Promise<TokenResponse> {
  const presented = required(params, 'refresh_token');
  const found = await grantOfRefreshToken(presented);
  if (!found || found.grant.revokedAt !== undefined) throw oauthError('invalid_grant', 'The refresh token is invalid, expired or revoked.');
  const { grant } = found;
  if (grant.clientId !== client.clientId) throw oauthError('invalid_grant', 'The refresh token was issued to another client.');
  if (!found.current) {
    await revokeGrant(grant.grantId, grant.userId);
    throw oauthError('invalid_grant', 'This refresh token was already used; the grant is revoked. Sign in again.');
  }
  if (grant.approvalId && !(await approvalStands({ ...grant, approvalId: grant.approvalId }))) {
    await revokeGrant(grant.grantId, grant.userId);
    throw withdrawn();
  }
  const user = await activeUser(grant.userId, grant.kind, grant.createdAt);
  if (!user) throw oauthError('invalid_grant', 'The account of this grant can no longer sign in.');
  const scope = narrowedScope(params.scope, grant.scope);
  const resource = keptResource(params.resource, grant.resource, 'refresh token');
  const refreshToken = await rotateRefreshToken(grant, hashSecret(presented));
  await noteClientUse(client);
  return tokenResponse({ user, clientId: client.clientId, scope, grantId: grant.grantId, refreshToken, ...(resource ? { resource } : {}) });
}

/** A backend service's token: system scopes only, the assertion spent last (nothing is written for a refused request). */
async function backendServiceToken(client: OAuthClient, owner: User, assertion: VerifiedAssertion, params: Params): Promise<TokenResponse> {
  const scope = grantedSystemScope(params.scope);
  const resource = requestedResource(params.resource);
  await spendAssertion(assertion);
  return tokenResponse({ user: owner, clientId: client.clientId, scope, grantId: apiKeyGrantId(client.clientId), lifetimeSeconds: BACKEND_ACCESS_TOKEN_SECONDS, ...(resource ? { resource } : {}) });
}

async function clientCredentialsGrant({ client, assertion }: AuthenticatedClient, params: Params): Promise<TokenResponse> {
  if (client.type !== 'confidential' || client.ownerUserId === undefined) throw oauthError('unauthorized_client', 'Only an API key or a backend client may use the client_credentials grant.');
  const owner = await activeUser(client.ownerUserId, 'practitioner');
  if (!owner) throw oauthError('invalid_client', 'The practitioner of this client can no longer sign in.');
  if (assertion) return backendServiceToken(client, owner, assertion, params);
  const scope = grantedScope(params.scope, 'practitioner', API_KEY_DEFAULT_SCOPE);
  const resource = requestedResource(params.resource);
  return tokenResponse({ user: owner, clientId: client.clientId, scope, grantId: apiKeyGrantId(client.clientId), ...(resource ? { resource } : {}) });
}

/** Answers a token request whose parameters were already read (`formParams`). */
export async function handleTokenRequest(headers: Readonly<Record<string, string>>, params: Params): Promise<TokenResponse> {
  const grantType = required(params, 'grant_type');
  if (!(GRANT_TYPES as readonly string[]).includes(grantType)) throw oauthError('unsupported_grant_type', `The grant type ${grantType.slice(0, 64)} is not supported.`);
  await ensureServiceClients();
  const authenticated = await authenticateClient(headers, params);
  const { client } = authenticated;
  requireGrantType(client, grantType);
  switch (grantType) {
    case 'authorization_code':
      return authorizationCodeGrant(client, params);
    case 'refresh_token':
      return refreshTokenGrant(client, params);
    default:
      return clientCredentialsGrant(authenticated, params);
  }
}

