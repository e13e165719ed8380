/**
 * Authorization codes: 60 seconds, single use, bound to the client, the exact redirect URI and a
 * PKCE S256 challenge. Stored only as a SHA-256 hash with a DynamoDB TTL, and every read checks the
 * expiry itself (TTL deletion is lazy). A code that comes back after it was used revokes the grant
 * it started (RFC 6749 §4.1.2); every other refusal changes nothing, so a request with a stolen code
 * but the wrong verifier cannot spoil the rightful client's exchange.
 */
import { AUTHORIZATION_CODE_SECONDS } from '../auth/lifetimes';
import { hashSecret, randomAlphanumeric } from '../secrets';
import { nowSeconds } from './clock';
import { oauthError } from './errors';
import { newGrantId, revokeGrant, type Grant } from './grants';
import { verifierMatches } from './pkce';
import { oauthStore } from './store/current';
import type { CodeBinding, StoredCode } from './store/port';

export type { CodeBinding, StoredCode } from './store/port';

export const CODE_LENGTH = 43;

const replayed = () => oauthError('invalid_grant', 'The authorization code was already used; the tokens issued from it are revoked.');

/** A new code, not stored yet (an invitation's redemption stores it with its own change). */
export function newAuthorizationCode(binding: CodeBinding): { code: string; stored: StoredCode } {
  const code = randomAlphanumeric(CODE_LENGTH);
  const issuedAt = nowSeconds();
  const stored: StoredCode = { ...binding, codeHash: hashSecret(code), grantId: newGrantId(), issuedAt, expiresAt: issuedAt + AUTHORIZATION_CODE_SECONDS };
  return { code, stored };
}

export async function issueAuthorizationCode(binding: CodeBinding): Promise<{ code: string; stored: StoredCode }> {
  const issued = newAuthorizationCode(binding);
  await oauthStore().codes.insert(issued.stored);
  return issued;
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
  const stored = /^[A-Za-z0-9]{1,256}$/.test(exchange.code) ? await oauthStore().codes.get(hashSecret(exchange.code)) : undefined;
  if (!stored) throw oauthError('invalid_grant', 'The authorization code is invalid.');
  if (stored.usedAt !== undefined) {
    await revokeGrant(stored.grantId, stored.userId);
    throw replayed();
  }
  if (stored.expiresAt <= nowSeconds()) throw oauthError('invalid_grant', 'The authorization code has expired.');
  if (stored.clientId !== exchange.clientId) throw oauthError('invalid_grant', 'The authorization code was issued to another client.');
  if (stored.redirectUri !== exchange.redirectUri) throw oauthError('invalid_grant', 'The redirect_uri differs from the one the code was issued for.');
  if (!verifierMatches(exchange.verifier, stored.codeChallenge)) throw oauthError('invalid_grant', 'The code_verifier does not match the code_challenge (PKCE S256).');
  return stored;
}

/**
 * Uses the code and stores the grant it starts, in one step. When another request used the code in
 * the meantime, this is a replay: the grant is revoked and the exchange refused.
 */
export async function useAuthorizationCode(stored: StoredCode, grant: Grant): Promise<void> {
  if (await oauthStore().codes.consume(stored.codeHash, nowSeconds(), grant)) return;
  await revokeGrant(stored.grantId, stored.userId);
  throw replayed();
}
