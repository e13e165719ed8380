/**
 * Local signing keys: ES256 private JWKs in `<dataDir>/keys/`, one file per key (mode 0600),
 * generated on first use. The newest file signs; every file verifies, so adding a key
 * (`rotateLocalSigningKey`) rotates without refusing live tokens. Files are created atomically
 * (written aside, then hard-linked into place), so processes sharing the folder (the service and
 * `npm run token`) never read half a key or sign with a key the other does not know.
 */
import { calculateJwkThumbprint, exportJWK, generateKeyPair, importJWK, SignJWT, type JWK, type JWTPayload } from 'jose';
import { randomBytes } from 'node:crypto';
import { chmodSync, linkSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { TOKEN_ALG, type SigningKeyProvider, type VerificationKey } from './signing-key-provider';

const FILE = /^signing-(\d{13})-[A-Za-z0-9_-]+\.jwk\.json$/;

interface LocalKey extends VerificationKey {
  privateKey: CryptoKey;
}

export function keysFolder(dataDir: string): string {
  return join(dataDir, 'keys');
}

/** Generates a key and adds it to the folder; it becomes the signing key. Returns its `kid`. */
export async function rotateLocalSigningKey(dataDir: string, createdAt = Date.now()): Promise<string> {
  const folder = keysFolder(dataDir);
  mkdirSync(folder, { recursive: true, mode: 0o700 });
  const { privateKey } = await generateKeyPair(TOKEN_ALG, { extractable: true });
  const jwk = await exportJWK(privateKey);
  const kid = await calculateJwkThumbprint({ kty: jwk.kty!, crv: jwk.crv!, x: jwk.x!, y: jwk.y! } as JWK);
  const final = join(folder, `signing-${String(createdAt).padStart(13, '0')}-${kid}.jwk.json`);
  const aside = join(folder, `.tmp-${randomBytes(8).toString('hex')}`);
  writeFileSync(aside, JSON.stringify({ ...jwk, kid, alg: TOKEN_ALG }), { mode: 0o600, flag: 'wx' });
  chmodSync(aside, 0o600);
  try {
    linkSync(aside, final);
  } finally {
    rmSync(aside, { force: true });
  }
  return kid;
}

function keyFiles(folder: string): string[] {
  try {
    return readdirSync(folder).filter((f) => FILE.test(f)).sort();
  } catch {
    return [];
  }
}

async function loadKey(path: string): Promise<LocalKey> {
  const jwk = JSON.parse(readFileSync(path, 'utf8')) as JWK & { kid: string };
  const { d: _private, ...publicJwk } = jwk;
  return {
    kid: jwk.kid,
    jwk: { kty: publicJwk.kty, crv: publicJwk.crv, x: publicJwk.x, y: publicJwk.y, kid: jwk.kid, alg: TOKEN_ALG, use: 'sig' } as JWK,
    key: (await importJWK(publicJwk, TOKEN_ALG)) as CryptoKey,
    privateKey: (await importJWK(jwk, TOKEN_ALG)) as CryptoKey,
  };
}

export class LocalSigningKeys implements SigningKeyProvider {
  private readonly folder: string;
  private loaded: Promise<LocalKey[]> | undefined;
  private lastReload = 0;

  constructor(private readonly dataDir: string) {
    this.folder = keysFolder(dataDir);
  }

  /** The key set, newest first; generates the first key when the folder has none. */
  private async keys(): Promise<LocalKey[]> {
    this.loaded ??= (async () => {
      if (keyFiles(this.folder).length === 0) await rotateLocalSigningKey(this.dataDir);
      const files = keyFiles(this.folder).reverse();
      return Promise.all(files.map((f) => loadKey(join(this.folder, f))));
    })().catch((e) => {
      this.loaded = undefined;
      throw e;
    });
    return this.loaded;
  }

  async sign(payload: JWTPayload, typ: string): Promise<string> {
    const [current] = await this.keys();
    return new SignJWT(payload).setProtectedHeader({ alg: TOKEN_ALG, typ, kid: current!.kid }).sign(current!.privateKey);
  }

  async verificationKey(kid: string): Promise<VerificationKey | undefined> {
    const found = (await this.keys()).find((k) => k.kid === kid);
    if (found) return found;
    // Another process may have rotated: look at the folder again, at most once a second.
    if (Date.now() - this.lastReload < 1000 || !keyFiles(this.folder).some((f) => f.includes(kid))) return undefined;
    this.lastReload = Date.now();
    this.loaded = undefined;
    return (await this.keys()).find((k) => k.kid === kid);
  }

  async verificationKeys(): Promise<VerificationKey[]> {
    return (await this.keys()).map(({ kid, jwk, key }) => ({ kid, jwk, key }));
  }
}
