import { describe, expect, it } from 'vitest';
import { getPatient } from '../../../shared/directory/patients';
import {
  createPractitioner,
  createUser,
  deleteUser,
  getPractitioner,
  getPractitioners,
  getUser,
  getUserByEmail,
  getUsers,
  listPractitionerIds,
  revokeUserTokens,
  updateUser,
} from '../../../shared/directory/users';
import { listOrganizationMembers, setOrganizationRole } from '../../../shared/directory/memberships';
import { makeOrganization, makePatient } from '../../support/directory';

describe('users', () => {
  it('creates an account and finds it by id and by email in any case', async () => {
    const user = await createUser({ email: ' Casey@Example.TEST ', kind: 'practitioner', nameFamily: 'Lee', nameGiven: 'Casey' });
    expect(user).toMatchObject({ email: 'Casey@Example.TEST', kind: 'practitioner', superuser: false, active: true, roles: new Map() });
    expect(await getUser(user.id)).toEqual(user);
    expect((await getUserByEmail('casey@example.test'))?.id).toBe(user.id);
    expect((await getUsers([user.id, 987654])).map((u) => u.id)).toEqual([user.id]);
    expect(await getUserByEmail('nobody@example.test')).toBeUndefined();
    expect(await getUserByEmail('not an email')).toBeUndefined();
  });

  it('refuses a second account with the same email, whatever its case', async () => {
    await createUser({ email: 'dup@example.test', kind: 'patient' });
    await expect(createUser({ email: 'DUP@example.test', kind: 'practitioner' })).rejects.toMatchObject({ status: 409, fields: { email: [expect.any(String)] } });
  });

  it('lets exactly one of many concurrent sign-ups with one email win', async () => {
    const results = await Promise.allSettled(Array.from({ length: 12 }, (_, i) => createUser({ email: i % 2 ? 'RACE@example.test' : 'race@Example.test', kind: 'practitioner' })));
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    for (const r of results.filter((r) => r.status === 'rejected')) expect((r as PromiseRejectedResult).reason).toMatchObject({ status: 409 });
    const winner = (results.find((r) => r.status === 'fulfilled') as PromiseFulfilledResult<{ id: number }>).value;
    expect((await getUserByEmail('race@example.test'))?.id).toBe(winner.id);
  });

  it('refuses malformed and oversized emails', async () => {
    for (const email of ['', 'no-at-sign', 'a b@c.d', `${'x'.repeat(600)}@example.test`]) {
      await expect(createUser({ email, kind: 'patient' }), email.slice(0, 20)).rejects.toMatchObject({ status: 400 });
    }
  });

  it('moves the email claim when the email changes, and refuses a taken one', async () => {
    const a = await createUser({ email: 'a-old@example.test', kind: 'practitioner' });
    await createUser({ email: 'b@example.test', kind: 'practitioner' });
    const moved = await updateUser(a.id, { email: 'a-new@example.test', nameGiven: 'Ann' });
    expect(moved).toMatchObject({ email: 'a-new@example.test', nameGiven: 'Ann' });
    expect(await getUserByEmail('a-old@example.test')).toBeUndefined();
    expect((await getUserByEmail('a-new@example.test'))?.id).toBe(a.id);
    await createUser({ email: 'a-old@example.test', kind: 'patient' });
    await expect(updateUser(a.id, { email: 'B@example.test' })).rejects.toMatchObject({ status: 409 });
    expect((await getUser(a.id))?.email).toBe('a-new@example.test');
    await expect(updateUser(987654, { nameGiven: 'x' })).rejects.toMatchObject({ status: 404 });
  });

  it('ends no session on a first password: an account that signed in by invitation only keeps its sessions', async () => {
    const user = await createUser({ email: 'first-password@example.test', kind: 'practitioner' });
    const first = await updateUser(user.id, { passwordHash: 'scrypt$first' });
    expect(first.passwordHash).toBe('scrypt$first');
    expect(first.tokensNotBefore).toBeUndefined();
    expect((await updateUser(user.id, { passwordHash: 'scrypt$second' })).tokensNotBefore).toBeGreaterThan(Date.now() / 1000 - 5);
  });

  it('ends sessions on a new password, a deactivation or a revocation', async () => {
    const user = await createUser({ email: 'sessions@example.test', kind: 'practitioner', passwordHash: 'scrypt$old' });
    expect(user.tokensNotBefore).toBeUndefined();
    const changed = await updateUser(user.id, { passwordHash: 'scrypt$new' });
    expect(changed.passwordHash).toBe('scrypt$new');
    expect(changed.tokensNotBefore).toBeGreaterThan(Date.now() / 1000 - 5);
    const cleared = await updateUser(user.id, { passwordHash: null });
    expect(cleared.passwordHash).toBeUndefined();
    const inactive = await updateUser(user.id, { active: false });
    expect(inactive.active).toBe(false);
    await revokeUserTokens(user.id);
    expect((await getUser(user.id))?.tokensNotBefore).toBeDefined();
    await expect(revokeUserTokens(987654)).rejects.toMatchObject({ status: 404 });
  });

  it('deletes an account, freeing its email; a patient keeps their record without a login', async () => {
    const patient = await makePatient({ login: true, email: 'leaving@example.test' });
    await deleteUser(patient.userId!);
    expect(await getUser(patient.userId!)).toBeUndefined();
    expect(await getUserByEmail('leaving@example.test')).toBeUndefined();
    const record = await getPatient(patient.id);
    expect(record?.userId).toBeUndefined();
    expect(record?.nameFamily).toBe(patient.nameFamily);
    await expect(deleteUser(patient.userId!)).rejects.toMatchObject({ status: 404 });
    // The email's claim went with the account: it can be taken again.
    expect((await createUser({ email: 'leaving@example.test', kind: 'patient' })).email).toBe('leaving@example.test');
  });
});

