import { base64url, decodeJwt, generateKeyPair, SignJWT, type JWTPayload } from 'jose';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { authenticate, bearerToken, callerFromToken } from '../../../shared/auth/authenticate';
import { signingKeys } from '../../../shared/auth/signing-keys';
import { issueAccessToken, tokenAudience, tokenIssuer, verifyAccessToken } from '../../../shared/auth/tokens';
import { deletePatient } from '../../../shared/directory/patients';
import { deleteUser, updateUser } from '../../../shared/directory/users';
import { renderError } from '../../../shared/http/middleware/error-renderer';
import { dynamo } from '../../../shared/store/clients';
import { makeOrganization, makePatient, makePractitioner, tokenFor } from '../../support/directory';

const withToken = (token: string) => ({ headers: { authorization: `Bearer ${token}` } });
const refused = expect.objectContaining({ status: 401, headers: expect.objectContaining({ 'WWW-Authenticate': expect.stringMatching(/^Bearer realm="cdx", error="invalid_token"/) }) });

async function claimsFor(userId: number, overrides: Partial<JWTPayload> = {}): Promise<JWTPayload> {
  const now = Math.floor(Date.now() / 1000);
  return { iss: tokenIssuer(), aud: tokenAudience(), sub: String(userId), iat: now, exp: now + 600, jti: 'x', scope: '', kind: 'practitioner', ...overrides };
}

afterEach(() => vi.restoreAllMocks());

