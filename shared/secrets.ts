/**
 * Random secrets (invitation tokens, client ids and secrets, authorization codes, refresh tokens)
 * and how they are stored: only as a SHA-256 hash, compared in constant time. These secrets are
 * long and random, so a fast hash is enough; passwords use `auth/passwords.ts`.
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

const ALPHANUMERIC = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

/** Random alphanumeric text; every character equally likely (bytes >= 248 are rejected, 248 = 4 * 62). */
export function randomAlphanumeric(length: number): string {
  let out = '';
  while (out.length < length) {
    for (const byte of randomBytes(length * 2)) {
      if (byte < 248 && out.length < length) out += ALPHANUMERIC[byte % 62];
    }
  }
  return out;
}

/** SHA-256 of a secret, hex: what the directory stores and keys by. */
export function hashSecret(secret: string): string {
  return createHash('sha256').update(secret, 'utf8').digest('hex');
}

export function secretMatches(secret: string, storedHash: string | undefined): boolean {
  if (!storedHash) return false;
  const a = Buffer.from(hashSecret(secret), 'hex');
  const b = Buffer.from(storedHash, 'hex');
  return a.length === b.length && timingSafeEqual(a, b);
}
