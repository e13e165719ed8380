/** `/api/v1/practitioners` and `/api/v1/data_sources`: superuser writes, catalogue reads. */
import { beforeAll, describe, expect, it } from 'vitest';
import { verifyPassword } from '../../../shared/auth/passwords';
import { getDataSource, listSupportedCodes } from '../../../shared/directory/data-sources';
import type { Code, Organization, Patient, Practitioner } from '../../../shared/directory/model';
import { getUser, getUserByEmail } from '../../../shared/directory/users';
import { refused, resultIds, send } from '../../support/api';
import { code, codes, makeDataSource, makeOrganization, makePatient, makePractitioner } from '../../support/directory';

type Who = { token: string };
let A: Organization;
let admin: Practitioner & Who, manA: Practitioner & Who, mA: Practitioner & Who;
let p1: Patient & Partial<Who>;
let hr: Code;

beforeAll(async () => {
  A = await makeOrganization({ name: 'A' });
  admin = await makePractitioner({ superuser: true, organizations: [A] });
  manA = await makePractitioner({ organizations: [A], role: 'manager' });
  mA = await makePractitioner({ organizations: [A] });
  p1 = await makePatient({ organizations: [A], login: true });
  hr = await code('omh:heart-rate:2.0');
});

describe('practitioners (superusers)', () => {
  it('lists, creates, reads, changes and deletes practitioner accounts', async () => {
    const list = await send('GET', '/api/v1/practitioners', admin.token);
    expect(list.status).toBe(200);
    expect(resultIds(list.json)).toEqual(expect.arrayContaining([admin.id, manA.id, mA.id]));
    expect(list.json.results.find((r: { id: number }) => r.id === manA.id)).toEqual({
      id: manA.id,
      jheUserId: manA.id,
      nameFamily: manA.nameFamily,
      nameGiven: manA.nameGiven,
      telecomEmail: manA.email,
      isSuperuser: false,
      organizations: [{ id: A.id, name: 'A', type: 'prov', partOf: null, role: 'manager' }],
    });

    const created = await send('POST', '/api/v1/practitioners', admin.token, {
      telecom_email: 'new.doctor@example.test',
      name_family: 'Ng',
      name_given: 'Li',
      organization_id: A.id,
      role: 'viewer',
      password: 'correct horse battery staple',
    });
    expect(created.status).toBe(201);
    expect(created.json).toMatchObject({ telecomEmail: 'new.doctor@example.test', organizations: [{ id: A.id, role: 'viewer' }] });
    const account = await getUserByEmail('new.doctor@example.test');
    expect(await verifyPassword('correct horse battery staple', account!.passwordHash!)).toBe(true);
    expect(JSON.stringify(created.json)).not.toContain('scrypt');

    const id = created.json.id as number;
    expect((await send('GET', `/api/v1/practitioners/${id}`, admin.token)).json).toMatchObject({ id, nameFamily: 'Ng' });
    expect((await send('PATCH', `/api/v1/practitioners/${id}`, admin.token, { name_family: 'Ngo', is_active: false })).json).toMatchObject({ nameFamily: 'Ngo' });
    expect((await getUser(id))!.active).toBe(false);
    expect((await send('DELETE', `/api/v1/practitioners/${id}`, admin.token)).status).toBe(204);
    expect(await getUser(id)).toBeUndefined();
  });

  it('a practitioner may read only themselves; nobody else manages accounts', async () => {
    expect((await send('GET', `/api/v1/practitioners/${mA.id}`, mA.token)).json).toMatchObject({ id: mA.id });
    expect((await refused('GET', `/api/v1/practitioners/${manA.id}`, mA.token)).status).toBe(403);
    expect((await refused('GET', '/api/v1/practitioners', manA.token)).status).toBe(403);
    expect((await refused('GET', '/api/v1/practitioners', p1.token)).status).toBe(403);
    expect((await refused('POST', '/api/v1/practitioners', manA.token, { telecom_email: 'x@example.test' })).status).toBe(403);
    expect((await refused('PATCH', `/api/v1/practitioners/${mA.id}`, mA.token, { is_superuser: true })).status).toBe(403);
    expect((await refused('DELETE', `/api/v1/practitioners/${mA.id}`, manA.token)).status).toBe(403);
  });

  it('refuses taken emails, weak passwords, deleting or demoting oneself, and unknown fields', async () => {
    expect((await refused('POST', '/api/v1/practitioners', admin.token, { telecom_email: mA.email })).json).toEqual({ telecomEmail: ['A user with this email already exists.'] });
    expect((await refused('POST', '/api/v1/practitioners', admin.token, { telecom_email: 'y@example.test', password: 'short' })).json).toEqual({ password: ['Ensure this field has at least 12 characters.'] });
    expect((await refused('DELETE', `/api/v1/practitioners/${admin.id}`, admin.token)).status).toBe(400);
    expect((await refused('PATCH', `/api/v1/practitioners/${admin.id}`, admin.token, { is_superuser: false })).status).toBe(400);
    expect((await refused('POST', '/api/v1/practitioners', admin.token, { telecom_email: 'z@example.test', password_hash: 'scrypt$x' })).json).toEqual({ passwordHash: ['Unknown field.'] });
    expect((await refused('GET', `/api/v1/practitioners/${p1.userId}`, admin.token)).status).toBe(404);
  });
});

