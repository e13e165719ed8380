/**
 * `/api/v1/fhir_sources` (docs/api.md#management-api-apiv1): patient-only registration, the validation body, every
 * read and write limited to the caller's own sources, and deletion reaching the data stores.
 */
import { beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { getFhirSource } from '../../../shared/directory/fhir-sources';
import type { DataSource, FhirSource, Organization, Patient, Practitioner } from '../../../shared/directory/model';
import { refused, resultIds, send } from '../../support/api';
import { makeDataSource, makeFhirSource, makeOrganization, makePatient, makePractitioner } from '../../support/directory';
import { purgeCalls } from '../../support/purge-recorder';

vi.mock('../../../shared/management/purge', async () => (await import('../../support/purge-recorder')).purgeRecorderModule());

type Who = { token: string };
let A: Organization;
let doctor: Practitioner & Who;
let alice: Patient & Partial<Who>, bob: Patient & Partial<Who>;
let device: DataSource;
let bobs: FhirSource;

beforeAll(async () => {
  A = await makeOrganization();
  doctor = await makePractitioner({ organizations: [A] });
  alice = await makePatient({ organizations: [A], login: true });
  bob = await makePatient({ organizations: [A], login: true });
  device = await makeDataSource();
  bobs = await makeFhirSource({ patient: bob, dataSource: device, label: 'Bob EHR' });
});

beforeEach(() => {
  purgeCalls.length = 0;
});

describe('registering', () => {
  it('a patient registers a source (201, its documented shape), camelCase accepted', async () => {
    const res = await send('POST', '/api/v1/fhir_sources', alice.token, { data_source: device.id, label: 'My hospital', fhir_base_url: 'https://ehr.example.org/fhir/r4' });
    expect(res.status).toBe(201);
    expect(res.json).toEqual({
      id: expect.any(Number),
      patient: alice.id,
      dataSource: device.id,
      label: 'My hospital',
      fhirBaseUrl: 'https://ehr.example.org/fhir/r4',
      lastUpdated: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/),
    });
    expect(await getFhirSource(res.json.id)).toMatchObject({ patientId: alice.id });
    const camel = await send('POST', '/api/v1/fhir_sources', alice.token, { dataSource: device.id });
    expect(camel.status).toBe(201);
    expect(camel.json).toMatchObject({ label: '', fhirBaseUrl: '' });
  });

  it('without data_source: 400 {"dataSource": ["This field is required."]}', async () => {
    const res = await refused('POST', '/api/v1/fhir_sources', alice.token, { label: 'x', fhir_base_url: 'https://ehr.example.org' });
    expect(res.status).toBe(400);
    expect(res.json).toEqual({ dataSource: ['This field is required.'] });
  });

  it('refuses an unknown data source, practitioners, bad URLs and unknown fields, storing nothing', async () => {
    expect((await refused('POST', '/api/v1/fhir_sources', alice.token, { data_source: 999999 })).json).toEqual({ dataSource: ['Invalid pk "999999" - object does not exist.'] });
    expect((await refused('POST', '/api/v1/fhir_sources', doctor.token, { data_source: device.id })).status).toBe(403);
    expect((await refused('POST', '/api/v1/fhir_sources', alice.token, { data_source: device.id, fhir_base_url: 'javascript:alert(1)' })).json).toEqual({ fhirBaseUrl: ['Enter a valid URL.'] });
    expect((await refused('POST', '/api/v1/fhir_sources', alice.token, { data_source: device.id, patient: bob.id })).json).toEqual({ patient: ['Unknown field.'] });
    expect((await refused('POST', '/api/v1/fhir_sources', alice.token, { data_source: 'abc' })).json).toEqual({ dataSource: ['A valid integer is required.'] });
  });
});

describe('own sources only', () => {
  it('lists the caller\'s sources, newest first; none for a practitioner', async () => {
    const fresh = await makePatient({ organizations: [A], login: true });
    const first = await makeFhirSource({ patient: fresh, dataSource: device });
    const second = await makeFhirSource({ patient: fresh, dataSource: device });
    await new Promise((r) => setTimeout(r, 200)); // the patient's sources are listed from an index
    const res = await send('GET', '/api/v1/fhir_sources', fresh.token);
    expect(res.json).toMatchObject({ count: 2 });
    expect(resultIds(res.json)).toEqual([second.id, first.id]);
    expect((await send('GET', '/api/v1/fhir_sources', doctor.token)).json).toMatchObject({ count: 0, results: [] });
  });

  it('another patient\'s source is a 404 for read, change and delete, and nothing changes', async () => {
    expect((await send('GET', `/api/v1/fhir_sources/${bobs.id}`, bob.token)).json).toMatchObject({ id: bobs.id, label: 'Bob EHR' });
    for (const [method, body] of [['GET'], ['PATCH', { label: 'mine now' }], ['PUT', { data_source: device.id }], ['DELETE']] as const) {
      expect((await refused(method, `/api/v1/fhir_sources/${bobs.id}`, alice.token, body)).status).toBe(404);
      expect((await refused(method, `/api/v1/fhir_sources/${bobs.id}`, doctor.token, body)).status).toBe(404);
    }
    expect(resultIds((await send('GET', '/api/v1/fhir_sources', alice.token)).json)).not.toContain(bobs.id);
    expect(purgeCalls).toEqual([]);
  });

  it('the owner changes a source', async () => {
    const source = await makeFhirSource({ patient: alice, dataSource: device });
    const res = await send('PATCH', `/api/v1/fhir_sources/${source.id}`, alice.token, { label: 'Renamed', fhir_base_url: 'https://new.example.org/fhir' });
    expect(res.json).toMatchObject({ id: source.id, label: 'Renamed', fhirBaseUrl: 'https://new.example.org/fhir' });
    expect(await getFhirSource(source.id)).toMatchObject({ label: 'Renamed' });
  });

  it('the owner deletes a source with its data: the store hook runs before and after the record goes', async () => {
    const source = await makeFhirSource({ patient: alice, dataSource: device });
    expect((await send('DELETE', `/api/v1/fhir_sources/${source.id}`, alice.token)).status).toBe(204);
    expect(await getFhirSource(source.id)).toBeUndefined();
    expect(purgeCalls).toEqual([
      { kind: 'fhirSource', id: source.id, recordExisted: true },
      { kind: 'fhirSource', id: source.id, recordExisted: false },
    ]);
    expect((await send('DELETE', `/api/v1/fhir_sources/${source.id}`, alice.token)).status).toBe(404);
  });
});
