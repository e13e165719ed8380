/** `users/profile`, `users/organizations` and the portal's `POST /api/v1/portal/identifier`. */
import { beforeAll, describe, expect, it } from 'vitest';
import type { Organization, Patient, Practitioner } from '../../../shared/directory/model';
import { findPatientByIdentifier, getPatient } from '../../../shared/directory/patients';
import { refused, send } from '../../support/api';
import { makeOrganization, makePatient, makePractitioner } from '../../support/directory';

type Who = { token: string };
let A: Organization, B: Organization;
let doctor: Practitioner & Who;
let alice: Patient & Partial<Who>, bob: Patient & Partial<Who>;
const ISS = 'https://ehr.example.org/fhir/r4';

beforeAll(async () => {
  A = await makeOrganization({ name: 'A' });
  B = await makeOrganization({ name: 'B' });
  doctor = await makePractitioner({ roles: [[A, 'manager'], [B, 'viewer']], superuser: true });
  alice = await makePatient({ organizations: [A], login: true, identifiers: [{ system: 'urn:mrn', value: 'a-1' }] });
  bob = await makePatient({ organizations: [A], login: true });
});

describe('users/profile and users/organizations', () => {
  it('a patient sees their patient record', async () => {
    const res = await send('GET', '/api/v1/users/profile', alice.token);
    expect(res.json).toEqual({
      id: alice.userId,
      patient: { id: alice.id, jheUserId: alice.userId, identifiers: [{ system: 'urn:mrn', value: 'a-1' }], organizations: [{ id: A.id, name: 'A', type: 'prov', partOf: null }] },
      userType: 'patient',
      isSuperuser: false,
    });
  });

  it('a practitioner sees their account and roles', async () => {
    expect((await send('GET', '/api/v1/users/profile', doctor.token)).json).toEqual({
      id: doctor.id,
      email: doctor.email,
      firstName: doctor.nameGiven,
      lastName: doctor.nameFamily,
      patient: null,
      userType: 'practitioner',
      isSuperuser: true,
      settings: {},
    });
    const orgs = await send('GET', '/api/v1/users/organizations', doctor.token);
    expect(orgs.json.map((o: { id: number; currentUserRole: string }) => [o.id, o.currentUserRole])).toEqual([
      [A.id, 'manager'],
      [B.id, 'viewer'],
    ]);
    expect((await send('GET', '/api/v1/users/organizations', alice.token)).json.map((o: { id: number }) => o.id)).toEqual([A.id]);
  });

  it('needs a token', async () => {
    expect((await send('GET', '/api/v1/users/profile', undefined)).status).toBe(401);
  });
});

describe('POST /api/v1/portal/identifier', () => {
  it('stores the identifier on the signed-in patient, idempotently, keeping the others', async () => {
    const first = await send('POST', '/api/v1/portal/identifier', alice.token, { system: ISS, value: 'ehr-123' });
    expect(first.status).toBe(200);
    expect(first.json).toEqual({ system: ISS, value: 'ehr-123' });
    expect((await send('POST', '/api/v1/portal/identifier', alice.token, { system: ISS, value: 'ehr-123' })).status).toBe(200);
    expect((await getPatient(alice.id))!.identifiers).toEqual([
      { system: 'urn:mrn', value: 'a-1' },
      { system: ISS, value: 'ehr-123' },
    ]);
  });

  it('409 when the identifier belongs to another patient, with nothing changed', async () => {
    const res = await refused('POST', '/api/v1/portal/identifier', bob.token, { system: ISS, value: 'ehr-123' });
    expect(res.status).toBe(409);
    expect(res.json).toEqual({ error: 'Identifier is already assigned to another patient' });
    expect(await findPatientByIdentifier(ISS, 'ehr-123')).toBe(alice.id);
  });

  it('answers the portal\'s error bodies for a practitioner and for missing fields', async () => {
    expect((await refused('POST', '/api/v1/portal/identifier', doctor.token, { system: ISS, value: 'x' })).json).toEqual({ error: 'Authenticated user is not a patient' });
    expect((await refused('POST', '/api/v1/portal/identifier', bob.token, { system: ISS })).json).toEqual({ error: 'system and value are required' });
    expect((await refused('POST', '/api/v1/portal/identifier', bob.token, {})).json).toEqual({ error: 'system and value are required' });
  });

  it('refuses unknown fields, wrong types, spaces in the system and oversized values', async () => {
    expect((await refused('POST', '/api/v1/portal/identifier', bob.token, { system: ISS, value: 'x', patient_id: alice.id })).json).toEqual({ patientId: ['Unknown field.'] });
    expect((await refused('POST', '/api/v1/portal/identifier', bob.token, { system: ISS, value: 5 })).status).toBe(400);
    expect((await refused('POST', '/api/v1/portal/identifier', bob.token, { system: 'not a uri', value: 'x' })).status).toBe(400);
    expect((await refused('POST', '/api/v1/portal/identifier', bob.token, { system: ISS, value: 'x'.repeat(300) })).status).toBe(400);
  });
});
