/**
 * `/api/v1/studies` and its sub-resources: every operation, the member rule, and the refusals.
 *
 *   A: mA member, vA viewer; C: mC member; admin superuser (no organization).
 *   p1 (login), p2 in A; p4 in C. Study sA of A (p1; hr; watch).
 */
import { beforeAll, describe, expect, it } from 'vitest';
import type { Code, DataSource, Organization, Patient, Practitioner, Study } from '../../../shared/directory/model';
import { getStudy, listStudyCodes, listStudyDataSourceIds, listStudyPatientIds } from '../../../shared/directory/studies';
import { refused, resultIds, send } from '../../support/api';
import { code, makeDataSource, makeOrganization, makePatient, makePractitioner, makeStudy } from '../../support/directory';

type Who = { token: string };
let A: Organization, C: Organization;
let mA: Practitioner & Who, vA: Practitioner & Who, mC: Practitioner & Who, admin: Practitioner & Who;
let p1: Patient & Partial<Who>, p2: Patient, p4: Patient;
let sA: Study;
let hr: Code, steps: Code;
let watch: DataSource, app: DataSource;

beforeAll(async () => {
  A = await makeOrganization({ name: 'A' });
  C = await makeOrganization({ name: 'C' });
  mA = await makePractitioner({ organizations: [A] });
  vA = await makePractitioner({ organizations: [A], role: 'viewer' });
  mC = await makePractitioner({ organizations: [C] });
  admin = await makePractitioner({ superuser: true });
  p1 = await makePatient({ organizations: [A], login: true });
  p2 = await makePatient({ organizations: [A] });
  p4 = await makePatient({ organizations: [C] });
  hr = await code('omh:heart-rate:2.0');
  steps = await code('omh:step-count:3.0');
  watch = await makeDataSource({ name: 'watch' });
  app = await makeDataSource({ name: 'app', type: 'patient_app' });
  sA = await makeStudy({ organization: A, name: 'Study A', codes: [hr.code], patients: [p1], dataSources: [watch] });
});

