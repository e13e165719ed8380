/**
 * What a source of token-signing keys offers. In a module of its own so the providers (KMS, local
 * files) and the chooser of a provider (`signing-keys.ts`) all depend on it and not on each other.
 */
import type { JWK, JWTPayload } from 'jose';

export const TOKEN_ALG = 'ES256';

/** A public key tokens may be verified with. */
export interface VerificationKey {
  kid: string;
  /** Public JWK with `kid`, `alg` and `use` (as published in a JWKS). */
  jwk: JWK;
  key: CryptoKey;
}

export interface SigningKeyProvider {
  /** Signs the payload as a compact JWS (ES256) whose header carries `typ` and the current `kid`. */
  sign(payload: JWTPayload, typ: string): Promise<string>;
  /** The key with this `kid`, if it belongs to the current key set. */
  verificationKey(kid: string): Promise<VerificationKey | undefined>;
  /** Every key of the current key set (current first), for the JWKS endpoint. */
  verificationKeys(): Promise<VerificationKey[]>;
}
