import { afterEach, describe, expect, it } from 'vitest';
import { resetConfig } from '../../../shared/config';
import { jwksUriProblem, keepMs } from '../../../shared/oauth/jwks-uri';

afterEach(() => {
  delete process.env.JWKS_URI_LOOPBACK;
  resetConfig();
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
