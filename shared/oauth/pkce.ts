/**
 * PKCE (RFC 7636) with the S256 method only: `plain` gives a stolen code to whoever intercepted the
 * authorization request, so it is never accepted.
 */
import { createHash, timingSafeEqual } from 'node:crypto';

export const S256 = 'S256';

/** RFC 7636 §4.1: 43 to 128 unreserved characters. */
const VERIFIER = /^[A-Za-z0-9\-._~]{43,128}$/;
/** An S256 challenge is the unpadded base64url of a SHA-256: exactly 43 characters. */
const CHALLENGE = /^[A-Za-z0-9\-_]{43}$/;

export function isVerifier(value: string): boolean {
  return VERIFIER.test(value);
}

export function isS256Challenge(value: string): boolean {
  return CHALLENGE.test(value);
}

/** The S256 challenge of a verifier: BASE64URL(SHA256(ASCII(verifier))), unpadded. */
export function s256Challenge(verifier: string): string {
  return createHash('sha256').update(verifier, 'ascii').digest('base64url');
}

/** Whether the verifier answers the challenge (compared in constant time). */
export function verifierMatches(verifier: string, challenge: string): boolean {
  if (!isVerifier(verifier)) return false;
  const a = Buffer.from(s256Challenge(verifier));
  const b = Buffer.from(challenge);
  return a.length === b.length && timingSafeEqual(a, b);
}

/** The verifier an invitation's holder proves with (shared with the portal page). */
export { invitationVerifier } from './invitation-verifier';
