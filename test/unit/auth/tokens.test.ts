import { GetPublicKeyCommand, SignCommand } from '@aws-sdk/client-kms';
import { base64url, calculateJwkThumbprint, decodeJwt, decodeProtectedHeader, exportJWK, generateKeyPair, SignJWT, type JWTPayload } from 'jose';
import { generateKeyPairSync, sign as nodeSign } from 'node:crypto';
import { mkdtempSync, readdirSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { KmsSigningKeys, type KmsApi } from '../../../shared/auth/store/kms-signing-keys';
import { ACCESS_TOKEN_SECONDS } from '../../../shared/auth/lifetimes';
import { keysFolder, rotateLocalSigningKey } from '../../../shared/auth/local-signing-keys';
import { resetSigningKeys, signingKeys, useSigningKeys } from '../../../shared/auth/signing-keys';
import { forgetVerifiedTokens, issueAccessToken, tokenAudience, tokenIssuer, verifyAccessToken } from '../../../shared/auth/tokens';
import { resetConfig } from '../../../shared/config';

const saved = { DATA_DIR: process.env.DATA_DIR, SITE_URL: process.env.SITE_URL, TOKEN_SIGNING_KEY_ID: process.env.TOKEN_SIGNING_KEY_ID };

function useDataDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'cdx-tokens-'));
  process.env.DATA_DIR = dir;
  process.env.SITE_URL = 'https://exchange.example.test';
  delete process.env.TOKEN_SIGNING_KEY_ID;
  resetConfig();
  resetSigningKeys();
  forgetVerifiedTokens();
  return dir;
}

afterAll(() => {
  for (const [k, v] of Object.entries(saved)) if (v === undefined) delete process.env[k];
  else process.env[k] = v;
  resetConfig();
  resetSigningKeys();
});

const refused = expect.objectContaining({ status: 401, headers: expect.objectContaining({ 'WWW-Authenticate': expect.stringContaining('error="invalid_token"') }) });

async function validClaims(overrides: Partial<JWTPayload> = {}): Promise<JWTPayload> {
  const now = Math.floor(Date.now() / 1000);
  return { iss: tokenIssuer(), aud: tokenAudience(), sub: '7', iat: now, exp: now + 600, jti: 'j1', scope: 'openid', kind: 'practitioner', ...overrides };
}

async function currentKid(): Promise<string> {
  return (await (await signingKeys()).verificationKeys())[0]!.kid;
}

