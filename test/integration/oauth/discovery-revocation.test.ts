/** Discovery documents, JWKS, CORS, the CapabilityStatement's SMART extension, and RFC 7009 revocation. */
import { createLocalJWKSet, jwtVerify } from 'jose';
import { beforeAll, describe, expect, it } from 'vitest';
import { issueAccessToken } from '../../../shared/auth/tokens';
import { issueAuthorizationCode } from '../../../shared/oauth/authorization-codes';
import { ensureServiceClients, PORTAL_CLIENT_ID, WEB_CLIENT_ID } from '../../../shared/oauth/service-clients';
import { makeOrganization, makePractitioner } from '../../support/directory';
import { call } from '../../support/invoke';
import { pkcePair, postForm } from '../../support/oauth';

const SITE = 'http://localhost:8000';
const CALLBACK = `${SITE}/auth/callback`;

beforeAll(() => ensureServiceClients());

async function signedIn(clientId = WEB_CLIENT_ID) {
  const doctor = await makePractitioner({ organizations: [await makeOrganization()] });
  const pkce = pkcePair();
  const { code } = await issueAuthorizationCode({ clientId, redirectUri: CALLBACK, userId: doctor.id, kind: 'practitioner', scope: 'openid', codeChallenge: pkce.challenge });
  const res = await postForm('/o/token/', { grant_type: 'authorization_code', code, redirect_uri: CALLBACK, client_id: clientId, code_verifier: pkce.verifier });
  return { doctor, ...(res.json as { access_token: string; refresh_token: string }) };
}

describe('discovery', () => {
  it('publishes the OpenID and SMART configurations with CORS', async () => {
    for (const path of ['/.well-known/openid-configuration', '/o/.well-known/openid-configuration']) {
      const res = await call('GET', path);
      expect(res.status).toBe(200);
      expect(res.headers['access-control-allow-origin']).toBe('*');
      expect(res.json).toMatchObject({
        issuer: SITE,
        authorization_endpoint: `${SITE}/o/authorize/`,
        token_endpoint: `${SITE}/o/token/`,
        revocation_endpoint: `${SITE}/o/revoke_token/`,
        jwks_uri: `${SITE}/o/.well-known/jwks.json`,
        code_challenge_methods_supported: ['S256'],
        id_token_signing_alg_values_supported: ['ES256'],
      });
    }
    for (const path of ['/.well-known/smart-configuration', '/FHIR/R5/.well-known/smart-configuration', '/fhir/r5/.well-known/smart-configuration']) {
      const res = await call('GET', path);
      expect(res.status).toBe(200);
      expect(res.json).toMatchObject({ token_endpoint: `${SITE}/o/token/`, code_challenge_methods_supported: ['S256'], grant_types_supported: ['authorization_code', 'refresh_token', 'client_credentials'] });
      expect(res.json.capabilities).toEqual(expect.arrayContaining(['launch-standalone', 'client-public', 'context-standalone-patient', 'permission-v2']));
    }
    const preflight = await call('OPTIONS', '/o/token/', { headers: { origin: 'https://app.example', 'access-control-request-method': 'POST' } });
    expect(preflight.status).toBe(204);
    expect(preflight.headers['access-control-allow-methods']).toBe('POST, OPTIONS');
    expect(preflight.headers['access-control-allow-headers']).toContain('Authorization');
    // Errors carry CORS too, or a browser app could not read them.
    expect((await postForm('/o/token/', {})).headers['access-control-allow-origin']).toBe('*');
    // So do the ones made before the route is reached: a body that is neither a form nor JSON (415).
    const early = await call('POST', '/o/token/', { headers: { 'content-type': 'text/plain', origin: 'https://app.example' }, body: 'grant_type=x' });
    expect(early.status).toBe(415);
    expect(early.headers['access-control-allow-origin']).toBe('*');
    // CORS is on /o/ and the discovery documents only.
    expect((await call('GET', '/health')).headers['access-control-allow-origin']).toBeUndefined();
    expect((await call('GET', '/FHIR/R5/metadata')).headers['access-control-allow-origin']).toBeUndefined();
  });

  it('publishes the JWKS that verifies the access tokens', async () => {
    const res = await call('GET', '/o/.well-known/jwks.json');
    expect(res.status).toBe(200);
    expect(res.json.keys[0]).toMatchObject({ kty: 'EC', crv: 'P-256', alg: 'ES256', use: 'sig' });
    expect(res.json.keys[0].d).toBeUndefined();
    const { accessToken } = await issueAccessToken({ userId: 1, kind: 'practitioner' });
    const verified = await jwtVerify(accessToken, createLocalJWKSet(res.json), { issuer: SITE, audience: SITE });
    expect(verified.payload.sub).toBe('1');
  });

  it('names the OAuth endpoints in the CapabilityStatement (SMART oauth-uris)', async () => {
    const res = await call('GET', '/FHIR/R5/metadata');
    const extension = res.json.rest[0].security.extension.find((e: { url: string }) => e.url === 'http://fhir-registry.smarthealthit.org/StructureDefinition/oauth-uris');
    expect(extension.extension).toEqual([
      { url: 'authorize', valueUri: `${SITE}/o/authorize/` },
      { url: 'token', valueUri: `${SITE}/o/token/` },
      { url: 'revoke', valueUri: `${SITE}/o/revoke_token/` },
    ]);
  });
});

describe('revocation (RFC 7009)', () => {
  const revoke = (params: Record<string, string>) => postForm('/o/revoke_token/', params);

  it('revokes one access token, leaving the grant usable', async () => {
    const session = await signedIn();
    expect((await revoke({ token: session.access_token, token_type_hint: 'access_token', client_id: WEB_CLIENT_ID })).status).toBe(200);
    expect((await call('GET', '/o/userinfo/', { token: session.access_token })).status).toBe(401);
    const refreshed = await postForm('/o/token/', { grant_type: 'refresh_token', refresh_token: session.refresh_token, client_id: WEB_CLIENT_ID });
    expect(refreshed.status).toBe(200);
    expect((await call('GET', '/o/userinfo/', { token: refreshed.json.access_token })).status).toBe(200);
  });

  it('revokes a refresh token with its whole grant', async () => {
    const session = await signedIn();
    expect((await revoke({ token: session.refresh_token, client_id: WEB_CLIENT_ID })).status).toBe(200);
    expect((await call('GET', '/o/userinfo/', { token: session.access_token })).status).toBe(401);
    expect((await postForm('/o/token/', { grant_type: 'refresh_token', refresh_token: session.refresh_token, client_id: WEB_CLIENT_ID })).json.error).toBe('invalid_grant');
  });

  it("answers 200 for unknown tokens, and refuses another client's token without revoking it", async () => {
    for (const token of ['nonsense', 'a.b.c', 'x'.repeat(2000)]) expect((await revoke({ token, client_id: WEB_CLIENT_ID })).status).toBe(200);
    const session = await signedIn();
    for (const token of [session.access_token, session.refresh_token]) {
      const res = await revoke({ token, client_id: PORTAL_CLIENT_ID });
      expect([res.status, res.json.error]).toEqual([400, 'invalid_grant']);
    }
    expect((await call('GET', '/o/userinfo/', { token: session.access_token })).status).toBe(200);
    expect((await revoke({ token: session.access_token })).json.error).toBe('invalid_request');
    expect((await revoke({ client_id: WEB_CLIENT_ID })).json.error).toBe('invalid_request');
  });
});
