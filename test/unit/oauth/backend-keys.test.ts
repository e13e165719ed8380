/** The pieces of backend services that need no store: scopes, key choice, the JWK Set URL policy, how long a fetched set is kept. */
import { afterEach, describe, expect, it } from 'vitest';
import { resetConfig } from '../../../shared/config';
import { chooseKey } from '../../../shared/oauth/client-keys';
import { jwksUriProblem, keepMs } from '../../../shared/oauth/jwks-uri';
import { systemScopeTypes } from '../../../shared/auth/claims';
import { grantedSystemScope } from '../../../shared/oauth/scopes';

afterEach(() => {
  delete process.env.JWKS_URI_LOOPBACK;
  resetConfig();
});

describe('system scopes', () => {
  it('grants the system read scopes asked for, and tells the types they cover', () => {
    expect(grantedSystemScope('system/*.rs')).toBe('system/*.rs');
    expect(grantedSystemScope('openid system/Observation.rs system/Patient.read user/*.rs system/Observation.rs')).toBe('system/Observation.rs system/Patient.read');
    for (const refused of [undefined, '', 'system/*.cruds', 'system/*.r', 'system/observation.rs', 'system/Observation.rs.x', 'system/__proto__.rs', 'user/*.rs']) {
      expect(() => grantedSystemScope(refused), String(refused)).toThrow(expect.objectContaining({ status: 400, oauthError: 'invalid_scope' }));
    }
    expect(systemScopeTypes(['system/*.rs'])).toBe('*');
    expect(systemScopeTypes(['system/Observation.rs', 'system/*.read'])).toBe('*');
    expect([...(systemScopeTypes(['system/Observation.rs', 'system/Patient.read', 'openid']) as Set<string>)]).toEqual(['Observation', 'Patient']);
    expect(systemScopeTypes(['user/*.rs', 'patient/*.rs'])).toBeUndefined();
    expect(systemScopeTypes([])).toBeUndefined();
  });
});

describe('choosing the key of an assertion', () => {
  const ec = { kty: 'EC', kid: 'a', crv: 'P-384', x: 'x', y: 'y' };
  const rsa = { kty: 'RSA', kid: 'a', n: 'n', e: 'AQAB' };
  it('takes the one key with the kid whose type fits the algorithm', () => {
    expect(chooseKey([ec, rsa], { alg: 'ES384', kid: 'a' })).toBe(ec);
    expect(chooseKey([ec, rsa], { alg: 'RS384', kid: 'a' })).toBe(rsa);
    expect(chooseKey([ec], { alg: 'RS384', kid: 'a' })).toBeUndefined();
    expect(chooseKey([ec], { alg: 'ES384', kid: 'b' })).toBeUndefined();
    expect(chooseKey([ec, { ...ec, x: 'other' }], { alg: 'ES384', kid: 'a' })).toBeUndefined();
    expect(chooseKey([{ kty: 'oct', kid: 'a', k: 'x' }], { alg: 'ES384', kid: 'a' })).toBeUndefined();
  });
});

describe('the JWK Set URL policy', () => {
  it('takes https URLs of public hosts only; loopback http only with the setting', () => {
    expect(jwksUriProblem('https://keys.example.org/.well-known/jwks.json')).toBeUndefined();
    expect(jwksUriProblem('https://93.184.216.34/jwks')).toBeUndefined();
    for (const [uri, problem] of [
      ['http://keys.example.org/jwks', /https URL/],
      ['http://127.0.0.1:8080/jwks', /https URL/],
      ['file:///etc/passwd', /https URL/],
      ['https://10.1.2.3/jwks', /public host/],
      ['https://172.16.0.1/jwks', /public host/],
      ['https://192.168.1.1/jwks', /public host/],
      ['https://169.254.169.254/latest/meta-data', /public host/],
      ['https://100.64.0.1/jwks', /public host/],
      ['https://0.0.0.0/jwks', /public host/],
      ['https://[::1]/jwks', /public host/],
      ['https://[fd00::1]/jwks', /public host/],
      ['https://[fe80::1]/jwks', /public host/],
      ['https://[::ffff:127.0.0.1]/jwks', /public host/],
      ['https://a:b@keys.example.org/jwks', /credentials/],
      ['https://keys.example.org/jwks#k', /fragment/],
      ['not a url', /valid URL/],
    ] as const) {
      expect(jwksUriProblem(uri), uri).toMatch(problem);
    }
    process.env.JWKS_URI_LOOPBACK = '1';
    resetConfig();
    for (const uri of ['http://127.0.0.1:8080/jwks', 'http://localhost:8080/jwks', 'http://[::1]:8080/jwks', 'https://127.0.0.1/jwks']) expect(jwksUriProblem(uri), uri).toBeUndefined();
    expect(jwksUriProblem('http://keys.example.org/jwks')).toMatch(/https URL/);
    expect(jwksUriProblem('https://10.1.2.3/jwks')).toMatch(/public host/);
  });

  it('keeps a fetched set as its Cache-Control says: max-age capped at an hour, five minutes without, never with no-store or no-cache', () => {
    expect(keepMs(undefined)).toBe(300_000);
    expect(keepMs('public, max-age=60')).toBe(60_000);
    expect(keepMs('max-age=999999')).toBe(3_600_000);
    expect(keepMs('max-age=0')).toBe(0);
    expect(keepMs('no-store')).toBe(0);
    expect(keepMs('max-age=600, no-cache')).toBe(0);
    expect(keepMs('private')).toBe(300_000);
  });
});
