import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { redirectWith } from '../../../shared/oauth/authorize';
import { parseParams } from '../../../shared/oauth/form';
import { escapeHtml, formTargetOf } from '../../../shared/oauth/pages';
import { invitationVerifier, isS256Challenge, isVerifier, s256Challenge, verifierMatches } from '../../../shared/oauth/pkce';
import { grantedScope, narrowedScope, parseScope } from '../../../shared/oauth/scopes';
import { randomAlphanumeric } from '../../../shared/secrets';

describe('PKCE', () => {
  it('computes the RFC 7636 appendix B challenge', () => {
    expect(s256Challenge('dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk')).toBe('E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM');
    expect(verifierMatches('dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk', 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM')).toBe(true);
  });

  it('refuses verifiers outside RFC 7636 and challenges that are not S256', () => {
    expect(isVerifier('a'.repeat(42))).toBe(false);
    expect(isVerifier('a'.repeat(129))).toBe(false);
    expect(isVerifier(`${'a'.repeat(42)}+`)).toBe(false);
    expect(verifierMatches('E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM', 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM')).toBe(false);
    expect(isS256Challenge('E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM')).toBe(true);
    expect(isS256Challenge('E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM=')).toBe(false);
  });

  it("gives an invitation token's verifier as the portal computes it (unpadded standard Base64)", () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 1000 }), () => {
        const token = randomAlphanumeric(32);
        const portal = Buffer.from(token).toString('base64').replace(/=+$/, '');
        expect(invitationVerifier(token)).toBe(portal);
        expect(isVerifier(portal)).toBe(true);
      }),
      { numRuns: 300 },
    );
  });
});

describe('scopes', () => {
  it('grants the supported scopes asked for, the default otherwise, and patient scopes to patients only', () => {
    expect(grantedScope(undefined, 'practitioner')).toBe('openid email');
    expect(grantedScope('openid patient/Observation.read fhirUser', 'practitioner')).toBe('openid fhirUser');
    expect(grantedScope('launch/patient patient/*.rs', 'practitioner')).toBe('');
    expect(grantedScope('launch/patient patient/*.rs', 'patient')).toBe('launch/patient patient/*.rs');
    expect(() => parseScope('openid "x')).toThrow(/scope/);
    expect(() => parseScope('a'.repeat(1025))).toThrow(/longer/);
  });

  it('narrows on refresh, never widens', () => {
    expect(narrowedScope(undefined, 'openid email')).toBe('openid email');
    expect(narrowedScope('email', 'openid email')).toBe('email');
    expect(() => narrowedScope('openid profile', 'openid email')).toThrow(/profile/);
  });
});

describe('OAuth parameters', () => {
  it('reads form text strictly', () => {
    expect(parseParams('a=1&b=&c=x%20y')).toEqual({ a: '1', c: 'x y' });
    expect(() => parseParams('a=1&a=2')).toThrow(/more than once/);
    expect(() => parseParams(`a=${'x'.repeat(2049)}`)).toThrow(/longer/);
    expect(() => parseParams('a=%00')).toThrow(/control/);
    expect(() => parseParams(Array.from({ length: 31 }, (_, i) => `p${i}=1`).join('&'))).toThrow(/too many/);
  });

  it('adds response parameters to the registered redirect URI without changing it', () => {
    expect(redirectWith('https://app.example/cb', { code: 'a b', state: undefined })).toBe('https://app.example/cb?code=a+b');
    expect(redirectWith('https://app.example/cb?x=1', { code: 'c' })).toBe('https://app.example/cb?x=1&code=c');
    expect(redirectWith('com.example.app:/cb', { error: 'access_denied' })).toBe('com.example.app:/cb?error=access_denied');
  });
});

describe('pages', () => {
  it('escapes every character HTML could read as markup', () => {
    fc.assert(
      fc.property(fc.string(), (text) => {
        expect(escapeHtml(text)).not.toMatch(/[<>"']/);
      }),
    );
    expect(escapeHtml(`<a href="x">'&'</a>`)).toBe('&#60;a href=&#34;x&#34;&#62;&#39;&#38;&#39;&#60;/a&#62;');
  });

  it('allows form posts to the redirect URI origin, or its scheme for an app', () => {
    expect(formTargetOf('https://app.example:8443/cb?x=1')).toBe('https://app.example:8443');
    expect(formTargetOf('com.example.app:/cb')).toBe('com.example.app:');
    expect(formTargetOf('not a uri')).toBeUndefined();
  });
});
