/**
 * SMART Backend Services: a practitioner registers a backend client with its public keys (`jwks`),
 * the client signs in with an RS384 or ES384 assertion (`client_credentials` +
 * `private_key_jwt`), and its token reads through the FHIR search endpoints exactly what the
 * practitioner sees, and nothing more: no writes, no management API, only the types its scopes name.
 * Every refused assertion is a 401 `invalid_client` that changes nothing. (The `jwks_uri` fetch has
 * its own file, backend-jwks-uri.test.ts.)
 */
import { exportJWK, generateKeyPair, SignJWT } from 'jose';
import { generateKeyPairSync } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { updateUser } from '../../../shared/directory/users';
import { getOAuthClient } from '../../../shared/directory/oauth-clients';
import { condition, postAuxiliary } from '../../support/auxiliary';
import { makeFhirSource } from '../../support/directory';
import { call } from '../../support/invoke';
import { assertionGrant, backendKey, basic, registerBackendClient, signAssertion, TOKEN_ENDPOINT, type BackendKey } from '../../support/oauth';
import { idsOf, matchIds, observation, observationWorld, statusesOf, upload, type ObservationWorld } from '../../support/observations';
import { directoryRows } from '../../support/store';

let mine: ObservationWorld;
let theirs: ObservationWorld;
let es: BackendKey;
let rs: BackendKey;
let clientId: string;

beforeAll(async () => {
  [mine, theirs] = await Promise.all([observationWorld(), observationWorld()]);
  for (const world of [mine, theirs]) {
    const at = Date.now() - 3_600_000;
    expect((await upload(world.patient.token, [observation(world, { at }), observation(world, { at: at + 60_000, code: 'omh:step-count:3.0' })])).status).toBe(200);
    const source = await makeFhirSource({ patient: world.patient, dataSource: world.device });
    expect((await postAuxiliary('Condition', condition(), world.patient.token, source.id)).status).toBe(201);
  }
  [es, rs] = await Promise.all([backendKey('ES384'), backendKey('RS384')]);
  clientId = (await registerBackendClient(mine.practitioner.token, { jwks: { keys: [es.jwk, rs.jwk] } })).clientId;
});

/** A fresh token of the backend client. */
async function backendToken(key: BackendKey = es, scope = 'system/*.rs'): Promise<string> {
  const res = await assertionGrant(await signAssertion(key, clientId), scope);
  expect(res.status, res.text).toBe(200);
  return res.json.access_token;
}

/** The ids a search answers, sorted (the order of equal keys is no concern here). */
async function searched(token: string, path: string): Promise<string[]> {
  const res = await call('GET', path, { token });
  expect(res.status, `${path}: ${res.text.slice(0, 300)}`).toBe(200);
  return matchIds(res).sort();
}

/** A refused token request: 401 invalid_client, a description that says why, nothing stored. */
async function expectRefused(assertion: string, why: RegExp, extra: Record<string, string> = {}) {
  const before = await directoryRows({ withoutSignIns: true });
  const res = await assertionGrant(assertion, 'system/*.rs', extra);
  expect([res.status, res.json.error], res.text).toEqual([401, 'invalid_client']);
  expect(res.json.error_description).toMatch(why);
  expect(res.json.access_token).toBeUndefined();
  expect(await directoryRows({ withoutSignIns: true })).toEqual(before);
}

describe('discovery', () => {
  it('names the assertion, its algorithms, the asymmetric capability and the system scope', async () => {
    for (const path of ['/.well-known/smart-configuration', '/FHIR/R5/.well-known/smart-configuration', '/.well-known/openid-configuration']) {
      const res = await call('GET', path);
      expect(res.json.token_endpoint, path).toBe(TOKEN_ENDPOINT);
      expect(res.json.grant_types_supported, path).toContain('client_credentials');
      expect(res.json.token_endpoint_auth_methods_supported, path).toContain('private_key_jwt');
      expect(res.json.token_endpoint_auth_signing_alg_values_supported, path).toEqual(['RS384', 'ES384']);
      expect(res.json.scopes_supported, path).toContain('system/*.rs');
    }
    expect((await call('GET', '/.well-known/smart-configuration')).json.capabilities).toEqual(expect.arrayContaining(['client-confidential-asymmetric', 'client-confidential-symmetric', 'permission-v2']));
  });
});

