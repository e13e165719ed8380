import { execFileSync } from 'node:child_process';
import { generateKeyPairSync } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { holdsPrivateKey, repositoryProblems } from '../../../scripts/check-repository';

const REPO = join(import.meta.dirname, '..', '..', '..');

describe('what the repository carries', () => {
  it('tracks no ignored file and no private key', () => {
    expect(repositoryProblems(REPO)).toEqual([]);
  });
});

describe('the repository check on planted files', () => {
  const dir = mkdtempSync(join(tmpdir(), 'repo-check-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const git = (...args: string[]) => execFileSync('git', ['-C', dir, ...args], { stdio: 'pipe' });
  git('init', '-q');
  writeFileSync(join(dir, '.gitignore'), '.data-*/\n');
  writeFileSync(join(dir, 'README.md'), 'A repository with nothing to hide.\n');
  git('add', '.gitignore', 'README.md');

  const pair = generateKeyPairSync('ec', { namedCurve: 'P-384' });
  const privateJwk = pair.privateKey.export({ format: 'jwk' });
  const publicJwk = pair.publicKey.export({ format: 'jwk' });

  it('finds nothing in a clean repository, public keys included', () => {
    writeFileSync(join(dir, 'jwks.json'), JSON.stringify({ keys: [{ ...publicJwk, kid: 'k1', alg: 'ES384' }] }, null, 2));
    git('add', 'jwks.json');
    expect(repositoryProblems(dir)).toEqual([]);
  });

  it('finds a data folder added past .gitignore', () => {
    mkdirSync(join(dir, '.data-planted', 'dynamodb'), { recursive: true });
    writeFileSync(join(dir, '.data-planted', 'dynamodb', 'shared-local-instance.db'), Buffer.from([0, 1, 2, 3]));
    git('add', '--force', '.data-planted');
    expect(repositoryProblems(dir)).toEqual([{ path: '.data-planted/dynamodb/shared-local-instance.db', why: 'ignored' }]);
    git('rm', '-q', '--cached', '-r', '.data-planted');
  });

  it('finds a private JWK, a PEM private key, and one inside a binary file', () => {
    mkdirSync(join(dir, 'keys'));
    writeFileSync(join(dir, 'keys', 'signing.jwk.json'), JSON.stringify({ ...privateJwk, kid: 'k1' }));
    writeFileSync(join(dir, 'keys', 'signing.pem'), pair.privateKey.export({ format: 'pem', type: 'pkcs8' }));
    writeFileSync(join(dir, 'keys', 'store.db'), Buffer.concat([Buffer.from([0, 255, 0]), Buffer.from(JSON.stringify({ d: privateJwk.d, kty: 'EC' })), Buffer.from([0])]));
    git('add', 'keys');
    expect(repositoryProblems(dir)).toEqual([
      { path: 'keys/signing.jwk.json', why: 'private key' },
      { path: 'keys/signing.pem', why: 'private key' },
      { path: 'keys/store.db', why: 'private key' },
    ]);
  });

  it('tells private from public material', () => {
    const rsa = generateKeyPairSync('rsa', { modulusLength: 2048 });
    expect(holdsPrivateKey(Buffer.from(rsa.privateKey.export({ format: 'pem', type: 'pkcs1' })))).toBe(true);
    expect(holdsPrivateKey(Buffer.from(JSON.stringify(rsa.privateKey.export({ format: 'jwk' }), null, 2)))).toBe(true);
    expect(holdsPrivateKey(Buffer.from(rsa.publicKey.export({ format: 'pem', type: 'spki' })))).toBe(false);
    expect(holdsPrivateKey(Buffer.from(JSON.stringify(rsa.publicKey.export({ format: 'jwk' }))))).toBe(false);
    // A cursor's `d` or a payload's: no key type beside it.
    expect(holdsPrivateKey(Buffer.from(JSON.stringify({ s: 'digest', d: 'n', at: 1 })))).toBe(false);
  });
});
