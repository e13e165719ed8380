/**
 * Hostile input in every field of every `/api/v1/` write: objects where text belongs (NoSQL-style
 * operators), lists, oversized text, NUL bytes, markup, negative and boolean ids, unknown fields,
 * malformed JSON and oversized bodies. Each gets a clear 4xx and leaves every stored row as it was.
 * Text that only looks like an injection (`Robert'); DROP TABLE ...`) is a legitimate name: it is
 * stored verbatim and touches nothing else.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import type { Code, DataSource, Organization, Patient, Practitioner, Study } from '../../../shared/directory/model';
import { getPatient } from '../../../shared/directory/patients';
import { OMH_SYSTEM } from '../../../shared/fhir/constants';
import { refused, send } from '../../support/api';
import { code, makeDataSource, makeOrganization, makePatient, makePractitioner, makeStudy } from '../../support/directory';
import { call } from '../../support/invoke';
import { directoryRows } from '../../support/store';

type Who = { token: string };
let A: Organization, B: Organization;
let manA: Practitioner & Who, admin: Practitioner & Who, other: Practitioner & Who;
let p1: Patient & Partial<Who>, p2: Patient;
let study: Study;
let device: DataSource;
let hr: Code;

beforeAll(async () => {
  A = await makeOrganization({ name: 'A' });
  B = await makeOrganization({ name: 'B', partOf: A });
  manA = await makePractitioner({ roles: [[A, 'manager'], [B, 'manager']] });
  admin = await makePractitioner({ superuser: true, organizations: [A] });
  other = await makePractitioner();
  hr = await code('omh:heart-rate:2.0');
  p1 = await makePatient({ organizations: [A], login: true });
  p2 = await makePatient({ organizations: [A] });
  device = await makeDataSource();
  study = await makeStudy({ organization: A, codes: [hr.code], patients: [p1] });
});

interface Endpoint {
  name: string;
  method: string;
  url: () => string;
  token: () => string;
  /** A body that would be accepted. */
  body: () => Record<string, unknown>;
}

const ENDPOINTS: Endpoint[] = [
  {
    name: 'create patient',
    method: 'POST',
    url: () => '/api/v1/patients',
    token: () => manA.token,
    body: () => ({ organization_id: A.id, telecom_email: 'ok@example.test', name_family: 'F', name_given: 'G', birth_date: '1980-01-01', telecom_phone: '555 0100', identifiers: [{ system: 'urn:x', value: 'v' }] }),
  },
  {
    name: 'change patient',
    method: 'PATCH',
    url: () => `/api/v1/patients/${p2.id}`,
    token: () => manA.token,
    body: () => ({ name_family: 'F', name_given: 'G', birth_date: '1980-01-01', telecom_phone: '555 0100', telecom_email: 'ok@example.test', identifiers: [] }),
  },
  {
    name: 'record consents',
    method: 'POST',
    url: () => `/api/v1/patients/${p1.id}/consents`,
    token: () => p1.token!,
    body: () => ({ study_scope_consents: [{ study_id: study.id, scope_consents: [{ coding_system: OMH_SYSTEM, coding_code: hr.code, consented: true }] }] }),
  },
  { name: 'create study', method: 'POST', url: () => '/api/v1/studies', token: () => manA.token, body: () => ({ name: 'S', description: 'D', organization: A.id, icon_url: 'https://x.example.org/i.png' }) },
  { name: 'change study', method: 'PATCH', url: () => `/api/v1/studies/${study.id}`, token: () => manA.token, body: () => ({ name: 'S', description: 'D', organization: A.id, icon_url: '' }) },
  { name: 'enrol', method: 'POST', url: () => `/api/v1/studies/${study.id}/patients`, token: () => manA.token, body: () => ({ patient_ids: [p2.id] }) },
  { name: 'scope request', method: 'POST', url: () => `/api/v1/studies/${study.id}/scope_requests`, token: () => manA.token, body: () => ({ scope_code_id: hr.id }) },
  { name: 'study data source', method: 'POST', url: () => `/api/v1/studies/${study.id}/data_sources`, token: () => manA.token, body: () => ({ data_source_id: device.id }) },
  { name: 'create organization', method: 'POST', url: () => '/api/v1/organizations', token: () => manA.token, body: () => ({ name: 'O', type: 'team', part_of: A.id }) },
  { name: 'change organization', method: 'PATCH', url: () => `/api/v1/organizations/${B.id}`, token: () => manA.token, body: () => ({ name: 'O', type: 'team', part_of: A.id }) },
  { name: 'add member', method: 'POST', url: () => `/api/v1/organizations/${A.id}/user`, token: () => manA.token, body: () => ({ user_id: other.id, role: 'viewer' }) },
  {
    name: 'create practitioner',
    method: 'POST',
    url: () => '/api/v1/practitioners',
    token: () => admin.token,
    body: () => ({ telecom_email: 'doc@example.test', name_family: 'F', name_given: 'G', organization_id: A.id, role: 'viewer', password: 'a long enough password' }),
  },
  { name: 'create data source', method: 'POST', url: () => '/api/v1/data_sources', token: () => admin.token, body: () => ({ name: 'D', type: 'patient_app' }) },
  { name: 'register FHIR Source', method: 'POST', url: () => '/api/v1/fhir_sources', token: () => p1.token!, body: () => ({ data_source: device.id, label: 'L', fhir_base_url: 'https://ehr.example.org/fhir' }) },
  { name: 'portal identifier', method: 'POST', url: () => '/api/v1/portal/identifier', token: () => p1.token!, body: () => ({ system: 'https://ehr.example.org', value: 'v' }) },
];

