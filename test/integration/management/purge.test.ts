/**
 * Deleting a FHIR Source or a patient through /api/v1/ takes their stored data with it, through
 * the real stores (no recorder): nothing of theirs can be read or found in the stores afterwards.
 */
import { describe, expect, it } from 'vitest';
import { auxiliaryItems } from '../../support/auxiliary';
import { makeDataSource, makeFhirSource, makeOrganization, makePatient, makePractitioner } from '../../support/directory';
import { call } from '../../support/invoke';

const condition = (patientId: number, sourceId: number) => ({
  resourceType: 'Condition',
  id: `upstream-${patientId}-${sourceId}`,
  subject: { reference: `Patient/${patientId}` },
  code: { text: 'Seasonal allergy' },
  clinicalStatus: { coding: [{ system: 'http://terminology.hl7.org/CodeSystem/condition-clinical', code: 'active' }] },
});

/** The auxiliary items (or twin records) that name the patient as their owner. */
async function auxiliaryItemsOfPatient(patientId: number): Promise<number> {
  return (await auxiliaryItems()).filter((i) => i.patientId === patientId).length;
}

async function world() {
  const org = await makeOrganization();
  const practitioner = await makePractitioner({ organizations: [org], role: 'manager' });
  const patient = await makePatient({ organizations: [org], login: true });
  const device = await makeDataSource({ type: 'patient_app' });
  const source = await makeFhirSource({ patient, dataSource: device });
  const created = await call('POST', '/FHIR/R5/Condition', {
    token: patient.token!,
    headers: { 'x-svc-fhir-source-id': String(source.id) },
    body: condition(patient.id, source.id),
  });
  expect(created.status).toBe(201);
  return { org, practitioner, patient, source, id: created.json.id as string };
}

describe('purging stored data with its owner', () => {
  it('deleting a FHIR Source deletes the auxiliary rows written through it', async () => {
    const { patient, source, id } = await world();
    expect(await auxiliaryItemsOfPatient(patient.id)).toBeGreaterThan(0);
    const deleted = await call('DELETE', `/api/v1/fhir_sources/${source.id}`, { token: patient.token! });
    expect(deleted.status).toBe(204);
    expect((await call('GET', `/FHIR/R5/Condition/${id}`, { token: patient.token! })).status).toBe(404);
    const search = await call('GET', '/FHIR/R5/Condition?_source:below=https://', { token: patient.token! });
    expect(search.json.entry ?? []).toEqual([]);
    expect(await auxiliaryItemsOfPatient(patient.id)).toBe(0);
  });

  it('deleting a patient deletes their auxiliary rows', async () => {
    const { org, practitioner, patient, id } = await world();
    const deleted = await call('DELETE', `/api/v1/patients/${patient.id}?organization_id=${org.id}`, { token: practitioner.token });
    expect(deleted.status).toBe(204);
    expect(await auxiliaryItemsOfPatient(patient.id)).toBe(0);
    const read = await call('GET', `/FHIR/R5/Condition/${id}`, { token: practitioner.token });
    expect(read.status).toBe(404);
  });
});
