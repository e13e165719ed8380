/** The portal's pure logic: settings, invitation codes, the long-id rule, results and reasons. */
import { describe, expect, it } from 'vitest';
import { chunksOf } from '../../../shared/lists';
import { invitationVerifier } from '../../../shared/oauth/invitation-verifier';
import { contentSecurityPolicy } from '../../../shared/http/static-site';
import { clientIdFor, connectSources, DEFAULT_SMART_SCOPES, issOrigin, parsePortalConfig, portalConfig, portalConfigFromEnv } from '../../../shared/portal/config';
import { parseInvitationCode, redemptionProblem } from '../../../shared/portal/invitation';
import { PROBLEMS } from '../../../shared/portal/messages';
import {
  addResult,
  emptyTally,
  importBundle,
  importResults,
  matches,
  nextLink,
  prepareForWrite,
  speaksR4,
  topReasons,
  writeResult,
} from '../../../shared/portal/records';
import { validateResource } from '../../../shared/fhir/validation';

const ISS = 'https://ehr.example.org/fhir/r4';

describe('portal settings', () => {
  it('defaults the client and the scope list (that of the spec, and a read scope for each type read), and normalises spaces', () => {
    expect(portalConfigFromEnv({ SMART_ISS: ISS })).toEqual({ iss: ISS, clientId: 'cdx-portal', scope: DEFAULT_SMART_SCOPES, clientIds: [], origins: [] });
    expect(portalConfig({ iss: ISS, clientId: 'app', scopes: '  openid   launch/patient ' }).scope).toBe('openid launch/patient');
    expect(DEFAULT_SMART_SCOPES).toMatch(/^openid profile launch\/patient patient\/Patient\.read patient\/Condition\.read .*patient\/Observation\.read/);
    expect(DEFAULT_SMART_SCOPES.split(' ')).toHaveLength(3 + 16);
  });

  it('picks the client id of the longest configured prefix of a hospital, else the default', () => {
    const config = portalConfigFromEnv({ SMART_CLIENT_ID: 'vendor-wide', SMART_CLIENT_IDS: JSON.stringify({ 'https://fhir.host.example/': 'host-id', 'https://fhir.host.example/tenant-7/': 'tenant-id' }) });
    expect(clientIdFor(config, 'https://fhir.host.example/tenant-7/r4')).toBe('tenant-id');
    expect(clientIdFor(config, 'https://fhir.host.example/tenant-8/r4')).toBe('host-id');
    expect(clientIdFor(config, 'https://other.example/r4')).toBe('vendor-wide');
    expect(() => portalConfigFromEnv({ SMART_CLIENT_IDS: '{"not a url": "x"}' })).toThrow(/SMART_CLIENT_IDS/);
    expect(() => portalConfigFromEnv({ SMART_CLIENT_IDS: '[1]' })).toThrow(/SMART_CLIENT_IDS/);
  });

  it('reads config.json defensively', () => {
    expect(parsePortalConfig({ iss: ISS, clientId: 'a', scope: 'openid' })).toEqual({ iss: ISS, clientId: 'a', scope: 'openid', clientIds: [], origins: [] });
    expect(parsePortalConfig({ iss: '', clientId: 'a', scope: 'openid', clientIds: [['https://x.example/', 'b'], 'junk'] })).toEqual({ iss: '', clientId: 'a', scope: 'openid', clientIds: [['https://x.example/', 'b']], origins: [] });
    expect(parsePortalConfig({ iss: 'javascript:alert(1)', clientId: 'a', scope: '' })).toBeUndefined();
    expect(parsePortalConfig(null)).toBeUndefined();
  });

  it('limits connect-src to this origin and the hospital origin; with the picker, to https: and the named origins', () => {
    expect(issOrigin(ISS)).toBe('https://ehr.example.org');
    expect(issOrigin('')).toBeUndefined();
    expect(contentSecurityPolicy(connectSources(portalConfig({ iss: ISS })))).toContain("connect-src 'self' https://ehr.example.org;");
    expect(contentSecurityPolicy(connectSources(portalConfig({ origins: 'http://127.0.0.1:9001, nonsense' })))).toContain("connect-src 'self' https: http://127.0.0.1:9001;");
    expect(contentSecurityPolicy(connectSources(undefined))).toContain("connect-src 'self';");
    expect(contentSecurityPolicy([])).not.toMatch(/unsafe-(inline|eval)/);
  });
});

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

