/** The portal's settings: defaults, client ids per hospital, config.json read defensively, the CSP. */
import { describe, expect, it } from 'vitest';
import { contentSecurityPolicy } from '../../../shared/http/static-site';
import { clientIdFor, connectSources, DEFAULT_SMART_SCOPES, issOrigin, parsePortalConfig, portalConfig, portalConfigFromEnv } from '../../../shared/portal/config';

const ISS = 'https://ehr.example.org/fhir/r4';

describe('portal settings', () => {
  it("defaults the client and the scope list (the portal's own and a read scope for each type read), and normalises spaces", () => {
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
