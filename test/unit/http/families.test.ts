import { describe, expect, it } from 'vitest';
import { cloudFrontApiPatterns, dialectOf, familyForPath, isApiPath, selectGatewayRoute } from '../../../shared/http/families';

/** Every path of the API (docs/api.md) and the family that must serve it. */
const SPEC_PATHS: Array<[string, string]> = [
  ['/FHIR/R5/Observation', 'fhir'],
  ['/FHIR/R5/Observation/123', 'fhir'],
  ['/FHIR/R5/', 'fhir'],
  ['/FHIR/R5', 'fhir'],
  ['/fhir/r5/Observation', 'fhir'],
  ['/fhir/r5/', 'fhir'],
  ['/FHIR/R5/metadata', 'fhir'],
  ['/api/v1/fhir_sources', 'api'],
  ['/fhir-import/R4/Condition', 'fhir-import'],
  ['/fhir-import/R4', 'fhir-import'],
  ['/api/v1/invitation/abc', 'api'],
  ['/o/token/', 'oauth'],
  ['/api/v1/portal/identifier', 'api'],
  ['/.well-known/smart-configuration', 'oauth'],
  ['/auth/callback', 'oauth'],
  ['/health', 'api'],
  ['/mcp', 'mcp'],
  ['/.well-known/oauth-protected-resource/mcp', 'mcp'],
];

describe('gateway routes', () => {
  it.each(SPEC_PATHS)('%s goes to the %s family', (path, family) => {
    expect(familyForPath(path)).toBe(family);
    expect(isApiPath(path)).toBe(true);
  });

  it('leaves portal pages to the static site', () => {
    expect(isApiPath('/clients/portal/')).toBe(false);
    expect(isApiPath('/clients/portal/callback')).toBe(false);
    expect(isApiPath('/index.html')).toBe(false);
  });

  it('passes the rest of a greedy path as the proxy parameter', () => {
    expect(selectGatewayRoute('/FHIR/R5/Patient/1')).toMatchObject({ route: { path: '/FHIR/R5/{proxy+}' }, proxy: 'Patient/1' });
    expect(selectGatewayRoute('/FHIR/R5')).toMatchObject({ route: { path: '/FHIR/R5' } });
    expect(selectGatewayRoute('/nowhere')).toBeUndefined();
  });

  it('sends both FHIR bases and the exact paths to the API in CloudFront', () => {
    expect(cloudFrontApiPatterns()).toEqual(
      expect.arrayContaining(['/FHIR/R5', '/FHIR/R5/*', '/fhir/r5/*', '/api/v1/*', '/o/*', '/.well-known/*', '/health', '/auth/callback']),
    );
  });

  it('adds no CloudFront behaviour for an exact path a wildcard already sends to the API', () => {
    expect(cloudFrontApiPatterns()).toContain('/mcp');
    expect(cloudFrontApiPatterns()).not.toContain('/.well-known/oauth-protected-resource/mcp');
    expect(familyForPath('/.well-known/openid-configuration')).toBe('oauth');
  });

  it('renders errors in the dialect of the path', () => {
    expect(dialectOf('/FHIR/R5/x')).toBe('fhir');
    expect(dialectOf('/fhir/r5')).toBe('fhir');
    expect(dialectOf('/fhir-import/R4/x')).toBe('fhir');
    expect(dialectOf('/api/v1/patients')).toBe('api');
    expect(dialectOf('/o/token/')).toBe('oauth');
    expect(dialectOf('/health')).toBe('plain');
  });
});
