import { describe, expect, it } from 'vitest';
import { createCode, ensureCodes, findCode, getCode, getCodes, listCodes } from '../../../shared/directory/code-table';
import { SEEDED_CODES } from '../../../shared/directory/codes';
import {
  addSupportedCode,
  createDataSource,
  deleteDataSource,
  getDataSource,
  getDataSources,
  listDataSources,
  listSupportedCodes,
  removeSupportedCode,
  updateDataSource,
} from '../../../shared/directory/data-sources';
import { createFhirSource, deleteFhirSource, getFhirSource, listFhirSourcesOfPatient, updateFhirSource } from '../../../shared/directory/fhir-sources';
import {
  createOAuthClient,
  deleteOAuthClient,
  getOAuthClient,
  getOAuthClientById,
  listOAuthClients,
  listOAuthClientsOfOwner,
  updateOAuthClient,
} from '../../../shared/directory/oauth-clients';
import { listStudyClientIds, listStudyDataSourceIds } from '../../../shared/directory/studies';
import { OMH_SYSTEM } from '../../../shared/fhir/constants';
import { code, codes, makeDataSource, makeOrganization, makePatient, makePractitioner, makeStudy } from '../../support/directory';
import { addStudyClient } from '../../../shared/directory/studies';

describe('code table', () => {
  it('holds each (system, code) once, in id order', async () => {
    const table = await codes();
    expect(table).toHaveLength(20);
    expect(await listCodes()).toEqual(table);
    expect(await ensureCodes(SEEDED_CODES)).toEqual(table.slice(0, 16));
    expect(await listCodes()).toHaveLength(20);
    const hr = await code('omh:heart-rate:2.0');
    expect(await findCode(OMH_SYSTEM, 'omh:heart-rate:2.0')).toEqual(hr);
    expect(await findCode('https://other.test', 'omh:heart-rate:2.0')).toBeUndefined();
    expect(await findCode('', '')).toBeUndefined();
    expect(await getCode(hr.id)).toEqual(hr);
    expect(await getCodes([hr.id, 987654])).toEqual([hr]);
    await expect(createCode({ system: OMH_SYSTEM, code: 'omh:heart-rate:2.0', display: 'again' })).rejects.toMatchObject({ status: 409 });
  });

  it('lets one of many concurrent inserts of a code win', async () => {
    const results = await Promise.allSettled(Array.from({ length: 8 }, () => createCode({ system: OMH_SYSTEM, code: 'omh:race:1.0', display: 'Race' })));
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    expect((await listCodes()).filter((c) => c.code === 'omh:race:1.0')).toHaveLength(1);
  });
});

describe('data sources', () => {
  it('creates, updates, lists, and keeps supported codes', async () => {
    const ds = await createDataSource({ name: 'Watch', type: 'personal_device' });
    expect(await getDataSource(ds.id)).toEqual(ds);
    const renamed = await updateDataSource(ds.id, { name: 'Watch 2', type: 'medical_device' });
    expect(await getDataSource(ds.id)).toEqual(renamed);
    expect((await listDataSources()).map((d) => d.id)).toContain(ds.id);
    expect((await getDataSources([ds.id, 987654])).map((d) => d.id)).toEqual([ds.id]);
    await expect(createDataSource({ name: 'x', type: 'toaster' as never })).rejects.toMatchObject({ status: 400 });
    await expect(updateDataSource(ds.id, { type: 'toaster' as never })).rejects.toMatchObject({ status: 400 });
    await expect(updateDataSource(987654, { name: 'x' })).rejects.toMatchObject({ status: 404 });

    const hr = await code('omh:heart-rate:2.0');
    await addSupportedCode(ds.id, hr.id);
    await addSupportedCode(ds.id, hr.id);
    expect(await listSupportedCodes(ds.id)).toEqual([{ id: hr.id, system: hr.system, code: hr.code }]);
    await expect(addSupportedCode(ds.id, 987654)).rejects.toMatchObject({ status: 400 });
    await expect(addSupportedCode(987654, hr.id)).rejects.toMatchObject({ status: 404 });
    await removeSupportedCode(ds.id, hr.id);
    expect(await listSupportedCodes(ds.id)).toEqual([]);
    await expect(removeSupportedCode(ds.id, hr.id)).rejects.toMatchObject({ status: 404 });
  });

  it('deleting a data source unlinks it from every study', async () => {
    const org = await makeOrganization();
    const ds = await makeDataSource({ codes: ['omh:heart-rate:2.0'] });
    const s1 = await makeStudy({ organization: org, dataSources: [ds] });
    const s2 = await makeStudy({ organization: org, dataSources: [ds] });
    await deleteDataSource(ds.id);
    expect(await getDataSource(ds.id)).toBeUndefined();
    expect(await listSupportedCodes(ds.id)).toEqual([]);
    expect(await listStudyDataSourceIds(s1.id)).toEqual([]);
    expect(await listStudyDataSourceIds(s2.id)).toEqual([]);
    await expect(deleteDataSource(ds.id)).rejects.toMatchObject({ status: 404 });
  });
});

