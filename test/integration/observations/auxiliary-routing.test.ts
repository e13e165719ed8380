/**
 * The hand-over between the two stores on the Observation endpoints: mobile-health Observations
 * are native; any other Observation (and any other type in a batch) goes to the auxiliary store
 * through a FHIR Source; `_source` searches, UUID reads and writes are the auxiliary store's.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { sourceUri } from '../../../shared/fhir/constants';
import type { FhirSource } from '../../../shared/directory/model';
import { call } from '../../support/invoke';
import { makeFhirSource } from '../../support/directory';
import { idsOf, labObservation, matchIds, observation, observationWorld, search, statusesOf, upload, type ObservationWorld } from '../../support/observations';

let world: ObservationWorld;
let source: FhirSource;
beforeAll(async () => {
  world = await observationWorld({ codes: ['omh:heart-rate:2.0'] });
  source = await makeFhirSource({ patient: world.patient, dataSource: world.device });
});

const lab = () => labObservation(world);
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

describe('Observations that are not mobile-health coded', () => {
  it('go to the auxiliary store: a FHIR Source is needed, and the row gets a UUID', async () => {
    const without = await upload(world.patient.token, [lab(), observation(world)]);
    expect(statusesOf(without)).toEqual(['400 Bad Request', '201 Created']);
    expect(JSON.stringify(without.json.entry[0].response.outcome)).toMatch(/FHIR Source/);

    const res = await upload(world.patient.token, [lab(), observation(world)], { 'x-svc-fhir-source-id': String(source.id) });
    expect(statusesOf(res)).toEqual(['201 Created', '201 Created']);
    const [auxiliaryId, nativeId] = idsOf(res);
    expect(auxiliaryId).toMatch(UUID);
    expect(nativeId).toMatch(/^\d+$/);

    const single = await call('POST', '/FHIR/R5/Observation', { token: world.patient.token, body: lab(), headers: { 'x-svc-fhir-source-id': String(source.id) } });
    expect(single.status).toBe(201);
    expect(single.json.id).toMatch(UUID);

    // Reads by UUID, `_source` searches: the auxiliary store's; a search without `_source` is native.
    expect((await call('GET', `/FHIR/R5/Observation/${auxiliaryId}`, { token: world.patient.token })).status).toBe(200);
    const bySource = await search(world.patient.token, `_source=${encodeURIComponent(sourceUri(source.id))}`);
    expect(bySource.status).toBe(200);
    expect(matchIds(bySource).sort()).toEqual([auxiliaryId, single.json.id].sort());
    expect(matchIds(await search(world.patient.token, '_count=100'))).not.toContain(auxiliaryId);
  });

  it('other resource types in a batch go there too', async () => {
    const clinicalStatus = { coding: [{ system: 'http://terminology.hl7.org/CodeSystem/condition-clinical', code: 'active' }] };
    const condition = { resourceType: 'Condition', clinicalStatus, subject: { reference: `Patient/${world.patient.id}` }, code: { text: 'Asthma' } };
    const res = await call('POST', '/FHIR/R5', {
      token: world.patient.token,
      headers: { 'x-svc-fhir-source-id': String(source.id) },
      body: { resourceType: 'Bundle', type: 'batch', entry: [{ resource: condition, request: { method: 'POST', url: 'Condition' } }] },
    });
    expect(statusesOf(res)).toEqual(['201 Created']);
    expect(res.json.entry[0].resource.id).toMatch(UUID);
  });
});

describe('writes and versions of a stored reading', () => {
  it('a reading is never changed (405), and has only version 1', async () => {
    const id = idsOf(await upload(world.patient.token, [observation(world)]))[0]!;
    for (const method of ['PUT', 'PATCH', 'DELETE']) {
      const res = await call(method, `/FHIR/R5/Observation/${id}`, { token: world.patient.token, ...(method === 'DELETE' ? {} : { body: observation(world) }) });
      expect(res.status, method).toBe(405);
      expect(res.json.resourceType).toBe('OperationOutcome');
    }
    expect((await call('GET', `/FHIR/R5/Observation/${id}/_history/1`, { token: world.patient.token })).json.id).toBe(id);
    expect((await call('GET', `/FHIR/R5/Observation/${id}/_history/2`, { token: world.patient.token })).status).toBe(404);
  });
});
