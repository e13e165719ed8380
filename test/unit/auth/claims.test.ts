import { describe, expect, it } from 'vitest';
import { apiKeyGrantId, systemScopeTypes } from '../../../shared/auth/claims';

describe("what a token's claims say", () => {
  it('tells the resource types system scopes cover: every type, some, or none for a token without them', () => {
    expect(systemScopeTypes(['system/*.rs'])).toBe('*');
    expect(systemScopeTypes(['system/Observation.rs', 'system/*.read'])).toBe('*');
    expect([...(systemScopeTypes(['system/Observation.rs', 'system/Patient.read', 'openid']) as Set<string>)]).toEqual(['Observation', 'Patient']);
    expect(systemScopeTypes(['user/*.rs', 'patient/*.rs'])).toBeUndefined();
    expect(systemScopeTypes([])).toBeUndefined();
  });

  it('gives every token of an API key the grant id its deletion revokes', () => {
    expect(apiKeyGrantId('abc')).toBe('key:abc');
    expect(apiKeyGrantId('abc')).not.toBe(apiKeyGrantId('abd'));
  });
});
