import { describe, expect, it } from 'vitest';
import { grantedScope, grantedSystemScope, narrowedScope, parseScope } from '../../../shared/oauth/scopes';

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

describe('system scopes', () => {
  it('grants the system read scopes asked for, and refuses any other', () => {
    expect(grantedSystemScope('system/*.rs')).toBe('system/*.rs');
    expect(grantedSystemScope('openid system/Observation.rs system/Patient.read user/*.rs system/Observation.rs')).toBe('system/Observation.rs system/Patient.read');
    for (const refused of [undefined, '', 'system/*.cruds', 'system/*.r', 'system/observation.rs', 'system/Observation.rs.x', 'system/__proto__.rs', 'user/*.rs']) {
      expect(() => grantedSystemScope(refused), String(refused)).toThrow(expect.objectContaining({ status: 400, oauthError: 'invalid_scope' }));
    }
  });
});