describe('studies', () => {
  it('lists the studies the caller may see, by organization', async () => {
    const sC = await makeStudy({ organization: C, name: 'Study C' });
    const res = await send('GET', '/api/v1/studies', mA.token);
    expect(res.status).toBe(200);
    expect(resultIds(res.json)).toEqual([sA.id]);
    expect(res.json.results[0]).toEqual({ id: sA.id, name: 'Study A', description: 'A test study.', organization: { id: A.id, name: 'A', type: 'prov' }, iconUrl: null });
    expect(resultIds((await send('GET', '/api/v1/studies', p1.token)).json)).toEqual([sA.id]);
    expect(resultIds((await send('GET', `/api/v1/studies?organization_id=${C.id}`, mC.token)).json)).toEqual([sC.id]);
    expect((await send('GET', `/api/v1/studies?organization_id=${C.id}`, mA.token)).status).toBe(403);
  });

  it('creates, reads, changes and deletes a study as a member', async () => {
    const created = await send('POST', '/api/v1/studies', mA.token, { name: 'New', description: 'About BP < 140', organization: A.id, icon_url: 'https://cdn.example.org/i.png' });
    expect(created.status).toBe(201);
    expect(created.json).toEqual({ id: expect.any(Number), name: 'New', description: 'About BP < 140', organization: A.id, iconUrl: 'https://cdn.example.org/i.png' });
    const id = created.json.id as number;
    expect((await send('GET', `/api/v1/studies/${id}`, vA.token)).json).toMatchObject({ id, organization: { id: A.id } });
    expect((await send('PATCH', `/api/v1/studies/${id}`, mA.token, { description: 'Changed', icon_url: null })).json).toMatchObject({ description: 'Changed', iconUrl: null });
    expect((await send('PUT', `/api/v1/studies/${id}`, mA.token, { name: 'Renamed', organization: A.id })).json).toMatchObject({ name: 'Renamed' });
    expect(await getStudy(id)).toMatchObject({ name: 'Renamed', description: 'Changed' });
    expect((await send('DELETE', `/api/v1/studies/${id}`, mA.token)).status).toBe(204);
    expect(await getStudy(id)).toBeUndefined();
  });

  it('refuses viewers, patients, outsiders and superusers without membership, and bad bodies', async () => {
    const body = { name: 'X', organization: A.id };
    for (const who of [vA, p1, mC, admin]) expect((await refused('POST', '/api/v1/studies', who.token, body)).status).toBe(403);
    expect((await refused('PATCH', `/api/v1/studies/${sA.id}`, vA.token, { name: 'Y' })).status).toBe(403);
    expect((await refused('PATCH', `/api/v1/studies/${sA.id}`, mC.token, { name: 'Y' })).status).toBe(404);
    expect((await refused('PATCH', `/api/v1/studies/${sA.id}`, mA.token, { organization: C.id })).status).toBe(403);
    expect((await refused('DELETE', `/api/v1/studies/${sA.id}`, vA.token)).status).toBe(403);
    expect((await refused('DELETE', `/api/v1/studies/${sA.id}`, p1.token)).status).toBe(403);
    expect((await refused('GET', `/api/v1/studies/${sA.id}`, mC.token)).status).toBe(404);
    expect((await refused('POST', '/api/v1/studies', mA.token, { organization: A.id, owner: 1 })).json).toEqual({ name: ['This field is required.'], owner: ['Unknown field.'] });
    expect((await refused('POST', '/api/v1/studies', mA.token, { name: '<img src=x onerror=alert(1)>', organization: A.id })).status).toBe(400);
    expect((await refused('POST', '/api/v1/studies', mA.token, { name: 'X', organization: A.id, icon_url: 'javascript:alert(1)' })).json).toEqual({ iconUrl: ['Enter a valid URL.'] });
  });

  it('enrols and unenrols members of the study\'s organization; refuses others alike', async () => {
    const list = await send('GET', `/api/v1/studies/${sA.id}/patients`, mA.token);
    expect(list.json).toMatchObject({ count: 1, results: [{ id: p1.id }] });
    expect((await refused('GET', `/api/v1/studies/${sA.id}/patients`, p1.token)).status).toBe(403);

    const enrolled = await send('POST', `/api/v1/studies/${sA.id}/patients`, mA.token, { patient_ids: [p2.id] });
    expect(enrolled.status).toBe(201);
    expect(enrolled.json).toEqual({ studyPatients: [{ study: sA.id, patient: p2.id }] });
    expect(await listStudyPatientIds(sA.id)).toEqual([p1.id, p2.id]);

    // An outsider and a missing patient get the same answer: nothing about other organizations leaks.
    const outsider = await refused('POST', `/api/v1/studies/${sA.id}/patients`, mA.token, { patient_ids: [p4.id] });
    const missing = await refused('POST', `/api/v1/studies/${sA.id}/patients`, mA.token, { patient_ids: [999999] });
    expect(outsider.json.patientIds[0].replace(String(p4.id), '#')).toBe(missing.json.patientIds[0].replace('999999', '#'));
    expect((await refused('POST', `/api/v1/studies/${sA.id}/patients`, vA.token, { patient_ids: [p2.id] })).status).toBe(403);
    expect((await refused('POST', `/api/v1/studies/${sA.id}/patients`, mA.token, { patient_ids: [] })).status).toBe(400);

    expect((await send('DELETE', `/api/v1/studies/${sA.id}/patients`, mA.token, { patient_ids: [p2.id] })).status).toBe(204);
    expect((await send('DELETE', `/api/v1/studies/${sA.id}/patients`, mA.token, { patient_ids: [p2.id] })).status).toBe(204);
    expect(await listStudyPatientIds(sA.id)).toEqual([p1.id]);
  });

  it('manages requested codes ("scope requests")', async () => {
    expect((await send('GET', `/api/v1/studies/${sA.id}/scope_requests`, p1.token)).json).toEqual([
      { study: sA.id, scopeCode: { id: hr.id, codingSystem: hr.system, codingCode: hr.code, text: hr.display } },
    ]);
    const added = await send('POST', `/api/v1/studies/${sA.id}/scope_requests`, mA.token, { scope_code_id: steps.id });
    expect(added.status).toBe(201);
    expect(added.json).toMatchObject({ study: sA.id, scopeCode: { codingCode: steps.code } });
    expect((await listStudyCodes(sA.id)).map((c) => c.id)).toEqual([hr.id, steps.id].sort((a, b) => a - b));
    expect((await refused('POST', `/api/v1/studies/${sA.id}/scope_requests`, mA.token, { scope_code_id: 999999 })).status).toBe(400);
    expect((await refused('POST', `/api/v1/studies/${sA.id}/scope_requests`, vA.token, { scope_code_id: steps.id })).status).toBe(403);
    expect((await send('DELETE', `/api/v1/studies/${sA.id}/scope_requests?scope_code_id=${steps.id}`, mA.token)).status).toBe(204);
    expect((await listStudyCodes(sA.id)).map((c) => c.id)).toEqual([hr.id]);
  });

  it('manages data sources', async () => {
    expect((await send('GET', `/api/v1/studies/${sA.id}/data_sources`, mA.token)).json).toEqual([{ id: watch.id, name: 'watch', type: 'personal_device' }]);
    expect((await send('POST', `/api/v1/studies/${sA.id}/data_sources`, mA.token, { data_source_id: app.id })).status).toBe(201);
    expect(await listStudyDataSourceIds(sA.id)).toEqual([watch.id, app.id].sort((a, b) => a - b));
    expect((await refused('POST', `/api/v1/studies/${sA.id}/data_sources`, mA.token, { data_source_id: 999999 })).status).toBe(400);
    expect((await send('DELETE', `/api/v1/studies/${sA.id}/data_sources`, mA.token, { data_source_id: app.id })).status).toBe(204);
    expect(await listStudyDataSourceIds(sA.id)).toEqual([watch.id]);
    expect((await refused('DELETE', `/api/v1/studies/${sA.id}/data_sources`, mC.token, { data_source_id: watch.id })).status).toBe(404);
  });
});