describe('registering a backend client', () => {
  it('answers its client id and keeps the public keys only, with no secret', async () => {
    const key = await backendKey('ES384');
    const registered = await registerBackendClient(mine.practitioner.token, { name: 'nightly export', jwks: { keys: [{ ...key.jwk, use: 'sig', alg: 'ES384', x5t: 'ignored' }] } });
    expect(registered).toMatchObject({ clientId: expect.stringMatching(/^[A-Za-z0-9]{16}$/), name: 'nightly export', tokenEndpointAuthMethod: 'private_key_jwt', keyIds: [key.kid] });
    expect(registered).not.toHaveProperty('clientSecret');
    const stored = await getOAuthClient(registered.clientId);
    expect(stored).toMatchObject({ type: 'confidential', grantTypes: ['client_credentials'], ownerUserId: mine.practitioner.id, jwks: { keys: [{ kty: 'EC', kid: key.kid, crv: 'P-384', alg: 'ES384' }] } });
    expect(stored!.secretHash).toBeUndefined();
    expect(Object.keys(stored!.jwks!.keys[0]!).sort()).toEqual(['alg', 'crv', 'kid', 'kty', 'x', 'y']);
    const listed = await call('GET', '/api/v1/practitioner_clients', { token: mine.practitioner.token });
    expect(listed.json.results).toEqual(expect.arrayContaining([expect.objectContaining({ clientId: registered.clientId, tokenEndpointAuthMethod: 'private_key_jwt' })]));
  });

  it('refuses key sets it could not verify with, and changes nothing', async () => {
    const before = await directoryRows();
    const { privateKey } = await generateKeyPair('ES384', { extractable: true });
    const rsa1024 = generateKeyPairSync('rsa', { modulusLength: 1024 }).publicKey.export({ format: 'jwk' });
    const p256 = await exportJWK((await generateKeyPair('ES256', { extractable: true })).publicKey);
    const good = (await backendKey('ES384')).jwk;
    const cases: Array<[unknown, RegExp]> = [
      [{ keys: [{ ...(await exportJWK(privateKey)), kid: 'a' }] }, /private key material \(d\)/],
      [{ keys: [{ kty: 'oct', k: 'c2VjcmV0', kid: 'a' }] }, /kty RSA .* or EC/],
      [{ keys: [{ ...rsa1024, kid: 'a' }] }, /2048 to 4096 bits/],
      [{ keys: [{ ...p256, kid: 'a' }] }, /P-384/],
      [{ keys: [{ ...good, kid: undefined }] }, /needs a kid/],
      [{ keys: [good, good] }, /Two keys have the kid/],
      [{ keys: [{ ...good, alg: 'RS384' }] }, /may only sign ES384/],
      [{ keys: [{ ...good, use: 'enc' }] }, /not a signing key/],
      [{ keys: [{ ...good, x: 'AAAA' }] }, /not a valid EC public key/],
      [{ keys: [] }, /1 to 10 keys/],
      [{ keys: Array.from({ length: 11 }, (_, i) => ({ ...good, kid: `k${i}` })) }, /1 to 10 keys/],
      [[good], /object with a list of keys/],
      [null, /object with a list of keys/],
    ];
    for (const [jwks, message] of cases) {
      const res = await call('POST', '/api/v1/practitioner_clients', { token: mine.practitioner.token, body: { jwks }, headers: { 'content-type': 'application/json' } });
      expect(res.status, JSON.stringify(jwks).slice(0, 200)).toBe(400);
      expect(res.json.jwks?.[0], res.text).toMatch(message);
    }
    const post = (body: unknown) => call('POST', '/api/v1/practitioner_clients', { token: mine.practitioner.token, body, headers: { 'content-type': 'application/json' } });
    expect((await post({ jwks: { keys: [good] }, jwks_uri: 'https://keys.example.org/jwks.json' })).json.nonFieldErrors[0]).toMatch(/one of the two/);
    expect((await post({ jwks_uri: 'http://keys.example.org/jwks.json' })).json).toEqual({ jwksUri: ['The JWK Set URL must be an https URL.'] });
    expect((await post({ jwks_uri: 'http://127.0.0.1:9/jwks.json' })).json).toEqual({ jwksUri: ['The JWK Set URL must be an https URL.'] });
    expect((await post({ jwks_uri: 'https://169.254.169.254/latest' })).json).toEqual({ jwksUri: ['The JWK Set URL must name a public host.'] });
    expect((await post({ jwks_uri: 'https://[::1]/jwks' })).json).toEqual({ jwksUri: ['The JWK Set URL must name a public host.'] });
    expect((await post({ jwks_uri: 'https://user:pw@keys.example.org/jwks' })).json).toEqual({ jwksUri: ['The URL must not carry credentials.'] });
    expect((await post({ jwks_uri: 'ftp://keys.example.org/jwks' })).json).toEqual({ jwksUri: ['Enter a valid URL.'] });
    expect((await post({ constructor: 1 })).json).toEqual({ constructor: ['Unknown field.'] });
    expect(await directoryRows()).toEqual(before);
  });

  it('needs a signed-in practitioner: not a patient, not an API key, not a backend token', async () => {
    const jwks = { keys: [(await backendKey('ES384')).jwk] };
    const post = (token: string) => call('POST', '/api/v1/practitioner_clients', { token, body: { jwks }, headers: { 'content-type': 'application/json' } });
    expect((await post(mine.patient.token)).status).toBe(403);
    const key = (await call('POST', '/api/v1/practitioner_clients', { token: mine.practitioner.token, body: { name: 'key' }, headers: { 'content-type': 'application/json' } })).json;
    const keyToken = (await call('POST', '/o/token/', { headers: { 'content-type': 'application/x-www-form-urlencoded', ...basic(key.clientId, key.clientSecret) }, body: 'grant_type=client_credentials' })).json.access_token;
    expect((await post(keyToken)).status).toBe(403);
    expect((await post(await backendToken())).status).toBe(403);
  });
});

