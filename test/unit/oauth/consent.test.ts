/** Who is asked for consent, what the page says a client will see, and when an approval covers a request. */
import { describe, expect, it } from 'vitest';
import { isRevoked } from '../../../shared/auth/authenticate';
import { audienceOf, withdrawal } from '../../../shared/auth/claims';
import { covers, describeAccess, needsConsent, unionOf } from '../../../shared/oauth/consent';
import { PORTAL_CLIENT_ID, WEB_CLIENT_ID } from '../../../shared/oauth/service-clients';

describe('consent', () => {
  it("asks for every client but the service's own", () => {
    expect([WEB_CLIENT_ID, PORTAL_CLIENT_ID, 'assistant', 'https://assistant.example/client.json'].map((clientId) => needsConsent({ clientId }))).toEqual([false, false, true, true]);
  });

  it('describes the data by resource and kind of account, then what the scopes name', () => {
    const patientMcp = describeAccess({ scope: 'openid fhirUser email profile patient/*.rs', resource: 'mcp', kind: 'patient', refreshes: true });
    expect(patientMcp).toEqual([
      "your readings (Observations) and your clinical record (conditions, medications, allergies, lab results), read-only, through the assistants' endpoint /mcp",
      'who you are: your account and your Patient record',
      'your email address',
      'your name',
      'it stays connected while you are away, until you withdraw it on the page of your connected applications (/o/connections/)',
    ]);
    const doctorApis = describeAccess({ scope: 'user/*.cruds', resource: 'service', kind: 'practitioner', refreshes: false });
    expect(doctorApis).toHaveLength(1);
    expect(doctorApis[0]).toMatch(/^the readings \(Observations\) and clinical records of the patients you can see.*add and change records as you can yourself, through the FHIR and management APIs/);
  });

  it('covers the same or fewer scopes, and adds scopes up', () => {
    expect(covers('openid user/*.rs', 'user/*.rs openid')).toBe(true);
    expect(covers('openid user/*.rs', '')).toBe(true);
    expect(covers('openid user/*.rs', 'openid email')).toBe(false);
    expect(unionOf('openid user/*.rs', 'email openid')).toBe('openid user/*.rs email');
  });

  it("refuses a withdrawn client's tokens issued up to the withdrawal, for that resource only", () => {
    const at = 1_800_000_000;
    const user = { revocations: { [withdrawal.entry('assistant', 'mcp')]: withdrawal.forgottenAt(at) } };
    const token = (iat: number, client_id = 'assistant', aud = audienceOf('mcp')) => ({ jti: 'j', sid: 'g', client_id, aud, iat });
    expect(isRevoked(user, token(at - 600))).toBe(true);
    expect(isRevoked(user, token(at))).toBe(true);
    expect(isRevoked(user, token(at + 1))).toBe(false);
    expect(isRevoked(user, token(at - 600, 'another'))).toBe(false);
    expect(isRevoked(user, token(at - 600, 'assistant', audienceOf('service')))).toBe(false);
  });
});