describe('FHIR Sources', () => {
  it('registers sources for a patient and lists them newest first', async () => {
    const patient = await makePatient();
    const ds = await makeDataSource();
    const first = await createFhirSource({ patientId: patient.id, dataSourceId: ds.id, label: 'EHR', fhirBaseUrl: 'https://ehr.test/fhir' });
    const second = await createFhirSource({ patientId: patient.id, dataSourceId: ds.id });
    expect(second).toMatchObject({ label: '', fhirBaseUrl: '', patientId: patient.id, dataSourceId: ds.id });
    expect(await getFhirSource(first.id)).toEqual(first);
    expect((await listFhirSourcesOfPatient(patient.id)).map((s) => s.id)).toEqual([second.id, first.id]);
    const updated = await updateFhirSource(first.id, { label: 'Renamed' });
    expect(await getFhirSource(first.id)).toEqual(updated);
    await deleteFhirSource(second.id);
    expect(await getFhirSource(second.id)).toBeUndefined();
    await expect(deleteFhirSource(second.id)).rejects.toMatchObject({ status: 404 });
  });

  it('needs an existing data source and patient', async () => {
    const patient = await makePatient();
    const ds = await makeDataSource();
    await expect(createFhirSource({ patientId: patient.id, dataSourceId: 987654 })).rejects.toMatchObject({ status: 400, fields: { dataSource: [expect.any(String)] } });
    await expect(createFhirSource({ patientId: 987654, dataSourceId: ds.id })).rejects.toMatchObject({ status: 404 });
    const source = await createFhirSource({ patientId: patient.id, dataSourceId: ds.id });
    await expect(updateFhirSource(source.id, { dataSourceId: 987654 })).rejects.toMatchObject({ status: 400 });
    expect((await getFhirSource(source.id))?.dataSourceId).toBe(ds.id);
    expect(await listFhirSourcesOfPatient(patient.id)).toHaveLength(1);
  });
});

describe('OAuth clients', () => {
  it('creates public apps and API keys, found by client id and by number', async () => {
    const app = await createOAuthClient({ clientId: 'portal', name: 'Portal', type: 'public', redirectUris: ['http://localhost:8000/auth/callback'], grantTypes: ['authorization_code', 'refresh_token'], invitationUrl: 'https://app.test/?code=CODE' });
    expect(await getOAuthClient('portal')).toEqual(app);
    expect(await getOAuthClientById(app.id)).toEqual(app);
    await expect(createOAuthClient({ clientId: 'portal', name: 'Again', type: 'public' })).rejects.toMatchObject({ status: 409 });

    const doctor = await makePractitioner();
    const key = await createOAuthClient({ name: 'Notebook', type: 'confidential', secretHash: 'ab'.repeat(32), grantTypes: ['client_credentials'], ownerUserId: doctor.id });
    expect(key.clientId).toMatch(/^[A-Za-z0-9]{16}$/);
    expect((await listOAuthClientsOfOwner(doctor.id)).map((c) => c.clientId)).toEqual([key.clientId]);
    expect((await listOAuthClients()).map((c) => c.id)).toEqual(expect.arrayContaining([app.id, key.id]));

    const updated = await updateOAuthClient('portal', { redirectUris: ['https://site.test/auth/callback'] });
    expect((await getOAuthClient('portal'))?.redirectUris).toEqual(['https://site.test/auth/callback']);
    expect(updated.grantTypes).toEqual(['authorization_code', 'refresh_token']);
    expect(await getOAuthClient('Portal')).toBeUndefined();
    expect(await getOAuthClient('')).toBeUndefined();
  });

  it('deleting a client stops it at once and unlinks it from studies', async () => {
    const org = await makeOrganization();
    const app = await createOAuthClient({ name: 'Gone', type: 'public' });
    const study = await makeStudy({ organization: org });
    await addStudyClient(study.id, app.id);
    await deleteOAuthClient(app.clientId);
    expect(await getOAuthClient(app.clientId)).toBeUndefined();
    expect(await getOAuthClientById(app.id)).toBeUndefined();
    expect(await listStudyClientIds(study.id)).toEqual([]);
    await expect(deleteOAuthClient(app.clientId)).rejects.toMatchObject({ status: 404 });
    await expect(updateOAuthClient(app.clientId, { name: 'x' })).rejects.toMatchObject({ status: 404 });
  });
});
