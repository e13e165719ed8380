/**
 * Signing keys held by AWS KMS (ECC_NIST_P256, SIGN_VERIFY): the Lambda sends the JWS signing input
 * to `kms:Sign` and never sees the private key. Public keys come from `kms:GetPublicKey`, once per
 * key and process; verification itself is local (no KMS or database call per request).
 */
import { GetPublicKeyCommand, KMSClient, SignCommand } from '@aws-sdk/client-kms';
import { base64url, calculateJwkThumbprint, importJWK, type JWK, type JWTPayload } from 'jose';
import { createPublicKey } from 'node:crypto';
import { traced } from '../../telemetry/tracer';
import { derToJose } from '../der';
import { TOKEN_ALG, type SigningKeyProvider, type VerificationKey } from '../signing-key-provider';

/** The part of the KMS client this provider uses (a test double can stand in). */
export type KmsApi = Pick<KMSClient, 'send'>;

interface KmsKey extends VerificationKey {
  keyId: string;
}

const text = new TextEncoder();

export class KmsSigningKeys implements SigningKeyProvider {
  private readonly keyIds: readonly string[];
  private loaded: Promise<KmsKey[]> | undefined;

  /** `keyId` signs; `previousKeyIds` only verify (tokens signed before a rotation). */
  constructor(
    private readonly keyId: string,
    previousKeyIds: readonly string[] = [],
    private readonly kms: KmsApi = traced(new KMSClient({ maxAttempts: 4 })),
  ) {
    this.keyIds = [keyId, ...previousKeyIds.filter((k) => k !== keyId)];
  }

  private async publicKey(keyId: string): Promise<KmsKey> {
    const out = await this.kms.send(new GetPublicKeyCommand({ KeyId: keyId }));
    if (!out.PublicKey) throw new Error(`KMS returned no public key for ${keyId}`);
    const exported = createPublicKey({ key: Buffer.from(out.PublicKey), format: 'der', type: 'spki' }).export({ format: 'jwk' }) as JWK;
    if (exported.kty !== 'EC' || exported.crv !== 'P-256') throw new Error(`KMS key ${keyId} is not an ECC_NIST_P256 key`);
    const kid = await calculateJwkThumbprint(exported);
    const jwk: JWK = { kty: 'EC', crv: 'P-256', x: exported.x!, y: exported.y!, kid, alg: TOKEN_ALG, use: 'sig' };
    return { keyId, kid, jwk, key: (await importJWK(jwk, TOKEN_ALG)) as CryptoKey };
  }

  private keys(): Promise<KmsKey[]> {
    this.loaded ??= Promise.all(this.keyIds.map((id) => this.publicKey(id))).catch((e) => {
      this.loaded = undefined;
      throw e;
    });
    return this.loaded;
  }

  async sign(payload: JWTPayload, typ: string): Promise<string> {
    const [current] = await this.keys();
    const header = base64url.encode(JSON.stringify({ alg: TOKEN_ALG, typ, kid: current!.kid }));
    const input = `${header}.${base64url.encode(JSON.stringify(payload))}`;
    const out = await this.kms.send(
      new SignCommand({ KeyId: this.keyId, Message: text.encode(input), MessageType: 'RAW', SigningAlgorithm: 'ECDSA_SHA_256' }),
    );
    if (!out.Signature) throw new Error('KMS returned no signature');
    return `${input}.${base64url.encode(derToJose(out.Signature))}`;
  }

  async verificationKey(kid: string): Promise<VerificationKey | undefined> {
    return (await this.keys()).find((k) => k.kid === kid);
  }

  async verificationKeys(): Promise<VerificationKey[]> {
    return this.keys();
  }
}
