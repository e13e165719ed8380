/**
 * Grants and their refresh tokens. A grant is one sign-in of a user at one client; its refresh
 * tokens rotate (each use returns a new one and retires the old), and the grant item holds the hash
 * of the only live one, so a retired token coming back is recognised at once as a replay: the whole
 * grant is revoked (OAuth 2.0 Security BCP §4.14), which also refuses the access tokens issued under
 * it (their `sid`, checked by `authenticate` on the user item it reads anyway).
 *
 * Items: `GRANT#<id>` (user, client, scope, current token hash, `revokedAt`) and one
 * `REFRESH#<sha256>` pointer per token issued (to find the grant of a retired token). Both expire
 * through DynamoDB TTL (`expiresAt`), and every read checks the expiry too.
 */
import { randomUUID } from 'node:crypto';
import { ACCESS_TOKEN_SECONDS, CLOCK_TOLERANCE_SECONDS, REFRESH_TOKEN_SECONDS } from '../auth/lifetimes';
import { hashSecret, randomAlphanumeric } from '../auth/secrets';
import { getItem, putNew, transact, update, type Item, type Write } from '../directory/db';
import { keys } from '../directory/keys';
import type { Id, UserKind } from '../directory/model';
import { addRevocations } from '../directory/users';
import { conflict, HttpError } from '../http/errors';
import { nowSeconds } from './clock';
import { oauthError } from './errors';

export interface Grant {
  grantId: string;
  userId: Id;
  kind: UserKind;
  clientId: string;
  scope: string;
  /** Epoch seconds. */
  createdAt: number;
  /** SHA-256 of the one refresh token that may be used next. */
  currentHash: string;
  /** Epoch seconds after which the grant is gone (the current refresh token's expiry). */
  expiresAt: number;
  revokedAt?: number;
}

export const REFRESH_TOKEN_LENGTH = 48;

/** The grant id every token of an API key carries: deleting the key revokes them through it. */
export function apiKeyGrantId(clientId: string): string {
  return `key:${clientId}`;
}

export function newGrantId(): string {
  return randomUUID();
}

/** The refresh token's pointer item (grant id), written beside each new token. */
function pointerWrite(tokenHash: string, grantId: string, expiresAt: number): Write {
  return putNew({ ...keys.refreshToken(tokenHash), grantId, issuedAt: nowSeconds(), expiresAt }, () => conflict('Refresh token collision.'));
}

/** A new grant with its first refresh token: the writes (to join the transaction that consumes the code) and the token. */
export function startGrant(input: { grantId: string; userId: Id; kind: UserKind; clientId: string; scope: string }): { refreshToken: string; writes: Write[] } {
  const refreshToken = randomAlphanumeric(REFRESH_TOKEN_LENGTH);
  const currentHash = hashSecret(refreshToken);
  const createdAt = nowSeconds();
  const grant: Grant = { ...input, createdAt, currentHash, expiresAt: createdAt + REFRESH_TOKEN_SECONDS };
  return {
    refreshToken,
    writes: [putNew({ ...keys.grant(grant.grantId), ...grant }, () => conflict('Grant id collision.')), pointerWrite(currentHash, grant.grantId, grant.expiresAt)],
  };
}

export async function getGrant(grantId: string): Promise<Grant | undefined> {
  const item = await getItem(keys.grant(grantId));
  return item ? toGrant(item) : undefined;
}

function toGrant(item: Item): Grant {
  const { pk: _pk, sk: _sk, ...grant } = item;
  return grant as unknown as Grant;
}

/** The grant a refresh token belongs to, whether it is the live one or a retired one; undefined for unknown or expired tokens. */
export async function grantOfRefreshToken(token: string): Promise<{ grant: Grant; current: boolean } | undefined> {
  if (!/^[A-Za-z0-9]{1,256}$/.test(token)) return undefined;
  const hash = hashSecret(token);
  const pointer = await getItem(keys.refreshToken(hash));
  if (!pointer || (pointer.expiresAt as number) <= nowSeconds()) return undefined;
  const grant = await getGrant(pointer.grantId as string);
  if (!grant || grant.expiresAt <= nowSeconds()) return undefined;
  return { grant, current: grant.currentHash === hash };
}

/**
 * Ends a grant: no refresh token of it works again and its access tokens are refused from now on.
 * Idempotent; a grant that is already gone only gets its access tokens refused.
 */
export async function revokeGrant(grantId: string, userId: Id): Promise<void> {
  const at = nowSeconds();
  try {
    await transact([
      update(keys.grant(grantId), 'SET #revokedAt = if_not_exists(#revokedAt, :at)', {
        condition: 'attribute_exists(pk)',
        names: { '#revokedAt': 'revokedAt' },
        values: { ':at': at },
      }),
    ]);
  } catch (e) {
    if (!(e instanceof HttpError && e.status === 409)) throw e;
  }
  // Access tokens live by the wall clock (their `exp`), so their revocation is kept by it too.
  const wallNow = Math.floor(Date.now() / 1000);
  await addRevocations(userId, { [`sid:${grantId}`]: wallNow + ACCESS_TOKEN_SECONDS + CLOCK_TOLERANCE_SECONDS });
}

/**
 * Exchanges the grant's live refresh token for a new one. A token that is not the live one (it was
 * rotated out: a replay, or a client racing itself) revokes the grant.
 */
export async function rotateRefreshToken(grant: Grant, presentedHash: string): Promise<string> {
  const replay = oauthError('invalid_grant', 'This refresh token was already used; the grant is revoked. Sign in again.');
  const next = randomAlphanumeric(REFRESH_TOKEN_LENGTH);
  const nextHash = hashSecret(next);
  const expiresAt = nowSeconds() + REFRESH_TOKEN_SECONDS;
  try {
    await transact([
      update(
        keys.grant(grant.grantId),
        'SET #current = :next, #expiresAt = :expiresAt',
        {
          condition: '#current = :presented AND attribute_not_exists(#revokedAt)',
          names: { '#current': 'currentHash', '#expiresAt': 'expiresAt', '#revokedAt': 'revokedAt' },
          values: { ':next': nextHash, ':presented': presentedHash, ':expiresAt': expiresAt },
        },
        () => replay,
      ),
      pointerWrite(nextHash, grant.grantId, expiresAt),
    ]);
  } catch (e) {
    if (e === replay) await revokeGrant(grant.grantId, grant.userId);
    throw e;
  }
  return next;
}
