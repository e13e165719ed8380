/** Invitation codes: host and token, the refused redemptions in plain words, the PKCE verifier. */
import { describe, expect, it } from 'vitest';
import { invitationVerifier } from '../../../shared/oauth/invitation-verifier';
import { parseInvitationCode, redemptionProblem } from '../../../shared/portal/invitation';
import { PROBLEMS } from '../../../shared/portal/messages';

describe('invitation codes', () => {
  it('splits host and token, and refuses anything else', () => {
    const token = 'A'.repeat(32);
    expect(parseInvitationCode(`localhost:8000_${token}`)).toEqual({ host: 'localhost:8000', token });
    expect(parseInvitationCode(token)).toBeUndefined();
    expect(parseInvitationCode(`a_b_${token}`)).toBeUndefined();
    expect(parseInvitationCode(`host_not-a-token!`)).toBeUndefined();
  });

  it('names each refused redemption', () => {
    expect([404, 410, 403, 409, 500].map(redemptionProblem)).toEqual(['invitation-unknown', 'invitation-expired', 'invitation-cancelled', 'invitation-replaced', 'service-error']);
    for (const text of Object.values(PROBLEMS)) expect(text).toMatch(/^[A-Z].*\.$/);
  });

  it('derives the PKCE verifier the server expects (unpadded base64url of the token)', () => {
    expect(invitationVerifier('abcDEF123')).toBe(Buffer.from('abcDEF123').toString('base64url'));
  });
});
