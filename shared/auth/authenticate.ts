/**
 * Bearer token -> verified claims (no database call) -> the user's record (one strongly consistent
 * GetItem, so a deleted, deactivated or logged-out account is refused at once) -> a `Caller`.
 */
import { getUser } from '../directory/users';
import type { User } from '../directory/model';
import { unauthorized } from '../http/errors';
import type { HttpRequest } from '../http/request';
import type { Caller } from './caller';
import { verifyAccessToken, type AccessTokenClaims } from './tokens';

/** RFC 6750: a request without credentials gets a challenge without an error code. */
const missing = () =>
  unauthorized('Authentication credentials were not provided.', { headers: { 'WWW-Authenticate': 'Bearer realm="cdx"' } });

const refused = () => unauthorized('The access token is invalid or expired.');

/** The token of an `Authorization: Bearer <token>` header, if there is one. */
export function bearerToken(headers: Readonly<Record<string, string>>): string | undefined {
  const match = /^Bearer[ ]+([A-Za-z0-9\-._~+/]+=*)\s*$/i.exec(headers['authorization'] ?? '');
  return match?.[1];
}

/** Whether the token, or the grant it was issued under, was revoked (RFC 7009, or a reused code or refresh token). */
export function isRevoked(user: Pick<User, 'revocations'>, claims: Pick<AccessTokenClaims, 'jti' | 'sid'>): boolean {
  const revoked = user.revocations;
  if (!revoked) return false;
  return Object.hasOwn(revoked, `jti:${claims.jti}`) || (claims.sid !== undefined && Object.hasOwn(revoked, `sid:${claims.sid}`));
}

/** The caller a user acts as under a token's claims; `undefined` when the account may not act. */
export function callerOf(user: User, claims: AccessTokenClaims): Caller | undefined {
  if (!user.active || user.kind !== claims.kind) return undefined;
  if (user.tokensNotBefore !== undefined && claims.iat < user.tokensNotBefore) return undefined;
  if (isRevoked(user, claims)) return undefined;
  const scopes = claims.scope ? claims.scope.split(' ') : [];
  const client = claims.client_id ? { clientId: claims.client_id } : {};
  if (user.kind === 'patient') {
    if (user.patientId === undefined) return undefined;
    return { kind: 'patient', userId: user.id, patientId: user.patientId, scopes, ...client };
  }
  return { kind: 'practitioner', userId: user.id, practitionerId: user.id, roles: user.roles, superuser: user.superuser, scopes, ...client };
}

/** The caller behind an access token; 401 for a missing, invalid, expired or orphaned token. */
export async function callerFromToken(token: string): Promise<Caller> {
  const claims = await verifyAccessToken(token);
  const user = await getUser(Number(claims.sub));
  const caller = user && callerOf(user, claims);
  if (!caller) throw refused();
  return caller;
}

/** The caller of a request (`Authorization: Bearer <access token>`); 401 otherwise. */
export async function authenticate(req: Pick<HttpRequest, 'headers'>): Promise<Caller> {
  const token = bearerToken(req.headers);
  if (!token) {
    if (req.headers['authorization']) throw refused();
    throw missing();
  }
  return callerFromToken(token);
}
