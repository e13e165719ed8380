/**
 * Grants and their refresh tokens. A grant is one sign-in of a user at one client; its refresh
 * tokens rotate (each use returns a new one and retires the old), and the grant item holds the hash
 * of the only live one, so a retired token coming back is recognised at once as a replay: the whole
 * grant is revoked (OAuth 2.0 Security BCP §4.14), which also refuses the access tokens issued under
 * it (their `sid`, checked by `authenticate` on the user item it reads anyway).
 *
 * Each refresh token keeps a record of its grant (to find the grant of a retired one). Both expire
 * (DynamoDB TTL on the service's store), and every read checks the expiry too.
 */
import { randomUUID } from 'node:crypto';
import { ACCESS_TOKEN_SECONDS, CLOCK_TOLERANCE_SECONDS, REFRESH_TOKEN_SECONDS } from '../auth/lifetimes';
import { hashSecret, randomAlphanumeric } from '../secrets';
import type { TokenResource } from '../auth/claims';
import type { Id, UserKind } from '../directory/model';
import { addRevocations } from '../directory/users';
import { nowSeconds } from './clock';
import { oauthError } from './errors';
import { oauthStore } from './store/current';
import type { Grant } from './store/port';

export type { Grant } from './store/port';

export const REFRESH_TOKEN_LENGTH = 48;

export function newGrantId(): string {
  return randomUUID();
}

/** A new grant with its first refresh token, not stored yet (the code that starts it stores it, `useAuthorizationCode`). */
export function startGrant(input: { grantId: string; userId: Id; kind: UserKind; clientId: string; scope: string; resource?: TokenResource; approvalId?: string }): { refreshToken: string; grant: Grant } {
  const refreshToken = randomAlphanumeric(REFRESH_TOKEN_LENGTH);
  const createdAt = nowSeconds();
  return { refreshToken, grant: { ...input, createdAt, currentHash: hashSecret(refreshToken), expiresAt: createdAt + REFRESH_TOKEN_SECONDS } };
}

export const getGrant = (grantId: string): Promise<Grant | undefined> => oauthStore().grants.get(grantId);

/** The grant a refresh token belongs to, whether it is the live one or a retired one; undefined for unknown or expired tokens. */
export async function grantOfRefreshToken(token: string): Promise<{ grant: Grant; current: boolean } | undefined> {
  if (!/^[A-Za-z0-9]{1,256}$/.test(token)) return undefined;
  const hash = hashSecret(token);
  const record = await oauthStore().grants.token(hash);
  if (!record || record.expiresAt <= nowSeconds()) return undefined;
  const grant = await getGrant(record.grantId);
  if (!grant || grant.expiresAt <= nowSeconds()) return undefined;
  return { grant, current: grant.currentHash === hash };
}

/**
 * Ends a grant: no refresh token of it works again and its access tokens are refused from now on.
 * Idempotent; a grant that is already gone only gets its access tokens refused.
 */
export async function revokeGrant(grantId: string, userId: Id): Promise<void> {
  await oauthStore().grants.revoke(grantId, nowSeconds());
  // Access tokens live by the wall clock (their `exp`), so their revocation is kept by it too.
  const wallNow = Math.floor(Date.now() / 1000);
  await addRevocations(userId, { [`sid:${grantId}`]: wallNow + ACCESS_TOKEN_SECONDS + CLOCK_TOLERANCE_SECONDS });
}

/**
 * Exchanges the grant's live refresh token for a new one. A token that is not the live one (it was
 * rotated out: a replay, or a client racing itself) revokes the grant.
 */
export async function rotateRefreshToken(grant: Grant, presentedHash: string): Promise<string> {
  const next = randomAlphanumeric(REFRESH_TOKEN_LENGTH);
  const hash = hashSecret(next);
  const issuedAt = nowSeconds();
  if (await oauthStore().grants.rotate(grant.grantId, presentedHash, { hash, grantId: grant.grantId, issuedAt, expiresAt: issuedAt + REFRESH_TOKEN_SECONDS })) return next;
  await revokeGrant(grant.grantId, grant.userId);
  throw oauthError('invalid_grant', 'This refresh token was already used; the grant is revoked. Sign in again.');
}
