import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { invitationVerifier, isS256Challenge, isVerifier, s256Challenge, verifierMatches } from '../../../shared/oauth/pkce';
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
