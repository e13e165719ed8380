/**
 * Authorization codes: 60 seconds, single use, bound to the client, the exact redirect URI and a
 * PKCE S256 challenge. Stored only as a SHA-256 hash with a DynamoDB TTL, and every read checks the
 * expiry itself (TTL deletion is lazy). A code that comes back after it was used revokes the grant
 * it started (RFC 6749 §4.1.2); every other refusal changes nothing, so a request with a stolen code
 * but the wrong verifier cannot spoil the rightful client's exchange.
 */
import { AUTHORIZATION_CODE_SECONDS } from '../auth/lifetimes';
import { hashSecret, randomAlphanumeric } from '../auth/secrets';
import { getItem, putNew, transact, update, type Write } from '../directory/db';
import { keys } from '../directory/keys';
import type { Id, UserKind } from '../directory/model';
import { conflict, type HttpError } from '../http/errors';
import { nowSeconds } from './clock';
import { oauthError } from './errors';
import { newGrantId, revokeGrant } from './grants';
import { verifierMatches } from './pkce';

export const CODE_LENGTH = 43;

export interface CodeBinding {
  clientId: string;
  redirectUri: string;
  userId: Id;
  kind: UserKind;
  scope: string;
  codeChallenge: string;
  /** OpenID Connect `nonce` of the authorization request, echoed in the id_token. */
  nonce?: string;
  /** The invitation whose redemption issued the code (only its latest code is honoured). */
  invitationHash?: string;
}

export interface StoredCode extends CodeBinding {
  codeHash: string;
  /** The grant the code starts; set before use, so a replay knows what to revoke. */
  grantId: string;
  issuedAt: number;
  expiresAt: number;
  usedAt?: number;
}

/** A new code and the write that stores it (to join another transaction, e.g. an invitation's redemption). */
export function newAuthorizationCode(binding: CodeBinding): { code: string; stored: StoredCode; write: Write } {
  const code = randomAlphanumeric(CODE_LENGTH);
  const issuedAt = nowSeconds();
  const stored: StoredCode = { ...binding, codeHash: hashSecret(code), grantId: newGrantId(), issuedAt, expiresAt: issuedAt + AUTHORIZATION_CODE_SECONDS };
  return { code, stored, write: putNew({ ...keys.authorizationCode(stored.codeHash), ...stored }, () => conflict('Authorization code collision.')) };
}

export async function issueAuthorizationCode(binding: CodeBinding): Promise<{ code: string; stored: StoredCode }> {
  const { code, stored, write } = newAuthorizationCode(binding);
  await transact([write]);
  return { code, stored };
}

export interface CodeExchange {
  code: string;
  clientId: string;
  redirectUri: string;
  verifier: string | undefined;
}

/**
 * The stored code, if this exchange may use it: known, unused, unexpired, this client's, the same
 * redirect URI byte for byte, and a verifier that answers its challenge. Changes nothing, except
 * that a used code revokes its grant.
 */
export async function checkAuthorizationCode(exchange: CodeExchange): Promise<StoredCode> {
  if (exchange.verifier === undefined) throw oauthError('invalid_request', 'The parameter code_verifier is required (PKCE with S256).');
  const item = /^[A-Za-z0-9]{1,256}$/.test(exchange.code) ? await getItem(keys.authorizationCode(hashSecret(exchange.code))) : undefined;
  if (!item) throw oauthError('invalid_grant', 'The authorization code is invalid.');
  const stored = item as unknown as StoredCode;
  if (stored.usedAt !== undefined) {
    await revokeGrant(stored.grantId, stored.userId);
    throw oauthError('invalid_grant', 'The authorization code was already used; the tokens issued from it are revoked.');
  }
  if (stored.expiresAt <= nowSeconds()) throw oauthError('invalid_grant', 'The authorization code has expired.');
  if (stored.clientId !== exchange.clientId) throw oauthError('invalid_grant', 'The authorization code was issued to another client.');
  if (stored.redirectUri !== exchange.redirectUri) throw oauthError('invalid_grant', 'The redirect_uri differs from the one the code was issued for.');
  if (!verifierMatches(exchange.verifier, stored.codeChallenge)) throw oauthError('invalid_grant', 'The code_verifier does not match the code_challenge (PKCE S256).');
  return stored;
}

/**
 * The write that marks the code used, to run in the transaction that starts its grant. When it
 * fails, another request used the code in the meantime: the caller must treat that as a replay.
 */
export function markCodeUsed(stored: StoredCode, onReplay: () => HttpError): Write {
  return update(
    keys.authorizationCode(stored.codeHash),
    'SET #usedAt = :at',
    { condition: 'attribute_exists(pk) AND attribute_not_exists(#usedAt)', names: { '#usedAt': 'usedAt' }, values: { ':at': nowSeconds() } },
    onReplay,
  );
}