describe('authenticate', () => {
  it('turns a practitioner token into a practitioner caller with every role', async () => {
    const a = await makeOrganization();
    const b = await makeOrganization();
    const doctor = await makePractitioner({ roles: [[a, 'viewer'], [b, 'manager']], superuser: true });
    const caller = await authenticate(withToken(await tokenFor(doctor, { scope: 'openid email' })));
    expect(caller).toEqual({
      kind: 'practitioner',
      userId: doctor.id,
      practitionerId: doctor.id,
      roles: new Map([[a.id, 'viewer'], [b.id, 'manager']]),
      superuser: true,
      scopes: ['openid', 'email'],
    });
  });

  it('turns a patient token into a patient caller', async () => {
    const patient = await makePatient({ login: true });
    const issued = await issueAccessToken({ userId: patient.userId!, kind: 'patient', clientId: 'portal' });
    expect(await authenticate(withToken(issued.accessToken))).toEqual({ kind: 'patient', userId: patient.userId, patientId: patient.id, scopes: [], clientId: 'portal' });
  });

  it('verifies without the store and then reads the user with one strongly consistent GetItem', async () => {
    const doctor = await makePractitioner();
    const send = vi.spyOn(dynamo(), 'send');
    await verifyAccessToken(doctor.token);
    expect(send).not.toHaveBeenCalled();
    await authenticate(withToken(doctor.token));
    expect(send).toHaveBeenCalledTimes(1);
    const command = send.mock.calls[0]![0] as { constructor: { name: string }; input: { ConsistentRead?: boolean } };
    expect(command.constructor.name).toBe('GetCommand');
    expect(command.input.ConsistentRead).toBe(true);
  });

  it('answers a request without credentials with a bare Bearer challenge', async () => {
    await expect(authenticate({ headers: {} })).rejects.toMatchObject({ status: 401, headers: { 'WWW-Authenticate': 'Bearer realm="cdx"' } });
  });

  it('refuses other schemes and malformed headers', async () => {
    for (const authorization of ['Basic dXNlcjpwYXNz', 'Bearer', 'Bearer ', 'Bearer a b', 'Token abc', 'bearer\tabc']) {
      await expect(authenticate({ headers: { authorization } }), authorization).rejects.toEqual(refused);
    }
    expect(bearerToken({ authorization: 'bearer abc.def' })).toBe('abc.def');
  });

  it('refuses forged tokens: another key, alg none, HS256 with the public key, a tampered payload', async () => {
    const doctor = await makePractitioner();
    const victim = await makePractitioner();
    const [key] = await (await signingKeys()).verificationKeys();
    const { privateKey } = await generateKeyPair('ES256');
    const otherKey = await new SignJWT(await claimsFor(doctor.id)).setProtectedHeader({ alg: 'ES256', typ: 'at+jwt', kid: key!.kid }).sign(privateKey);
    const none = `${base64url.encode(JSON.stringify({ alg: 'none', typ: 'at+jwt', kid: key!.kid }))}.${base64url.encode(JSON.stringify(await claimsFor(doctor.id)))}.`;
    const hs256 = await new SignJWT(await claimsFor(doctor.id))
      .setProtectedHeader({ alg: 'HS256', typ: 'at+jwt', kid: key!.kid })
      .sign(new TextEncoder().encode(JSON.stringify(key!.jwk)));
    const [h, , s] = doctor.token.split('.');
    const tampered = `${h}.${base64url.encode(JSON.stringify({ ...decodeJwt(doctor.token), sub: String(victim.id) }))}.${s}`;
    for (const token of [otherKey, none, hs256, tampered]) await expect(authenticate(withToken(token))).rejects.toEqual(refused);
    // The genuine token still works.
    expect((await authenticate(withToken(doctor.token))).userId).toBe(doctor.id);
  });

  it('refuses an expired token', async () => {
    const doctor = await makePractitioner();
    const now = Math.floor(Date.now() / 1000);
    const expired = await (await signingKeys()).sign(await claimsFor(doctor.id, { iat: now - 1000, exp: now - 10 }), 'at+jwt');
    await expect(authenticate(withToken(expired))).rejects.toEqual(refused);
  });

  it('refuses the token of a deleted user, a deactivated user, and tokens from before a password change', async () => {
    const deleted = await makePractitioner();
    await deleteUser(deleted.id);
    await expect(authenticate(withToken(deleted.token))).rejects.toEqual(refused);

    const deactivated = await makePractitioner();
    await updateUser(deactivated.id, { active: false });
    await expect(authenticate(withToken(deactivated.token))).rejects.toEqual(refused);

    const patient = await makePatient({ login: true });
    await deletePatient(patient.id);
    await expect(authenticate(withToken(patient.token!))).rejects.toEqual(refused);

    // A changed password (a first one ends no session: docs/access.md#invited-patients-set-a-password).
    const doctor = await makePractitioner({ passwordHash: 'scrypt$old' });
    const old = await (await signingKeys()).sign(await claimsFor(doctor.id, { iat: Math.floor(Date.now() / 1000) - 60 }), 'at+jwt');
    expect((await authenticate(withToken(old))).userId).toBe(doctor.id);
    await updateUser(doctor.id, { passwordHash: 'scrypt$changed' });
    await expect(authenticate(withToken(old))).rejects.toEqual(refused);
    expect((await authenticate(withToken(await tokenFor(doctor)))).userId).toBe(doctor.id);
  });

  it('refuses a token whose kind does not match the account', async () => {
    const patient = await makePatient({ login: true });
    const forgedKind = await issueAccessToken({ userId: patient.userId!, kind: 'practitioner' });
    await expect(callerFromToken(forgedKind.accessToken)).rejects.toEqual(refused);
  });

  it('renders the refusal as an OperationOutcome on FHIR paths and {detail} on /api/v1/', async () => {
    const error = await authenticate({ headers: {} }).catch((e: unknown) => e);
    const fhir = renderError(error as never, 'fhir');
    expect(fhir.status).toBe(401);
    expect(fhir.headers).toMatchObject({ 'WWW-Authenticate': 'Bearer realm="cdx"', 'Content-Type': expect.stringContaining('application/fhir+json') });
    expect(fhir.body).toMatchObject({ resourceType: 'OperationOutcome', issue: [{ severity: 'error', code: 'login', diagnostics: 'Authentication credentials were not provided.' }] });
    const api = renderError(error as never, 'api');
    expect(api.body).toEqual({ detail: 'Authentication credentials were not provided.' });
    expect(api.headers).toMatchObject({ 'WWW-Authenticate': 'Bearer realm="cdx"' });
  });
});
