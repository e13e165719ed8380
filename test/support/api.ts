/**
 * Calls to `/api/v1/` in tests: JSON bodies, refusals that must leave every stored row as it was,
 * and a world with every `/api/v1/` write and a body it would accept (for the hostile-input tests
 * and the fuzz suite).
 */
import { expect } from 'vitest';
import type { Code, DataSource, Organization, Patient, Practitioner, Study } from '../../shared/directory/model';
import { OMH_SYSTEM } from '../../shared/fhir/constants';
import { code, makeDataSource, makeOrganization, makePatient, makePractitioner, makeStudy, type WithToken } from './directory';
import { call, type TestResponse } from './invoke';
import { directoryRows } from './store';

export function send(method: string, url: string, token: string | undefined, body?: unknown): Promise<TestResponse> {
  return call(method, url, { ...(token ? { token } : {}), ...(body !== undefined ? { body, headers: { 'content-type': 'application/json' } } : {}) });
}

/** Runs a request that must be refused with a 4xx and checks that no stored row changed. */
export async function refused(method: string, url: string, token: string | undefined, body?: unknown): Promise<TestResponse> {
  const before = await directoryRows();
  const res = await send(method, url, token, body);
  expect(res.status, `${method} ${url}: ${res.text}`).toBeGreaterThanOrEqual(400);
  expect(res.status, `${method} ${url}: ${res.text}`).toBeLessThan(500);
  expect(await directoryRows()).toEqual(before);
  return res;
}

/** The ids of an `/api/v1/` list answer. */
export const resultIds = (json: { results: Array<{ id: number }> }) => json.results.map((r) => r.id);

export interface ApiWorld {
  /** An organization, and B inside it. */
  A: Organization;
  B: Organization;
  /** Manager of A and B. */
  manA: Practitioner & WithToken;
  admin: Practitioner & WithToken;
  /** A practitioner of no organization. */
  other: Practitioner & WithToken;
  hr: Code;
  /** Patients of A: p1 with a login, enrolled in the study; p2 without. */
  p1: Patient & WithToken;
  p2: Patient;
  study: Study;
  device: DataSource;
}

export async function apiWorld(): Promise<ApiWorld> {
  const A = await makeOrganization({ name: 'A' });
  const B = await makeOrganization({ name: 'B', partOf: A });
  const manA = await makePractitioner({ roles: [[A, 'manager'], [B, 'manager']] });
  const admin = await makePractitioner({ superuser: true, organizations: [A] });
  const other = await makePractitioner();
  const hr = await code('omh:heart-rate:2.0');
  const p1 = (await makePatient({ organizations: [A], login: true })) as Patient & WithToken;
  const p2 = await makePatient({ organizations: [A] });
  const device = await makeDataSource();
  const study = await makeStudy({ organization: A, codes: [hr.code], patients: [p1] });
  return { A, B, manA, admin, other, hr, p1, p2, study, device };
}

export interface ApiWrite {
  name: string;
  method: string;
  url: (w: ApiWorld) => string;
  token: (w: ApiWorld) => string;
  /** A body that would be accepted. */
  body: (w: ApiWorld) => Record<string, unknown>;
}

/** Every `/api/v1/` write, with its caller and a body it would accept, in a world of `apiWorld()`. */
export const API_WRITES: readonly ApiWrite[] = [
  {
    name: 'create patient',
    method: 'POST',
    url: () => '/api/v1/patients',
    token: (w) => w.manA.token,
    body: (w) => ({ organization_id: w.A.id, telecom_email: 'ok@example.test', name_family: 'F', name_given: 'G', birth_date: '1980-01-01', telecom_phone: '555 0100', identifiers: [{ system: 'urn:x', value: 'v' }] }),
  },
  {
    name: 'change patient',
    method: 'PATCH',
    url: (w) => `/api/v1/patients/${w.p2.id}`,
    token: (w) => w.manA.token,
    body: () => ({ name_family: 'F', name_given: 'G', birth_date: '1980-01-01', telecom_phone: '555 0100', telecom_email: 'ok@example.test', identifiers: [] }),
  },
  {
    name: 'record consents',
    method: 'POST',
    url: (w) => `/api/v1/patients/${w.p1.id}/consents`,
    token: (w) => w.p1.token,
    body: (w) => ({ study_scope_consents: [{ study_id: w.study.id, scope_consents: [{ coding_system: OMH_SYSTEM, coding_code: w.hr.code, consented: true }] }] }),
  },
  { name: 'create study', method: 'POST', url: () => '/api/v1/studies', token: (w) => w.manA.token, body: (w) => ({ name: 'S', description: 'D', organization: w.A.id, icon_url: 'https://x.example.org/i.png' }) },
  { name: 'change study', method: 'PATCH', url: (w) => `/api/v1/studies/${w.study.id}`, token: (w) => w.manA.token, body: (w) => ({ name: 'S', description: 'D', organization: w.A.id, icon_url: '' }) },
  { name: 'enrol', method: 'POST', url: (w) => `/api/v1/studies/${w.study.id}/patients`, token: (w) => w.manA.token, body: (w) => ({ patient_ids: [w.p2.id] }) },
  { name: 'scope request', method: 'POST', url: (w) => `/api/v1/studies/${w.study.id}/scope_requests`, token: (w) => w.manA.token, body: (w) => ({ scope_code_id: w.hr.id }) },
  { name: 'study data source', method: 'POST', url: (w) => `/api/v1/studies/${w.study.id}/data_sources`, token: (w) => w.manA.token, body: (w) => ({ data_source_id: w.device.id }) },
  { name: 'create organization', method: 'POST', url: () => '/api/v1/organizations', token: (w) => w.manA.token, body: (w) => ({ name: 'O', type: 'team', part_of: w.A.id }) },
  { name: 'change organization', method: 'PATCH', url: (w) => `/api/v1/organizations/${w.B.id}`, token: (w) => w.manA.token, body: (w) => ({ name: 'O', type: 'team', part_of: w.A.id }) },
  { name: 'add member', method: 'POST', url: (w) => `/api/v1/organizations/${w.A.id}/user`, token: (w) => w.manA.token, body: (w) => ({ user_id: w.other.id, role: 'viewer' }) },
  {
    name: 'create practitioner',
    method: 'POST',
    url: () => '/api/v1/practitioners',
    token: (w) => w.admin.token,
    body: (w) => ({ telecom_email: 'doc@example.test', name_family: 'F', name_given: 'G', organization_id: w.A.id, role: 'viewer', password: 'a long enough password' }),
  },
  { name: 'create data source', method: 'POST', url: () => '/api/v1/data_sources', token: (w) => w.admin.token, body: () => ({ name: 'D', type: 'patient_app' }) },
  { name: 'register FHIR Source', method: 'POST', url: () => '/api/v1/fhir_sources', token: (w) => w.p1.token, body: (w) => ({ data_source: w.device.id, label: 'L', fhir_base_url: 'https://ehr.example.org/fhir' }) },
  { name: 'portal identifier', method: 'POST', url: () => '/api/v1/portal/identifier', token: (w) => w.p1.token, body: () => ({ system: 'https://ehr.example.org', value: 'v' }) },
];