describe('records', () => {
  const observation = (id: string) => ({ resourceType: 'Observation', id, status: 'final', code: { text: 'glucose' } });

  it('moves an id over 64 characters into an identifier and gives a stable valid id', async () => {
    const long = 'x'.repeat(70);
    const moved = await prepareForWrite(observation(long), ISS);
    expect(moved.identifier).toEqual([{ system: ISS, value: long }]);
    expect(moved.id).toMatch(/^[0-9a-f]{64}$/);
    expect((await prepareForWrite(observation(long), ISS)).id).toBe(moved.id);
    expect(await validateResource(moved as never, { expectedType: 'Observation' } as never)).not.toContainEqual(expect.objectContaining({ severity: 'error' }));
    const short = observation('lab-1');
    expect(await prepareForWrite(short, ISS)).toBe(short);
  });

  it('reads searchset pages and builds import Bundles of at most 100', () => {
    const page = { link: [{ relation: 'self', url: 's' }, { relation: 'next', url: 'n' }], entry: [{ resource: observation('a'), search: { mode: 'match' } }, { resource: { resourceType: 'OperationOutcome' }, search: { mode: 'outcome' } }] };
    expect(nextLink(page)).toBe('n');
    expect(matches(page).map((r) => r.id)).toEqual(['a']);
    expect(chunksOf(Array.from({ length: 250 }, (_, i) => i), 100).map((c) => c.length)).toEqual([100, 100, 50]);
    expect(importBundle([observation('a')])).toEqual({ resourceType: 'Bundle', type: 'batch', entry: [{ resource: observation('a'), request: { method: 'POST', url: 'Observation' } }] });
    expect(speaksR4('4.0.1')).toBe(true);
    expect(speaksR4('5.0.0')).toBe(false);
  });

  it('counts stored, stored with losses and failed records, with their reasons in plain words', () => {
    const response = {
      resourceType: 'Bundle',
      type: 'batch-response',
      entry: [
        { response: { status: '201 Created', outcome: { resourceType: 'OperationOutcome', issue: [{ severity: 'information', code: 'informational', diagnostics: 'No loss.' }] } } },
        { response: { status: '201 Created', outcome: { issue: [{ severity: 'warning', code: 'not-supported', expression: ['Observation._issued'], diagnostics: 'dropped' }] } } },
        { response: { status: '400 Bad Request', outcome: { issue: [{ severity: 'error', code: 'code-invalid', expression: ['Observation.status'] }, { severity: 'warning', expression: ['Observation.foo'] }] } } },
        { response: { status: '422 Unprocessable Entity', outcome: { issue: [{ severity: 'error', code: 'required', expression: ['Observation.code'] }] } } },
      ],
    };
    const tally = emptyTally();
    for (const result of importResults(response, 5)) addResult(tally, result);
    expect(tally).toMatchObject({ stored: 2, storedWithLoss: 1, failed: 3 });
    expect(topReasons(tally.failures)).toEqual([
      { reason: 'The value of "status" is not one FHIR R5 allows', count: 1 },
      { reason: '"code" is missing', count: 1 },
      { reason: 'The study service gave no answer for it', count: 1 },
    ]);
    expect(topReasons(tally.losses)).toEqual([{ reason: 'Extra details attached to "issued" have no place in FHIR R5 and were left out', count: 1 }]);
    expect(writeResult(403, undefined)).toEqual({ stored: false, reasons: ['The study service refused it'] });
    expect(writeResult(200, { issue: [] })).toEqual({ stored: true, reasons: [] });
  });
});
