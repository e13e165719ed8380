/**
 * Where token signatures come from, behind one interface: locally an ES256 key file under
 * `$DATA_DIR/keys/`, on AWS the KMS key named by `TOKEN_SIGNING_KEY_ID`. Either way the private key
 * never sits in code or in an environment variable, and every key is named by its JWK thumbprint
 * (`kid`), so a rotation keeps earlier tokens verifiable while they live.
 */
import { config } from '../config';
import type { SigningKeyProvider } from './signing-key-provider';

let provider: SigningKeyProvider | undefined;
let providerFor: string | undefined;

/** Which key source the configuration names; a different answer means a different provider. */
function configuredSource(): string {
  const cfg = config();
  return cfg.signingKeyId ? `kms:${cfg.signingKeyId}:${cfg.previousSigningKeyIds.join(',')}` : `local:${cfg.dataDir ?? ''}`;
}

/** The process's key provider for the current configuration (KMS when a key id is set, else the data folder). */
export async function signingKeys(): Promise<SigningKeyProvider> {
  const cfg = config();
  const source = configuredSource();
  if (provider && providerFor === source) return provider;
  if (cfg.signingKeyId) {
    const { KmsSigningKeys } = await import('./store/kms-signing-keys');
    provider = new KmsSigningKeys(cfg.signingKeyId, cfg.previousSigningKeyIds);
  } else if (cfg.dataDir) {
    const { LocalSigningKeys } = await import('./local-signing-keys');
    provider = new LocalSigningKeys(cfg.dataDir);
  } else {
    throw new Error('No token signing key is configured: set TOKEN_SIGNING_KEY_ID (a KMS key) or DATA_DIR (local key files).');
  }
  providerFor = source;
  return provider;
}

/** Forget the provider (tests that change the configuration). */
export function resetSigningKeys(): void {
  provider = undefined;
  providerFor = undefined;
}

/** Tests and tools may install their own provider (e.g. one around a KMS test double). */
export function useSigningKeys(custom: SigningKeyProvider): void {
  provider = custom;
  providerFor = configuredSource();
}
