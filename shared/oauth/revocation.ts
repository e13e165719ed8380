/**
 * `POST /o/revoke_token/` (RFC 7009). A refresh token revokes its whole grant (every refresh token
 * and every access token issued under it); an access token revokes itself. Both must have been
 * issued to the client asking. An unknown, expired or malformed token is answered 200 and changes
 * nothing, as the RFC requires.
 */
import { CLOCK_TOLERANCE_SECONDS } from '../auth/lifetimes';
import { verifyAccessToken, type AccessTokenClaims } from '../auth/tokens';
import { addRevocations } from '../directory/users';
import type { OAuthClient } from '../directory/model';
import { spendAssertion } from './client-assertion';
import { authenticateClient } from './client-auth';
import { oauthError } from './errors';
import { required, type Params } from './form';
import { grantOfRefreshToken, revokeGrant } from './grants';
import { ensureServiceClients } from './service-clients';

const notYours = () => oauthError('invalid_grant', 'The token was not issued to this client.');

const JWT_SHAPE = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/;

async function accessTokenClaims(token: string): Promise<AccessTokenClaims | undefined> {
  if (!JWT_SHAPE.test(token)) return undefined;
  try {
    return await verifyAccessToken(token);
  } catch {
    return undefined;
  }
}

async function revokeRefreshToken(client: OAuthClient, token: string): Promise<boolean> {
  const found = await grantOfRefreshToken(token);
  if (!found) return false;
  if (found.grant.clientId !== client.clientId) throw notYours();
  await revokeGrant(found.grant.grantId, found.grant.userId);
  return true;
}

async function revokeAccessToken(client: OAuthClient, token: string): Promise<boolean> {
  const claims = await accessTokenClaims(token);
  if (!claims) return false;
  if (claims.client_id !== client.clientId) throw notYours();
  await addRevocations(Number(claims.sub), { [`jti:${claims.jti}`]: claims.exp + CLOCK_TOLERANCE_SECONDS });
  return true;
}

export async function handleRevocationRequest(headers: Readonly<Record<string, string>>, params: Params): Promise<void> {
  const token = required(params, 'token');
  await ensureServiceClients();
  const { client, assertion } = await authenticateClient(headers, params);
  // A backend client's assertion is used once, whatever the token turns out to be.
  if (assertion) await spendAssertion(assertion);
  // The hint only decides which kind is tried first (RFC 7009 §2.1).
  const order = params.token_type_hint === 'access_token' ? [revokeAccessToken, revokeRefreshToken] : [revokeRefreshToken, revokeAccessToken];
  for (const attempt of order) if (await attempt(client, token)) return;
}
