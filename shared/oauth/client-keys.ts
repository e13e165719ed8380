/**
 * A backend client's public keys (SMART Backend Services; RFC 7517 JWK Sets, registered as RFC 7591
 * `jwks`): read strictly into the public keys the service verifies RS384 and ES384 signatures
 * with, and the one key an assertion's header names. `jose` parses and imports every key, so a key
 * is kept only if it can verify.
 */
import { importJWK, type JWK } from 'jose';
import { fieldErrors } from '../http/errors';
import type { PublicJwk, PublicJwkSet } from '../directory/model';
import { isObject } from '../json';

/** The signatures a client assertion may carry. */
export const ASSERTION_ALGORITHMS = ['RS384', 'ES384'] as const;
export type AssertionAlgorithm = (typeof ASSERTION_ALGORITHMS)[number];

/** Keys a registered set may hold (the current key and its successor, and room to spare). */
export const MAX_CLIENT_KEYS = 10;

/** RSA moduli accepted: RFC 7518 asks 2048 bits at least; beyond 4096, an assertion outgrows the form's limit. */
const RSA_BITS = { min: 2048, max: 4096 };

/** What each key type verifies, and its public members (everything else of a JWK is left out). */
const KEY_TYPES = {
  RSA: { alg: 'RS384', members: ['n', 'e'] },
  EC: { alg: 'ES384', members: ['crv', 'x', 'y'] },
} as const;

/** Members that hold private (or symmetric) key material: a set with any of them is refused whole. */
const PRIVATE_MEMBERS = ['d', 'p', 'q', 'dp', 'dq', 'qi', 'oth', 'k'];

/** A key id: printable ASCII without spaces, as long as any client needs. */
const KID = /^[\x21-\x7E]{1,128}$/;

/** The key with its public members only, or why it cannot be used to verify an assertion. */
export async function publicKeyOf(value: unknown): Promise<PublicJwk | string> {
  if (!isObject(value)) return 'Each key must be a JSON object (a JWK).';
  const kty = value.kty;
  if (kty !== 'RSA' && kty !== 'EC') return 'Each key needs kty RSA (for RS384) or EC (for ES384).';
  const secret = PRIVATE_MEMBERS.find((m) => Object.hasOwn(value, m));
  if (secret) return `A key holds private key material (${secret}): register the public key only, and keep the private key secret.`;
  const kid = value.kid;
  if (typeof kid !== 'string' || !KID.test(kid)) return 'Each key needs a kid: 1 to 128 printable characters without spaces.';
  const type = KEY_TYPES[kty];
  if (value.alg !== undefined && value.alg !== type.alg) return `The ${kty} key ${kid} may only sign ${type.alg}.`;
  if (value.use !== undefined && value.use !== 'sig') return `The key ${kid} is not a signing key (use must be sig).`;
  if (kty === 'EC' && value.crv !== 'P-384') return `The EC key ${kid} must be on the P-384 curve (ES384).`;
  const jwk: Record<string, string> = { kty, kid };
  for (const member of type.members) {
    const text = value[member];
    if (typeof text !== 'string' || text.length === 0 || text.length > 1024) return `The key ${kid} lacks a valid ${member}.`;
    jwk[member] = text;
  }
  if (typeof value.alg === 'string') jwk.alg = value.alg;
  try {
    const key = await importJWK(jwk as JWK, type.alg);
    const bits = (key as CryptoKey).algorithm as RsaHashedKeyAlgorithm;
    if (kty === 'RSA' && !(bits.modulusLength >= RSA_BITS.min && bits.modulusLength <= RSA_BITS.max)) {
      return `The RSA key ${kid} must have ${RSA_BITS.min} to ${RSA_BITS.max} bits.`;
    }
  } catch {
    return `The key ${kid} is not a valid ${kty} public key.`;
  }
  return jwk;
}

/** A JWK Set given at registration, as the service keeps it; 400 field errors on `jwks` otherwise. */
export async function readClientJwks(value: unknown): Promise<PublicJwkSet> {
  const refuse = (message: string) => fieldErrors({ jwks: [message] });
  if (!isObject(value) || !Array.isArray(value.keys)) throw refuse('A JWK Set is an object with a list of keys: {"keys": [...]}.');
  if (value.keys.length === 0 || value.keys.length > MAX_CLIENT_KEYS) throw refuse(`A JWK Set holds 1 to ${MAX_CLIENT_KEYS} keys.`);
  const keys: PublicJwk[] = [];
  for (const entry of value.keys) {
    const key = await publicKeyOf(entry);
    if (typeof key === 'string') throw refuse(key);
    if (keys.some((k) => k.kid === key.kid)) throw refuse(`Two keys have the kid ${key.kid}: each key needs its own.`);
    keys.push(key);
  }
  return { keys };
}

/** The keys of a set fetched from a client's `jwks_uri` that can verify an assertion; the others are skipped. */
export async function usableKeys(value: unknown, limit: number): Promise<PublicJwk[]> {
  if (!isObject(value) || !Array.isArray(value.keys)) return [];
  const keys = await Promise.all(value.keys.slice(0, limit).map(publicKeyOf));
  return keys.filter((k): k is PublicJwk => typeof k !== 'string');
}

/**
 * The one key of the set that verifies the assertion: its `kid` is the header's and its type fits
 * the header's algorithm (SMART's rule); none, or more than one, is no key.
 */
export function chooseKey(keys: readonly PublicJwk[], header: { alg: AssertionAlgorithm; kid: string }): PublicJwk | undefined {
  const matching = keys.filter((k) => k.kid === header.kid && (k.kty === 'RSA' || k.kty === 'EC') && KEY_TYPES[k.kty].alg === header.alg);
  return matching.length === 1 ? matching[0] : undefined;
}