describe('practitioners', () => {
  it('creates a practitioner with roles in several organizations in one go', async () => {
    const a = await makeOrganization();
    const b = await makeOrganization();
    const doctor = await createPractitioner({
      email: 'doc@example.test',
      nameFamily: 'House',
      nameGiven: 'Greg',
      superuser: true,
      organizations: [
        { organizationId: a.id, role: 'viewer' },
        { organizationId: b.id, role: 'viewer' },
        { organizationId: b.id, role: 'manager' },
      ],
    });
    expect(await getPractitioner(doctor.id)).toEqual(doctor);
    expect(doctor.roles).toEqual(new Map([[a.id, 'viewer'], [b.id, 'manager']]));
    expect(doctor.superuser).toBe(true);
    expect(await listPractitionerIds()).toContain(doctor.id);
    const patientUser = await createUser({ email: 'not-a-doc@example.test', kind: 'patient' });
    expect(await getPractitioner(patientUser.id)).toBeUndefined();
    expect((await getPractitioners([doctor.id, patientUser.id])).map((p) => p.id)).toEqual([doctor.id]);
    expect(await listPractitionerIds()).not.toContain(patientUser.id);
  });

  it('never loses a role to a concurrent account update', async () => {
    const orgs = await Promise.all(Array.from({ length: 6 }, () => makeOrganization()));
    const doctor = await createPractitioner({ email: 'busy@example.test' });
    await Promise.allSettled([
      ...orgs.map((o) => setOrganizationRole(o.id, doctor.id, 'member')),
      ...orgs.map((_, i) => updateUser(doctor.id, { nameGiven: `Name ${i}` })),
    ]);
    expect([...((await getPractitioner(doctor.id))?.roles.keys() ?? [])].sort((a, b) => a - b)).toEqual(orgs.map((o) => o.id));
  });

  it('writes nothing when an organization does not exist', async () => {
    await expect(
      createPractitioner({ email: 'ghost@example.test', organizations: [{ organizationId: 987654, role: 'member' }] }),
    ).rejects.toMatchObject({ status: 404 });
    expect(await getUserByEmail('ghost@example.test')).toBeUndefined();
    // No claim of the email was left behind: it can be taken.
    expect((await createUser({ email: 'ghost@example.test', kind: 'practitioner' })).email).toBe('ghost@example.test');
  });

  it('deleting a practitioner removes them from their organizations', async () => {
    const org = await makeOrganization();
    const doctor = await createPractitioner({ email: 'bye@example.test', organizations: [{ organizationId: org.id, role: 'member' }] });
    await deleteUser(doctor.id);
    expect(await listOrganizationMembers(org.id)).toEqual([]);
    expect(await listPractitionerIds()).not.toContain(doctor.id);
  });
});