describe('data sources', () => {
  it('every signed-in user reads the catalogue and the code table', async () => {
    const watch = await makeDataSource({ name: 'Watch', codes: [hr.code] });
    const list = await send('GET', '/api/v1/data_sources', p1.token);
    expect(list.status).toBe(200);
    expect(list.json.results.find((r: { id: number }) => r.id === watch.id)).toMatchObject({
      name: 'Watch',
      type: 'personal_device',
      supportedScopes: [{ id: hr.id, codingSystem: hr.system, codingCode: hr.code, text: hr.display }],
    });
    expect((await send('GET', `/api/v1/data_sources/${watch.id}`, mA.token)).json).toMatchObject({ id: watch.id });
    const all = await send('GET', '/api/v1/data_sources/all_scopes', mA.token);
    expect(all.json).toHaveLength((await codes()).length);
    expect((await send('GET', `/api/v1/data_sources/${watch.id}/supported_scopes`, p1.token)).json).toEqual([{ id: hr.id, codingSystem: hr.system, codingCode: hr.code, text: hr.display }]);
    expect((await send('GET', '/api/v1/data_sources/999999', mA.token)).status).toBe(404);
  });

  it('only superusers create, change, delete and declare supported codes', async () => {
    const created = await send('POST', '/api/v1/data_sources', admin.token, { name: 'Scale', type: 'medical_device' });
    expect(created.status).toBe(201);
    const id = created.json.id as number;
    expect((await send('PATCH', `/api/v1/data_sources/${id}`, admin.token, { name: 'Smart scale' })).json).toMatchObject({ name: 'Smart scale', type: 'medical_device' });
    expect((await send('POST', `/api/v1/data_sources/${id}/supported_scopes`, admin.token, { scope_code_id: hr.id })).status).toBe(201);
    expect((await listSupportedCodes(id)).map((c) => c.id)).toEqual([hr.id]);
    for (const who of [manA, mA, p1]) {
      expect((await refused('POST', '/api/v1/data_sources', who.token, { name: 'X', type: 'patient_app' })).status).toBe(403);
      expect((await refused('PATCH', `/api/v1/data_sources/${id}`, who.token, { name: 'X' })).status).toBe(403);
      expect((await refused('DELETE', `/api/v1/data_sources/${id}`, who.token)).status).toBe(403);
      expect((await refused('DELETE', `/api/v1/data_sources/${id}/supported_scopes`, who.token, { scope_code_id: hr.id })).status).toBe(403);
    }
    expect((await refused('POST', '/api/v1/data_sources', admin.token, { name: 'X', type: 'toaster' })).json).toEqual({ type: ['"toaster" is not a valid choice.'] });
    expect((await send('DELETE', `/api/v1/data_sources/${id}/supported_scopes`, admin.token, { scope_code_id: hr.id })).status).toBe(204);
    expect((await send('DELETE', `/api/v1/data_sources/${id}`, admin.token)).status).toBe(204);
    expect(await getDataSource(id)).toBeUndefined();
  });
});
