/** The send's scopes in the syntax the hospital's SMART discovery document declares: v2 unless it declares v1 only. */
import { describe, expect, it } from 'vitest';
import { scopeSyntax, SEND_SCOPES, sendScopes } from '../../../shared/portal/send-scopes';

const V2 = 'openid fhirUser launch/patient patient/Observation.cu patient/DiagnosticReport.cu';
const V1 = 'openid fhirUser launch/patient patient/Observation.write patient/DiagnosticReport.write';
/** A discovery document as a server writes one, with these capabilities and scopes. */
const discovery = (capabilities: unknown, scopes?: unknown) => ({
  authorization_endpoint: 'https://ehr.example.org/authorize',
  token_endpoint: 'https://ehr.example.org/token',
  code_challenge_methods_supported: ['S256'],
  capabilities,
  ...(scopes === undefined ? {} : { scopes_supported: scopes }),
});
const LAUNCH = ['launch-standalone', 'client-public', 'context-standalone-patient', 'permission-patient'];

describe('the scopes of "Send to my hospital"', () => {
  it('are the CGM guide’s v2 scopes, or their v1 equivalents, the launch scopes the same', () => {
    expect(SEND_SCOPES).toEqual({ v2: V2, v1: V1 });
  });

  it('are v2 when the server declares permission-v2, or lists a v2 scope', () => {
    expect(sendScopes(discovery([...LAUNCH, 'permission-v2']))).toBe(V2);
    expect(sendScopes(discovery(LAUNCH, ['openid', 'launch/patient', 'patient/Observation.rs']))).toBe(V2);
    expect(sendScopes(discovery(LAUNCH, ['patient/Observation.cu?category=laboratory']))).toBe(V2);
    expect(sendScopes(discovery(LAUNCH, ['patient/*.cruds']))).toBe(V2);
  });

  it('are v1 when the server declares permission-v1 only, or lists only v1 scopes', () => {
    expect(sendScopes(discovery([...LAUNCH, 'permission-v1']))).toBe(V1);
    expect(sendScopes(discovery([...LAUNCH, 'permission-v1'], ['openid', 'patient/Observation.read']))).toBe(V1);
    expect(sendScopes(discovery(LAUNCH, ['openid', 'fhirUser', 'launch/patient', 'patient/*.write']))).toBe(V1);
    expect(sendScopes(discovery(undefined, ['patient/Observation.write', 'user/*.*']))).toBe(V1);
  });

  it('are v2 when the server declares both syntaxes, by capability or by the scopes it lists', () => {
    expect(sendScopes(discovery([...LAUNCH, 'permission-v1', 'permission-v2']))).toBe(V2);
    expect(sendScopes(discovery([...LAUNCH, 'permission-v1'], ['patient/Observation.read', 'patient/Observation.rs']))).toBe(V2);
    expect(sendScopes(discovery(LAUNCH, ['patient/*.read', 'patient/Observation.write', 'patient/Observation.cu']))).toBe(V2);
  });

  it('are v2 when the server says nothing of its syntax', () => {
    expect(sendScopes(discovery(LAUNCH))).toBe(V2);
    expect(sendScopes(discovery(LAUNCH, ['openid', 'fhirUser', 'launch/patient', 'offline_access']))).toBe(V2);
    expect(sendScopes(discovery([], []))).toBe(V2);
  });

  it('are v2 when the document is missing or malformed, its lists ignored where they are not lists of text', () => {
    for (const document of [undefined, null, 'permission-v1', 42, ['permission-v1'], {}]) expect(scopeSyntax(document), JSON.stringify(document)).toBe('v2');
    // Lists of the wrong shape say nothing; text among other values still counts.
    expect(scopeSyntax(discovery('permission-v1', 'patient/*.write'))).toBe('v2');
    expect(scopeSyntax(discovery({ 0: 'permission-v1' }, { 0: 'patient/*.write' }))).toBe('v2');
    expect(scopeSyntax(discovery([1, null, { v: 'permission-v2' }, 'permission-v1']))).toBe('v1');
    // Scopes that are neither syntax's (an unknown permission, no resource part) say nothing.
    expect(scopeSyntax(discovery(LAUNCH, ['patient/Observation.rw', 'patient/.read', 'patient/Observation.', 'launch/patient.read']))).toBe('v2');
    expect(scopeSyntax(discovery(LAUNCH, ['patient/Observation.sr', 'patient/Observation.rw', 'patient/Observation.read']))).toBe('v1');
  });
});