describe('signing in with a private key', () => {
  it.each(['ES384', 'RS384'] as const)('gives a five-minute token for an %s assertion, with the system scope asked for', async (alg) => {
    const res = await assertionGrant(await signAssertion(alg === 'ES384' ? es : rs, clientId));
    expect(res.status, res.text).toBe(200);
    expect(res.json).toMatchObject({ token_type: 'Bearer', expires_in: 300, scope: 'system/*.rs' });
    expect(res.json.refresh_token).toBeUndefined();
    expect(res.headers['cache-control']).toBe('no-store');
    const me = await call('GET', '/o/userinfo/', { token: res.json.access_token });
    expect(me.json.sub).toBe(String(mine.practitioner.id));
  });

  it('takes client_id in the form when it is the assertion\'s iss, and an aud list that holds the token endpoint', async () => {
    expect((await assertionGrant(await signAssertion(es, clientId), 'system/*.rs', { client_id: clientId })).status).toBe(200);
    expect((await assertionGrant(await signAssertion(es, clientId, { claims: { aud: ['https://other.example', TOKEN_ENDPOINT] } }))).status).toBe(200);
  });

  it('grants system scopes only: per type, SMART v1 spellings as asked, nothing else', async () => {
    const scoped = async (scope: string) => assertionGrant(await signAssertion(es, clientId), scope);
    expect((await scoped('system/Observation.rs system/Patient.rs')).json.scope).toBe('system/Observation.rs system/Patient.rs');
    expect((await scoped('system/*.read')).json.scope).toBe('system/*.read');
    expect((await scoped('openid user/*.rs system/*.rs')).json.scope).toBe('system/*.rs');
    for (const scope of ['user/*.rs', 'system/*.cruds', 'system/*.r', 'patient/*.rs', '']) {
      const res = await scoped(scope);
      expect([res.status, res.json.error], scope).toEqual([400, 'invalid_scope']);
    }
  });

  it('refuses a replayed jti, once the first use got its token; a jti of another client is no replay', async () => {
    const assertion = await signAssertion(es, clientId, { claims: { jti: 'once' } });
    expect((await assertionGrant(assertion)).status).toBe(200);
    await expectRefused(assertion, /used already \(its jti\)/);
    await expectRefused(await signAssertion(rs, clientId, { claims: { jti: 'once' } }), /used already/);
    const other = await backendKey('ES384');
    const otherClient = (await registerBackendClient(theirs.practitioner.token, { jwks: { keys: [other.jwk] } })).clientId;
    expect((await assertionGrant(await signAssertion(other, otherClient, { claims: { jti: 'once' } }))).status).toBe(200);
  });

  it('lets one of two racing requests with the same assertion through', async () => {
    const assertion = await signAssertion(es, clientId);
    const answers = await Promise.all([assertionGrant(assertion), assertionGrant(assertion), assertionGrant(assertion)]);
    expect(answers.map((a) => a.status).sort()).toEqual([200, 401, 401]);
  });

  it('refuses an assertion that has expired, or that expires more than five minutes ahead', async () => {
    await expectRefused(await signAssertion(es, clientId, { expiresIn: -60 }), /has expired/);
    await expectRefused(await signAssertion(es, clientId, { expiresIn: 600 }), /more than five minutes ahead/);
    await expectRefused(await signAssertion(es, clientId, { claims: { exp: undefined } }), /exp claim/);
  });

  it('refuses an assertion signed by another key, even under a registered kid', async () => {
    const stranger = await backendKey('ES384', es.kid);
    await expectRefused(await signAssertion(stranger, clientId), /signature does not verify/);
    const strangerRsa = await backendKey('RS384', rs.kid);
    await expectRefused(await signAssertion(strangerRsa, clientId), /signature does not verify/);
    await expectRefused(await signAssertion({ ...stranger, kid: 'unknown-kid' }, clientId), /no registered key .* kid unknown-kid/);
  });

  it('refuses a wrong aud, and a wrong iss, sub or client_id', async () => {
    await expectRefused(await signAssertion(es, clientId, { claims: { aud: 'http://localhost:8000' } }), /aud must be the token endpoint/);
    await expectRefused(await signAssertion(es, clientId, { claims: { aud: 'http://localhost:8000/o/token' } }), /aud must be the token endpoint/);
    await expectRefused(await signAssertion(es, clientId, { claims: { sub: 'someone' } }), /iss and sub must both be the client id/);
    await expectRefused(await signAssertion(es, clientId, { claims: { iss: 'unknown-client' } }), /no client with registered keys/);
    await expectRefused(await signAssertion(es, clientId), /differs from the assertion's iss/, { client_id: 'another' });
  });

  it('refuses other algorithms, a missing kid or typ, a jku not registered, a missing jti', async () => {
    const es256 = await generateKeyPair('ES256');
    await expectRefused(await new SignJWT({ iss: clientId, sub: clientId, aud: TOKEN_ENDPOINT, exp: Math.floor(Date.now() / 1000) + 60, jti: 'x' }).setProtectedHeader({ alg: 'ES256', kid: es.kid, typ: 'JWT' }).sign(es256.privateKey), /RS384 or ES384/);
    await expectRefused(
      await new SignJWT({ iss: clientId, sub: clientId, aud: TOKEN_ENDPOINT, exp: Math.floor(Date.now() / 1000) + 60, jti: 'y' }).setProtectedHeader({ alg: 'HS384', kid: es.kid, typ: 'JWT' }).sign(new TextEncoder().encode('s'.repeat(48))),
      /RS384 or ES384/,
    );
    const unsigned = `${Buffer.from(JSON.stringify({ alg: 'none', kid: es.kid, typ: 'JWT' })).toString('base64url')}.${Buffer.from(JSON.stringify({ iss: clientId, sub: clientId, aud: TOKEN_ENDPOINT, exp: Math.floor(Date.now() / 1000) + 60, jti: 'z' })).toString('base64url')}.`;
    await expectRefused(unsigned, /RS384 or ES384|not a signed JWT/);
    await expectRefused(await signAssertion(es, clientId, { header: { kid: undefined } }), /no kid/);
    await expectRefused(await signAssertion(es, clientId, { header: { typ: undefined } }), /typ must be JWT/);
    await expectRefused(await signAssertion(es, clientId, { header: { jku: 'https://keys.example.org/jwks.json' } }), /jku that is not the JWK Set URL registered/);
    await expectRefused(await signAssertion(es, clientId, { claims: { jti: undefined } }), /jti claim/);
    await expectRefused('not-a-jwt', /not a signed JWT/);
  });

  it('takes the assertion as the only credential, of the right type, of a client with keys', async () => {
    const assertion = await signAssertion(es, clientId);
    const mixed = await assertionGrant(assertion, 'system/*.rs', { client_secret: 'x' });
    expect([mixed.status, mixed.json.error]).toEqual([400, 'invalid_request']);
    const withBasic = await call('POST', '/o/token/', {
      headers: { 'content-type': 'application/x-www-form-urlencoded', ...basic(clientId, 'x') },
      body: new URLSearchParams({ grant_type: 'client_credentials', client_assertion_type: 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer', client_assertion: assertion }).toString(),
    });
    expect([withBasic.status, withBasic.json.error]).toEqual([400, 'invalid_request']);
    await expectRefused(assertion, /client_assertion_type must be/, { client_assertion_type: 'urn:ietf:params:oauth:client-assertion-type:saml2-bearer' });
    const noAssertion = await call('POST', '/o/token/', { headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'grant_type=client_credentials&client_assertion_type=urn%3Aietf%3Aparams%3Aoauth%3Aclient-assertion-type%3Ajwt-bearer' });
    expect([noAssertion.status, noAssertion.json.error]).toEqual([400, 'invalid_request']);
    // The backend client has no secret to authenticate with, and an API key no keys.
    const bySecret = await call('POST', '/o/token/', { headers: { 'content-type': 'application/x-www-form-urlencoded', ...basic(clientId, 'x'.repeat(32)) }, body: 'grant_type=client_credentials' });
    expect([bySecret.status, bySecret.json.error]).toEqual([401, 'invalid_client']);
    const key = (await call('POST', '/api/v1/practitioner_clients', { token: mine.practitioner.token, body: { name: 'key' }, headers: { 'content-type': 'application/json' } })).json;
    await expectRefused(await signAssertion(es, key.clientId), /no client with registered keys/);
    // Another grant type is not this client's.
    const code = await assertionGrant(await signAssertion(es, clientId), undefined, { grant_type: 'authorization_code', code: 'x', redirect_uri: 'https://a.example' });
    expect(code.json.error).toBe('unauthorized_client');
  });

  it('revokes its own access token with an assertion, used once there too', async () => {
    const token = await backendToken();
    const assertion = await signAssertion(es, clientId);
    const form = { token, client_assertion_type: 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer', client_assertion: assertion };
    const revoke = () => call('POST', '/o/revoke_token/', { headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams(form).toString() });
    expect((await revoke()).status).toBe(200);
    expect((await call('GET', '/FHIR/R5/Patient', { token })).status).toBe(401);
    const replayed = await revoke();
    expect([replayed.status, replayed.json.error]).toEqual([401, 'invalid_client']);
  });

  it('stops when the client is deleted (its live tokens too) or its practitioner deactivated', async () => {
    const doctorWorld = await observationWorld();
    const key = await backendKey('RS384');
    const client = await registerBackendClient(doctorWorld.practitioner.token, { jwks: { keys: [key.jwk] } });
    const token = (await assertionGrant(await signAssertion(key, client.clientId))).json.access_token;
    expect((await call('GET', '/FHIR/R5/Patient', { token })).status).toBe(200);
    expect((await call('DELETE', `/api/v1/practitioner_clients/${client.id}`, { token: doctorWorld.practitioner.token })).status).toBe(204);
    expect((await call('GET', '/FHIR/R5/Patient', { token })).status).toBe(401);
    await expectRefused(await signAssertion(key, client.clientId), /no client with registered keys/);

    const again = await registerBackendClient(doctorWorld.practitioner.token, { jwks: { keys: [key.jwk] } });
    await updateUser(doctorWorld.practitioner.id, { active: false });
    const res = await assertionGrant(await signAssertion(key, again.clientId));
    expect([res.status, res.json.error]).toEqual([401, 'invalid_client']);
  });
});

describe("the backend service's token", () => {
  it('finds through every FHIR search exactly what its practitioner finds', async () => {
    const token = await backendToken();
    for (const path of ['/FHIR/R5/Patient', '/FHIR/R5/Observation', '/FHIR/R5/Observation?code=omh:heart-rate:2.0', `/FHIR/R5/Observation?patient=${mine.patient.id}`, '/FHIR/R5/Group', '/FHIR/R5/Device', '/FHIR/R5/Organization', '/FHIR/R5/Practitioner', '/FHIR/R5/Condition']) {
      const seen = await searched(mine.practitioner.token, path);
      expect(seen.length, path).toBeGreaterThan(0);
      expect(await searched(token, path), path).toEqual(seen);
    }
    // The other organization's patient stays out of sight, as for the practitioner.
    const named = await call('GET', `/FHIR/R5/Observation?patient=${theirs.patient.id}`, { token });
    expect(named.status).toBe(403);
    expect((await call('GET', `/FHIR/R5/Patient/${theirs.patient.id}`, { token })).status).toBe(404);
    expect((await call('GET', `/FHIR/R5/Patient/${mine.patient.id}`, { token })).json.id).toBe(String(mine.patient.id));
  });

  it('reads only the types its scopes name', async () => {
    const token = await backendToken(rs, 'system/Observation.rs');
    expect(await searched(token, '/FHIR/R5/Observation')).toEqual(await searched(mine.practitioner.token, '/FHIR/R5/Observation'));
    for (const path of ['/FHIR/R5/Patient', `/FHIR/R5/Patient/${mine.patient.id}`, '/fhir/r5/Condition', '/FHIR/R5/Group/_search']) {
      const res = await call(path.endsWith('_search') ? 'POST' : 'GET', path, { token });
      expect(res.status, path).toBe(403);
      expect(res.json.resourceType).toBe('OperationOutcome');
      expect(res.json.issue[0].diagnostics).toMatch(/scopes do not cover/);
    }
    const v1 = await backendToken(es, 'system/Patient.read');
    expect(await searched(v1, '/FHIR/R5/Patient')).toEqual(await searched(mine.practitioner.token, '/FHIR/R5/Patient'));
    expect((await call('GET', '/FHIR/R5/Observation', { token: v1 })).status).toBe(403);
  });

  it('writes nothing, and has no part of the management API', async () => {
    const token = await backendToken();
    const before = await directoryRows();
    const batch = await upload(token, [observation(mine)]);
    expect(statusesOf(batch)).toEqual(['403 Forbidden']);
    expect(idsOf(batch)).toEqual(['']);
    const created = await call('POST', '/FHIR/R5/Observation', { token, body: observation(mine) });
    expect(created.status).toBe(403);
    const source = await makeFhirSource({ patient: mine.patient, dataSource: mine.device });
    expect((await postAuxiliary('Condition', condition(), token, source.id)).status).toBe(403);
    for (const [method, path] of [
      ['GET', '/api/v1/patients'],
      ['GET', '/api/v1/practitioner_clients'],
      ['POST', '/api/v1/invitation'],
    ] as const) {
      const res = await call(method, path, { token, body: {}, headers: { 'content-type': 'application/json' } });
      expect(res.status, path).toBe(403);
      expect(res.json.detail).toMatch(/reads the FHIR API only/);
    }
    expect(await searched(mine.practitioner.token, '/FHIR/R5/Observation')).toHaveLength(2);
    expect((await directoryRows()).filter((row) => !before.includes(row)).every((row) => row.includes('fhirSources'))).toBe(true);
  });
});
