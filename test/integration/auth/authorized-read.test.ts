/**
 * `authorizedRead`: a patient token's signed `patient` claim lets a read start while the account is
 * looked up, but nothing is released before the account is confirmed.
 */
import type { JWTPayload } from 'jose';
import { describe, expect, it } from 'vitest';
import { authorizedRead } from '../../../shared/auth/authenticate';
import type { Caller } from '../../../shared/auth/caller';
import { signingKeys } from '../../../shared/auth/signing-keys';
import { ACCESS_TOKEN_TYPE, issueAccessToken, tokenAudience, tokenIssuer } from '../../../shared/auth/tokens';
import { deleteUser, updateUser } from '../../../shared/directory/users';
import { makePatient, makePractitioner } from '../../support/directory';

const withToken = (token: string) => ({ headers: { authorization: `Bearer ${token}` } });

function recorder() {
  const calls: Caller[] = [];
  const read = async (caller: Caller) => {
    calls.push(caller);
    return caller.kind === 'patient' ? `rows of patient ${caller.patientId}` : 'rows of practitioner';
  };
  return { calls, read };
}

describe('authorizedRead', () => {
  it('starts a patient read under the signed claim and returns it once the account is confirmed', async () => {
    const patient = await makePatient({ login: true });
    const { calls, read } = recorder();
    expect(await authorizedRead(withToken(patient.token!), {}, read)).toBe(`rows of patient ${patient.id}`);
    expect(calls).toHaveLength(1);
    expect(calls[0]).toMatchObject({ kind: 'patient', patientId: patient.id, userId: patient.userId });
  });

  it('discards the early read and answers 401 when the account is deleted or deactivated', async () => {
    const gone = await makePatient({ login: true });
    await deleteUser(gone.userId!);
    const first = recorder();
    await expect(authorizedRead(withToken(gone.token!), {}, first.read)).rejects.toMatchObject({ status: 401 });

    const inactive = await makePatient({ login: true });
    await updateUser(inactive.userId!, { active: false });
    const second = recorder();
    await expect(authorizedRead(withToken(inactive.token!), {}, second.read)).rejects.toMatchObject({ status: 401 });
  });

  it('refuses a token whose patient claim is not the account\'s patient', async () => {
    const alice = await makePatient({ login: true });
    const bob = await makePatient({ login: true });
    const forged = await issueAccessToken({ userId: alice.userId!, kind: 'patient', patientId: bob.id });
    const { read } = recorder();
    await expect(authorizedRead(withToken(forged.accessToken), {}, read)).rejects.toMatchObject({ status: 401 });
  });

  it('refuses a patient claim on a practitioner token, even signed by our key', async () => {
    const doctor = await makePractitioner();
    const now = Math.floor(Date.now() / 1000);
    const claims: JWTPayload = { iss: tokenIssuer(), aud: tokenAudience(), sub: String(doctor.id), iat: now, exp: now + 600, jti: 'j', scope: '', kind: 'practitioner', patient: '1' };
    const token = await (await signingKeys()).sign(claims, ACCESS_TOKEN_TYPE);
    const { calls, read } = recorder();
    await expect(authorizedRead(withToken(token), {}, read)).rejects.toMatchObject({ status: 401 });
    expect(calls).toHaveLength(0);
  });

  it('confirms a practitioner before reading (no claim to start under)', async () => {
    const doctor = await makePractitioner();
    const { calls, read } = recorder();
    expect(await authorizedRead(withToken(doctor.token), {}, read)).toBe('rows of practitioner');
    expect(calls).toEqual([expect.objectContaining({ kind: 'practitioner', practitionerId: doctor.id })]);
  });

  it('answers 401 before any read without a valid token', async () => {
    const { calls, read } = recorder();
    await expect(authorizedRead({ headers: {} }, {}, read)).rejects.toMatchObject({ status: 401 });
    await expect(authorizedRead(withToken('not.a.token'), {}, read)).rejects.toMatchObject({ status: 401 });
    expect(calls).toHaveLength(0);
  });
});
