/**
 * `/api/v1/patients` through the real handler and DynamoDB Local: every operation, the role rules,
 * and that refused requests change nothing. The world:
 *
 *   A (root) > B (child)       C (separate)
 *   mA member of A, vA viewer of A, mAC member of A and C, mC member of C,
 *   admin superuser without organizations
 *   p1 in A (login), p2 in A and C, p3 in B, p4 in C; study sA of A with p1
 */
import { beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { getFhirSource } from '../../../shared/directory/fhir-sources';
import { findPatientByIdentifier, getPatient } from '../../../shared/directory/patients';
import { getUserByEmail } from '../../../shared/directory/users';
import type { Organization, Patient, Practitioner, Study } from '../../../shared/directory/model';
import { makeDataSource, makeFhirSource, makeOrganization, makePatient, makePractitioner, makeStudy } from '../../support/directory';
import { purgeCalls, purgeFaults } from '../../support/purge-recorder';
import { refused, resultIds, send } from '../../support/api';

vi.mock('../../../shared/management/purge', async () => (await import('../../support/purge-recorder')).purgeRecorderModule());

type Who = { token: string };
let A: Organization, B: Organization, C: Organization;
let mA: Practitioner & Who, vA: Practitioner & Who, mAC: Practitioner & Who, mC: Practitioner & Who, admin: Practitioner & Who;
let p1: Patient & Partial<Who>, p2: Patient, p3: Patient, p4: Patient & Partial<Who>;
let sA: Study;

const MRN = 'https://hospital.example.test/mrn';

beforeAll(async () => {
  A = await makeOrganization({ name: 'A' });
  B = await makeOrganization({ name: 'B', partOf: A });
  C = await makeOrganization({ name: 'C' });
  mA = await makePractitioner({ organizations: [A] });
  vA = await makePractitioner({ organizations: [A], role: 'viewer' });
  mAC = await makePractitioner({ organizations: [A, C] });
  mC = await makePractitioner({ organizations: [C] });
  admin = await makePractitioner({ superuser: true });
  p1 = await makePatient({ organizations: [A], login: true, identifiers: [{ system: MRN, value: 'p1' }] });
  p2 = await makePatient({ organizations: [A, C], identifiers: [{ system: MRN, value: 'p2' }] });
  p3 = await makePatient({ organizations: [B] });
  p4 = await makePatient({ organizations: [C], login: true });
  sA = await makeStudy({ organization: A, patients: [p1] });
});

beforeEach(() => {
  purgeCalls.length = 0;
});

describe('GET /api/v1/patients', () => {
  it('lists the patients of the caller\'s organizations only, with organizations out of reach left out', async () => {
    const res = await send('GET', '/api/v1/patients', mA.token);
    expect(res.status).toBe(200);
    expect(res.json).toMatchObject({ count: 2, next: null, previous: null });
    expect(resultIds(res.json)).toEqual([p1.id, p2.id]);
    const two = res.json.results[1];
    expect(two.organizations.map((o: { id: number }) => o.id)).toEqual([A.id]); // not C
    expect(res.json.results[0]).toEqual({
      id: p1.id,
      jheUserId: p1.userId,
      identifiers: [{ system: MRN, value: 'p1' }],
      nameFamily: p1.nameFamily,
      nameGiven: p1.nameGiven,
      birthDate: null,
      telecomPhone: null,
      telecomEmail: p1.telecomEmail,
      organizations: [{ id: A.id, name: 'A', type: 'prov', partOf: null }],
      lastUpdated: p1.updatedAt,
    });
  });

  it('filters by organization, study, patient and identifier value', async () => {
    expect(resultIds((await send('GET', `/api/v1/patients?organization_id=${C.id}`, mAC.token)).json)).toEqual([p2.id, p4.id]);
    expect(resultIds((await send('GET', `/api/v1/patients?organizationId=${A.id}`, mAC.token)).json)).toEqual([p1.id, p2.id]);
    expect(resultIds((await send('GET', `/api/v1/patients?study_id=${sA.id}`, mA.token)).json)).toEqual([p1.id]);
    expect(resultIds((await send('GET', `/api/v1/patients?patient_id=${p2.id}`, mA.token)).json)).toEqual([p2.id]);
    expect(resultIds((await send('GET', '/api/v1/patients?patient_identifier_value=p2', mA.token)).json)).toEqual([p2.id]);
    expect(resultIds((await send('GET', '/api/v1/patients?patient_identifier_value=p2', mC.token)).json)).toEqual([p2.id]);
    expect(resultIds((await send('GET', '/api/v1/patients?patient_identifier_value=p1', mC.token)).json)).toEqual([]);
  });

  it('is 403 for an organization, study or patient out of reach, 400 for a malformed filter', async () => {
    expect((await send('GET', `/api/v1/patients?organization_id=${C.id}`, mA.token)).status).toBe(403);
    expect((await send('GET', `/api/v1/patients?patient_id=${p4.id}`, mA.token)).status).toBe(403);
    const bad = await send('GET', '/api/v1/patients?organization_id=1%20OR%201=1', mA.token);
    expect(bad.status).toBe(400);
    expect(bad.json).toEqual({ organizationId: ['A valid integer is required.'] });
  });

  it('pages with absolute links; a page past the end is 404', async () => {
    const first = await send('GET', '/api/v1/patients?page_size=1', mA.token);
    expect(first.json).toMatchObject({ count: 2, previous: null, next: 'http://localhost:8000/api/v1/patients?page_size=1&page=2' });
    const second = await send('GET', '/api/v1/patients?page_size=1&page=2', mA.token);
    expect(resultIds(second.json)).toEqual([p2.id]);
    expect(second.json.previous).toBe('http://localhost:8000/api/v1/patients?page_size=1');
    expect((await send('GET', '/api/v1/patients?page=3', mA.token)).status).toBe(404);
  });

  it('gives a patient only themselves, and a superuser without organizations nobody', async () => {
    expect(resultIds((await send('GET', '/api/v1/patients', p1.token)).json)).toEqual([p1.id]);
    expect(resultIds((await send('GET', `/api/v1/patients?patient_id=${p2.id}`, p1.token)).json)).toEqual([]);
    expect(resultIds((await send('GET', '/api/v1/patients', admin.token)).json)).toEqual([]);
  });

  it('needs a token', async () => {
    const res = await send('GET', '/api/v1/patients', undefined);
    expect(res.status).toBe(401);
    expect(res.json).toEqual({ detail: 'Authentication credentials were not provided.' });
    expect(res.headers['www-authenticate']).toMatch(/^Bearer/);
  });
});

describe('POST /api/v1/patients', () => {
  it('creates a patient in an organization with a login account for the email', async () => {
    const res = await send('POST', '/api/v1/patients', mA.token, {
      organization_id: A.id,
      telecom_email: 'new.patient@example.test',
      name_family: 'Okafor',
      nameGiven: 'Ada',
      birth_date: '1970-05-06',
      telecom_phone: '+44 20 7946 0000',
      identifiers: [{ system: MRN, value: 'new-1' }],
    });
    expect(res.status).toBe(201);
    expect(res.json).toMatchObject({ nameFamily: 'Okafor', nameGiven: 'Ada', birthDate: '1970-05-06', organizations: [{ id: A.id }], identifiers: [{ system: MRN, value: 'new-1' }] });
    const stored = await getPatient(res.json.id);
    expect(stored).toMatchObject({ organizationIds: [A.id], telecomEmail: 'new.patient@example.test' });
    const account = await getUserByEmail('new.patient@example.test');
    expect(account).toMatchObject({ kind: 'patient', patientId: res.json.id });
    expect(res.json.jheUserId).toBe(account!.id);
  });

  it('refuses a viewer, another organization, a patient and a superuser without that organization', async () => {
    const body = { organization_id: A.id, telecom_email: 'refused@example.test' };
    expect((await refused('POST', '/api/v1/patients', vA.token, body)).status).toBe(403);
    expect((await refused('POST', '/api/v1/patients', mC.token, body)).status).toBe(403);
    expect((await refused('POST', '/api/v1/patients', p1.token, body)).status).toBe(403);
    expect((await refused('POST', '/api/v1/patients', admin.token, body)).status).toBe(403);
  });

  it('names missing, unknown and malformed fields', async () => {
    const res = await refused('POST', '/api/v1/patients', mA.token, { name_family: 'X', is_admin: true, birth_date: '1970-02-30' });
    expect(res.json).toEqual({
      organizationId: ['This field is required.'],
      telecomEmail: ['This field is required.'],
      birthDate: ['Date has wrong format. Use one of these formats instead: YYYY-MM-DD.'],
      isAdmin: ['Unknown field.'],
    });
  });

  it('refuses an email or identifier that is taken (409), creating nothing', async () => {
    const email = await refused('POST', '/api/v1/patients', mA.token, { organization_id: A.id, telecom_email: p1.telecomEmail });
    expect(email.status).toBe(409);
    expect(email.json).toEqual({ telecomEmail: ['A user with this email already exists.'] });
    const identifier = await refused('POST', '/api/v1/patients', mA.token, { organization_id: A.id, telecom_email: 'other@example.test', identifiers: [{ system: MRN, value: 'p4x' }, { system: MRN, value: 'p2' }] });
    expect(identifier.status).toBe(409);
    expect(await getUserByEmail('other@example.test')).toBeUndefined();
    expect(await findPatientByIdentifier(MRN, 'p4x')).toBeUndefined();
  });
});

describe('GET /api/v1/patients/<id> and /me', () => {
  it('reads within scope, 404 otherwise', async () => {
    expect((await send('GET', `/api/v1/patients/${p1.id}`, mA.token)).json).toMatchObject({ id: p1.id });
    expect((await send('GET', `/api/v1/patients/${p1.id}`, p1.token)).json).toMatchObject({ id: p1.id });
    for (const [path, token] of [
      [`/api/v1/patients/${p4.id}`, mA.token],
      [`/api/v1/patients/${p3.id}`, mA.token],
      [`/api/v1/patients/${p2.id}`, p1.token],
      ['/api/v1/patients/999999', mA.token],
      ['/api/v1/patients/abc', mA.token],
    ] as const) {
      expect((await send('GET', path, token)).status, path).toBe(404);
    }
  });

  it('me: the caller\'s own record; 403 for practitioners', async () => {
    expect((await send('GET', '/api/v1/patients/me', p4.token)).json).toMatchObject({ id: p4.id });
    expect((await send('GET', '/api/v1/patients/me', mA.token)).status).toBe(403);
  });
});

describe('PUT and PATCH /api/v1/patients/<id>', () => {
  it('a member changes demographics; null clears; identifiers are replaced', async () => {
    const patient = await makePatient({ organizations: [A], birthDate: '1980-01-01', telecomPhone: '555-0100', identifiers: [{ system: MRN, value: 'old' }] });
    const res = await send('PATCH', `/api/v1/patients/${patient.id}`, mA.token, { name_given: 'Sam', telecom_phone: null, identifiers: [{ system: MRN, value: 'new' }] });
    expect(res.status).toBe(200);
    expect(res.json).toMatchObject({ nameGiven: 'Sam', telecomPhone: null, birthDate: '1980-01-01', identifiers: [{ system: MRN, value: 'new' }] });
    expect(await findPatientByIdentifier(MRN, 'old')).toBeUndefined();
    expect(await findPatientByIdentifier(MRN, 'new')).toBe(patient.id);
    const put = await send('PUT', `/api/v1/patients/${patient.id}?organization_id=${A.id}`, mA.token, { telecom_email: 'sam@example.test', name_family: 'Lee' });
    expect(put.status).toBe(200);
    expect((await getPatient(patient.id))).toMatchObject({ nameFamily: 'Lee', nameGiven: 'Sam', telecomEmail: 'sam@example.test' });
  });

  it('refuses viewers, patients, other organizations and bad bodies without changing anything', async () => {
    expect((await refused('PATCH', `/api/v1/patients/${p1.id}`, vA.token, { name_given: 'X' })).status).toBe(403);
    expect((await refused('PATCH', `/api/v1/patients/${p1.id}`, p1.token, { name_given: 'X' })).status).toBe(403);
    expect((await refused('PATCH', `/api/v1/patients/${p1.id}`, mC.token, { name_given: 'X' })).status).toBe(404);
    expect((await refused('PATCH', `/api/v1/patients/${p2.id}?organization_id=${C.id}`, mA.token, { name_given: 'X' })).status).toBe(403);
    expect((await refused('PATCH', `/api/v1/patients/${p1.id}?organization_id=${C.id}`, mAC.token, { name_given: 'X' })).status).toBe(400);
    expect((await refused('PUT', `/api/v1/patients/${p1.id}`, mA.token, { name_given: 'X' })).json).toEqual({ telecomEmail: ['This field is required.'] });
    expect((await refused('PATCH', `/api/v1/patients/${p1.id}`, mA.token, { organizations: [C.id] })).json).toEqual({ organizations: ['Unknown field.'] });
    expect((await refused('PATCH', `/api/v1/patients/${p1.id}`, mA.token, { identifiers: [{ system: MRN, value: 'p2' }] })).status).toBe(409);
  });
});

describe('PATCH /api/v1/patients/<id>/global_add_organization', () => {
  it('adds a visible patient to another organization the caller is a member of', async () => {
    const patient = await makePatient({ organizations: [A] });
    const res = await send('PATCH', `/api/v1/patients/${patient.id}/global_add_organization?organization_id=${C.id}`, mAC.token);
    expect(res.status).toBe(200);
    expect((await getPatient(patient.id))!.organizationIds).toEqual([A.id, C.id]);
    expect((await refused('PATCH', `/api/v1/patients/${patient.id}/global_add_organization?organization_id=${C.id}`, mAC.token)).status).toBe(400);
  });

  it('refuses a target organization without the member role, and patients out of sight', async () => {
    expect((await refused('PATCH', `/api/v1/patients/${p1.id}/global_add_organization?organization_id=${C.id}`, mA.token)).status).toBe(403);
    expect((await refused('PATCH', `/api/v1/patients/${p1.id}/global_add_organization?organization_id=${C.id}`, mC.token)).status).toBe(404);
    expect((await refused('PATCH', `/api/v1/patients/${p1.id}/global_add_organization`, mAC.token)).json).toEqual({ detail: 'organizationId required' });
  });
});

describe('DELETE /api/v1/patients/<id>', () => {
  it('needs organization_id', async () => {
    const res = await refused('DELETE', `/api/v1/patients/${p1.id}`, mA.token);
    expect(res.status).toBe(400);
    expect(res.json).toEqual({ detail: 'organizationId required' });
  });

  it('removes the patient from one organization while others remain, touching no data', async () => {
    const patient = await makePatient({ organizations: [A, C] });
    await makeStudy({ organization: C, patients: [patient] });
    expect((await send('DELETE', `/api/v1/patients/${patient.id}?organization_id=${C.id}`, mAC.token)).status).toBe(204);
    expect(await getPatient(patient.id)).toMatchObject({ organizationIds: [A.id], studyIds: [] });
    expect(purgeCalls).toEqual([]);
  });

  it('erases a patient removed from their last organization: data, sources, record, identifiers and login', async () => {
    const patient = await makePatient({ organizations: [A], login: true, identifiers: [{ system: MRN, value: 'erase-me' }] });
    const source = await makeFhirSource({ patient, dataSource: await makeDataSource() });
    expect((await send('DELETE', `/api/v1/patients/${patient.id}?organization_id=${A.id}`, mA.token)).status).toBe(204);
    expect(await getPatient(patient.id)).toBeUndefined();
    expect(await getFhirSource(source.id)).toBeUndefined();
    expect(await getUserByEmail(patient.telecomEmail!)).toBeUndefined();
    expect(await findPatientByIdentifier(MRN, 'erase-me')).toBeUndefined();
    // Each data hook runs while the record exists (a retry can find it) and once more after.
    expect(purgeCalls.filter((c) => c.kind === 'patient')).toEqual([
      { kind: 'patient', id: patient.id, recordExisted: true },
      { kind: 'patient', id: patient.id, recordExisted: false },
    ]);
    expect(purgeCalls.filter((c) => c.kind === 'fhirSource')[0]).toEqual({ kind: 'fhirSource', id: source.id, recordExisted: true });
    expect((await send('GET', `/api/v1/patients/${patient.id}`, mA.token)).status).toBe(404);
  });

  it('keeps the patient when the data store fails, so the deletion can be retried', async () => {
    const patient = await makePatient({ organizations: [A] });
    purgeFaults.next = new Error('store unavailable');
    const failed = await send('DELETE', `/api/v1/patients/${patient.id}?organization_id=${A.id}`, mA.token);
    expect(failed.status).toBe(500);
    expect(failed.text).not.toContain('store unavailable');
    expect(await getPatient(patient.id)).toBeDefined();
    expect((await send('DELETE', `/api/v1/patients/${patient.id}?organization_id=${A.id}`, mA.token)).status).toBe(204);
    expect(await getPatient(patient.id)).toBeUndefined();
  });

  it('refuses viewers, other organizations and patients out of sight', async () => {
    expect((await refused('DELETE', `/api/v1/patients/${p1.id}?organization_id=${A.id}`, vA.token)).status).toBe(403);
    expect((await refused('DELETE', `/api/v1/patients/${p1.id}?organization_id=${A.id}`, p1.token)).status).toBe(403);
    expect((await refused('DELETE', `/api/v1/patients/${p4.id}?organization_id=${C.id}`, mA.token)).status).toBe(404);
    expect((await refused('DELETE', `/api/v1/patients/${p1.id}?organization_id=${C.id}`, mAC.token)).status).toBe(400);
    expect(purgeCalls).toEqual([]);
  });
});