const MARKUP = '<script>alert(1)</script>';

/** Values no field accepts (markup aside, which a password may contain). */
const HOSTILE: Array<[string, unknown]> = [
  ['an operator object', { $gt: '' }],
  ['a list', ['a']],
  ['oversized text', 'x'.repeat(10_000)],
  ['a NUL byte', 'a\u0000b'],
  ['markup', MARKUP],
  ['a negative number', -1],
  ['a boolean', true],
];

describe.each(ENDPOINTS)('$name', (endpoint) => {
  it('refuses hostile values in every field, changing nothing', async () => {
    for (const field of Object.keys(endpoint.body())) {
      for (const [what, value] of HOSTILE) {
        if (what === 'markup' && field === 'password') continue;
        const res = await refused(endpoint.method, endpoint.url(), endpoint.token(), { ...endpoint.body(), [field]: value });
        expect(res.status, `${field} = ${what}`).toBe(400);
      }
    }
  });

  it('refuses an unknown field, changing nothing', async () => {
    const res = await refused(endpoint.method, endpoint.url(), endpoint.token(), { ...endpoint.body(), is_superuser_override: true });
    expect(res.status).toBe(400);
    expect(res.json.isSuperuserOverride ?? res.json.error).toBeDefined();
  });
});

describe('whole-body attacks', () => {
  it('malformed JSON, a non-object body and an oversized body are refused before anything runs', async () => {
    const before = await directoryRows();
    const malformed = await call('POST', '/api/v1/patients', { token: manA.token, body: '{"organization_id": 1,', headers: { 'content-type': 'application/json' } });
    expect(malformed.status).toBe(400);
    expect(malformed.json.detail).toContain('not valid JSON');
    const list = await call('POST', '/api/v1/studies', { token: manA.token, body: '[1,2,3]', headers: { 'content-type': 'application/json' } });
    expect(list.status).toBe(400);
    expect(list.json).toEqual({ nonFieldErrors: ['Invalid data. Expected a dictionary, but got list.'] });
    const huge = await call('POST', '/api/v1/studies', { token: manA.token, body: JSON.stringify({ name: 'x'.repeat(6 * 1024 * 1024) }), headers: { 'content-type': 'application/json' } });
    expect(huge.status).toBe(413);
    const xml = await call('POST', '/api/v1/studies', { token: manA.token, body: '<study/>', headers: { 'content-type': 'application/xml' } });
    expect(xml.status).toBe(415);
    expect(await directoryRows()).toEqual(before);
  });

  it('keeps injection-looking names verbatim, touching no other row', async () => {
    const others = await getPatient(p1.id);
    const name = "Robert'); DROP TABLE patients;--";
    const res = await send('POST', '/api/v1/patients', manA.token, { organization_id: A.id, telecom_email: 'bobby@example.test', name_family: name, name_given: '{"$ne": null}' });
    expect(res.status).toBe(201);
    expect(await getPatient(res.json.id)).toMatchObject({ nameFamily: name, nameGiven: '{"$ne": null}' });
    expect(await getPatient(p1.id)).toEqual(others);
  });

  it('ids in paths and query strings that are not ids are 404 / 400, never a wider read', async () => {
    expect((await send('GET', "/api/v1/patients/1'%20OR%20'1'='1", manA.token)).status).toBe(404);
    expect((await send('GET', '/api/v1/studies/-1', manA.token)).status).toBe(404);
    expect((await send('GET', '/api/v1/patients?study_id=%7B%22%24ne%22%3A1%7D', manA.token)).status).toBe(400);
    expect((await send('GET', `/api/v1/patients?patient_identifier_value=${'x'.repeat(1000)}`, manA.token)).status).toBe(400);
  });
});