describe('access tokens with the local key', () => {
  let dir: string;
  beforeEach(() => {
    dir = useDataDir();
  });

  it('issues an RFC 9068 ES256 token that verifies without any store', async () => {
    const issued = await issueAccessToken({ userId: 42, kind: 'patient', scope: ['openid', 'email', 'openid'], clientId: 'portal' });
    expect(issued.tokenType).toBe('Bearer');
    expect(issued.expiresIn).toBe(ACCESS_TOKEN_SECONDS);
    const header = decodeProtectedHeader(issued.accessToken);
    expect(header).toEqual({ alg: 'ES256', typ: 'at+jwt', kid: await currentKid() });
    const claims = await verifyAccessToken(issued.accessToken);
    expect(claims).toMatchObject({ iss: 'https://exchange.example.test', aud: 'https://exchange.example.test', sub: '42', kind: 'patient', scope: 'openid email', client_id: 'portal' });
    expect(claims.exp - claims.iat).toBe(ACCESS_TOKEN_SECONDS);
    expect(claims.jti).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('never issues a token longer than the access-token lifetime', async () => {
    const issued = await issueAccessToken({ userId: 1, kind: 'practitioner', lifetimeSeconds: 10 * ACCESS_TOKEN_SECONDS });
    expect(issued.expiresIn).toBe(ACCESS_TOKEN_SECONDS);
  });

  it('keeps the generated key in the data folder, readable by the owner only', async () => {
    await issueAccessToken({ userId: 1, kind: 'practitioner' });
    const files = readdirSync(keysFolder(dir));
    expect(files).toHaveLength(1);
    expect(statSync(join(keysFolder(dir), files[0]!)).mode & 0o777).toBe(0o600);
    expect(statSync(keysFolder(dir)).mode & 0o777).toBe(0o700);
    expect(files[0]).toContain(await currentKid());
  });

  it('names the key by its JWK thumbprint', async () => {
    const [key] = await (await signingKeys()).verificationKeys();
    const { kid: _kid, alg: _alg, use: _use, ...publicJwk } = key!.jwk;
    expect(key!.kid).toBe(await calculateJwkThumbprint(publicJwk));
    expect(key!.jwk).not.toHaveProperty('d');
  });

  it('refuses alg none', async () => {
    const header = base64url.encode(JSON.stringify({ alg: 'none', typ: 'at+jwt', kid: await currentKid() }));
    const payload = base64url.encode(JSON.stringify(await validClaims()));
    await expect(verifyAccessToken(`${header}.${payload}.`)).rejects.toEqual(refused);
  });

  it('refuses HS256 signed with the public key', async () => {
    const [key] = await (await signingKeys()).verificationKeys();
    const kid = key!.kid;
    for (const secret of [JSON.stringify(key!.jwk), key!.jwk.x!, (await exportJWK(key!.key)).x!]) {
      const forged = await new SignJWT(await validClaims()).setProtectedHeader({ alg: 'HS256', typ: 'at+jwt', kid }).sign(new TextEncoder().encode(secret));
      await expect(verifyAccessToken(forged)).rejects.toEqual(refused);
    }
  });

  it('refuses a token signed by another key, even with our kid', async () => {
    const { privateKey } = await generateKeyPair('ES256');
    const forged = await new SignJWT(await validClaims()).setProtectedHeader({ alg: 'ES256', typ: 'at+jwt', kid: await currentKid() }).sign(privateKey);
    await expect(verifyAccessToken(forged)).rejects.toEqual(refused);
  });

  it('refuses a tampered payload', async () => {
    const { accessToken } = await issueAccessToken({ userId: 5, kind: 'patient' });
    const [h, , s] = accessToken.split('.');
    const claims = decodeJwt(accessToken);
    for (const change of [{ sub: '6' }, { kind: 'practitioner' }, { exp: claims.exp! + 3600 }]) {
      const payload = base64url.encode(JSON.stringify({ ...claims, ...change }));
      await expect(verifyAccessToken(`${h}.${payload}.${s}`)).rejects.toEqual(refused);
    }
  });

  it('refuses expired tokens, other issuers, audiences and token types', async () => {
    const provider = await signingKeys();
    const now = Math.floor(Date.now() / 1000);
    const bad: Array<[Partial<JWTPayload>, string]> = [
      [{ iat: now - 1000, exp: now - 60 }, 'at+jwt'],
      [{ iss: 'https://evil.example' }, 'at+jwt'],
      [{ aud: 'https://other.example' }, 'at+jwt'],
      [{}, 'JWT'],
      [{ sub: 'admin' }, 'at+jwt'],
      [{ sub: '0' }, 'at+jwt'],
      [{ kind: 'superuser' }, 'at+jwt'],
      [{ jti: undefined }, 'at+jwt'],
      // Issued an hour from now: not by this service's clock.
      [{ iat: now + 3600, exp: now + 4200 }, 'at+jwt'],
    ];
    for (const [change, typ] of bad) {
      const token = await provider.sign(await validClaims(change), typ);
      await expect(verifyAccessToken(token), JSON.stringify(change) + typ).rejects.toEqual(refused);
    }
    // The same construction with nothing changed is accepted: the refusals above are about the change.
    await expect(verifyAccessToken(await provider.sign(await validClaims(), 'at+jwt'))).resolves.toMatchObject({ sub: '7' });
  });

  it('refuses garbage, a missing kid and an unknown kid', async () => {
    for (const token of ['', 'abc', 'a.b.c', 'x'.repeat(5000)]) await expect(verifyAccessToken(token)).rejects.toEqual(refused);
    const { privateKey } = await generateKeyPair('ES256');
    const noKid = await new SignJWT(await validClaims()).setProtectedHeader({ alg: 'ES256', typ: 'at+jwt' }).sign(privateKey);
    const otherKid = await new SignJWT(await validClaims()).setProtectedHeader({ alg: 'ES256', typ: 'at+jwt', kid: 'nope' }).sign(privateKey);
    await expect(verifyAccessToken(noKid)).rejects.toEqual(refused);
    await expect(verifyAccessToken(otherKid)).rejects.toEqual(refused);
  });

  it('rotates: new tokens carry the new kid, tokens of the old key stay valid', async () => {
    const before = await issueAccessToken({ userId: 3, kind: 'patient' });
    const oldKid = decodeProtectedHeader(before.accessToken).kid;
    const newKid = await rotateLocalSigningKey(dir, Date.now() + 1000);
    resetSigningKeys();
    const after = await issueAccessToken({ userId: 3, kind: 'patient' });
    expect(decodeProtectedHeader(after.accessToken).kid).toBe(newKid);
    expect(newKid).not.toBe(oldKid);
    await expect(verifyAccessToken(before.accessToken)).resolves.toMatchObject({ sub: '3' });
    await expect(verifyAccessToken(after.accessToken)).resolves.toMatchObject({ sub: '3' });
  });

  it('remembers verified tokens, but a remembered token still expires and still needs our issuer', async () => {
    const { accessToken } = await issueAccessToken({ userId: 8, kind: 'patient' });
    const first = await verifyAccessToken(accessToken);
    first.sub = '9';
    expect((await verifyAccessToken(accessToken)).sub).toBe('8');
    vi.useFakeTimers({ toFake: ['Date'] });
    try {
      vi.setSystemTime(Date.now() + (ACCESS_TOKEN_SECONDS + 60) * 1000);
      await expect(verifyAccessToken(accessToken)).rejects.toEqual(refused);
    } finally {
      vi.useRealTimers();
    }
    const again = await issueAccessToken({ userId: 8, kind: 'patient' });
    await verifyAccessToken(again.accessToken);
    process.env.SITE_URL = 'https://elsewhere.example.test';
    resetConfig();
    await expect(verifyAccessToken(again.accessToken)).rejects.toEqual(refused);
  });

  it('picks up a key another process added (the running service and the token tool)', async () => {
    await issueAccessToken({ userId: 3, kind: 'patient' }); // this process has loaded its key set
    await rotateLocalSigningKey(dir, Date.now() + 1000);
    const other = new (await import('../../../shared/auth/local-signing-keys')).LocalSigningKeys(dir);
    const token = await other.sign(await validClaims(), 'at+jwt');
    await expect(verifyAccessToken(token)).resolves.toMatchObject({ sub: '7' });
  });
});

/** A stand-in for KMS: holds P-256 keys, signs with DER signatures and serves SPKI public keys, as KMS does. */
function fakeKms() {
  const keys = new Map([
    ['key-1', generateKeyPairSync('ec', { namedCurve: 'P-256' })],
    ['key-0', generateKeyPairSync('ec', { namedCurve: 'P-256' })],
  ]);
  const calls = { sign: 0, getPublicKey: 0 };
  const api: KmsApi = {
    send: (async (command: unknown) => {
      if (command instanceof SignCommand) {
        calls.sign += 1;
        const { KeyId, Message, SigningAlgorithm, MessageType } = command.input;
        expect(SigningAlgorithm).toBe('ECDSA_SHA_256');
        expect(MessageType).toBe('RAW');
        return { Signature: nodeSign('sha256', Message!, { key: keys.get(KeyId!)!.privateKey, dsaEncoding: 'der' }) };
      }
      if (command instanceof GetPublicKeyCommand) {
        calls.getPublicKey += 1;
        return { PublicKey: keys.get(command.input.KeyId!)!.publicKey.export({ format: 'der', type: 'spki' }) };
      }
      throw new Error('unexpected command');
    }) as KmsApi['send'],
  };
  return { api, calls };
}

describe('access tokens signed by KMS', () => {
  it('signs through KMS, verifies locally, and fetches each public key once', async () => {
    useDataDir();
    const kms = fakeKms();
    useSigningKeys(new KmsSigningKeys('key-1', ['key-0'], kms.api));
    const issued = await issueAccessToken({ userId: 9, kind: 'practitioner' });
    expect(kms.calls.sign).toBe(1);
    for (let i = 0; i < 20; i += 1) await expect(verifyAccessToken(issued.accessToken)).resolves.toMatchObject({ sub: '9' });
    expect(kms.calls.getPublicKey).toBe(2);
    expect(kms.calls.sign).toBe(1);
    const [current, previous] = await (await signingKeys()).verificationKeys();
    expect(decodeProtectedHeader(issued.accessToken).kid).toBe(current!.kid);
    expect(current!.kid).not.toBe(previous!.kid);
  });

  it('accepts tokens of the previous key during a rotation, and none after it is dropped', async () => {
    useDataDir();
    const kms = fakeKms();
    useSigningKeys(new KmsSigningKeys('key-0', [], kms.api));
    const old = await issueAccessToken({ userId: 9, kind: 'practitioner' });
    useSigningKeys(new KmsSigningKeys('key-1', ['key-0'], kms.api));
    await expect(verifyAccessToken(old.accessToken)).resolves.toMatchObject({ sub: '9' });
    useSigningKeys(new KmsSigningKeys('key-1', [], kms.api));
    await expect(verifyAccessToken(old.accessToken)).rejects.toEqual(refused);
  });
});
