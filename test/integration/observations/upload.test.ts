import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { validateResource, hasErrors } from '../../../shared/fhir/validation';
import { nativeSourceUri } from '../../../shared/fhir/constants';
import { formsFor } from '../../../shared/omh/samples';
import { call } from '../../support/invoke';
import { batchOf, idsOf, observation, observationWorld, recoded, statusesOf, storedRows, TABLE_CODES, upload, type ObservationWorld } from '../../support/observations';

let world: ObservationWorld;
beforeAll(async () => {
  world = await observationWorld();
});

const errorsOf = async (resource: unknown) => (await validateResource(resource)).filter((i) => i.severity === 'error');

describe('batch upload', () => {
  it('stores every known code in every effective-time form its schema allows, answering one 201 entry each, in order', async () => {
    const resources = TABLE_CODES.flatMap((code) => formsFor(code).map((form) => observation(world, { code, form, at: Date.UTC(2025, 4, 1, 10) })));
    const res = await upload(world.patient.token, resources);
    expect(res.status).toBe(200);
    expect(res.json).toMatchObject({ resourceType: 'Bundle', type: 'batch-response' });
    expect(statusesOf(res)).toEqual(resources.map(() => '201 Created'));
    const ids = idsOf(res);
    expect(new Set(ids).size).toBe(resources.length);
    expect(ids.every((id) => /^[1-9][0-9]*$/.test(id))).toBe(true);
    res.json.entry.forEach((e: any, i: number) => {
      expect(e.response.location).toBe(`http://localhost:8000/FHIR/R5/Observation/${ids[i]}`);
      expect(e.response.etag).toBe('W/"1"');
      expect(e.resource.code.coding[0].code).toBe((resources[i] as any).code.coding[0].code);
      expect(e.resource.valueAttachment.data).toBe((resources[i] as any).valueAttachment.data);
    });
    expect(hasErrors(await validateResource(res.json))).toBe(false);
    expect(await storedRows(world.patient.id)).toHaveLength(resources.length);
  });

  it('renders valid R5 with the device, the native source, the display and the status as uploaded', async () => {
    const res = await upload(world.patient.token, [observation(world, { status: 'preliminary', code: 'omh:blood-pressure:4.0', at: Date.UTC(2025, 0, 2, 8) })]);
    const resource = res.json.entry[0].resource;
    expect(await errorsOf(resource)).toEqual([]);
    expect(resource).toMatchObject({
      resourceType: 'Observation',
      status: 'preliminary',
      meta: { source: nativeSourceUri() },
      code: {
        coding: [
          { system: 'https://w3id.org/openmhealth', code: 'omh:blood-pressure:4.0', display: 'Blood pressure' },
          { system: 'http://loinc.org', code: '85354-9' },
        ],
      },
      subject: { reference: `Patient/${world.patient.id}` },
      device: { reference: `Device/${world.device.id}` },
      effectiveDateTime: '2025-01-02T08:00:00Z',
      valueAttachment: { contentType: 'application/json' },
    });
    // The payload's numbers as components, copied from it: systolic and diastolic in mm[Hg].
    const body = JSON.parse(Buffer.from(resource.valueAttachment.data, 'base64').toString('utf8')).body;
    expect(resource.component).toEqual([
      { code: { coding: [expect.objectContaining({ system: 'http://loinc.org', code: '8480-6' })] }, valueQuantity: { value: body.systolic_blood_pressure.value, unit: 'mmHg', system: 'http://unitsofmeasure.org', code: 'mm[Hg]' } },
      { code: { coding: [expect.objectContaining({ system: 'http://loinc.org', code: '8462-4' })] }, valueQuantity: { value: body.diastolic_blood_pressure.value, unit: 'mmHg', system: 'http://unitsofmeasure.org', code: 'mm[Hg]' } },
    ]);
    expect(resource.meta.lastUpdated).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    const read = await call('GET', `/FHIR/R5/Observation/${resource.id}`, { token: world.practitioner.token });
    expect(read.status).toBe(200);
    expect(read.json).toEqual(resource);
    expect(read.headers['etag']).toBe('W/"1"');
  });

  it('ignores an id, meta, effective[x] and components sent by the client, and says which elements it does not keep', async () => {
    const component = [{ code: { coding: [{ system: 'http://loinc.org', code: '8867-4' }] }, valueQuantity: { value: 999, unit: '/min' } }];
    const sent = { ...observation(world, { at: Date.UTC(2025, 0, 3) }), id: 'client-id', meta: { versionId: '7', lastUpdated: '2000-01-01T00:00:00Z' }, effectiveDateTime: '1999-01-01T00:00:00Z', component, note: [{ text: 'hello' }] };
    const res = await upload(world.patient.token, [sent]);
    const entry = res.json.entry[0];
    expect(entry.response.status).toBe('201 Created');
    expect(entry.resource.id).not.toBe('client-id');
    expect(entry.resource.meta.lastUpdated).not.toBe('2000-01-01T00:00:00Z');
    expect(entry.resource.effectivePeriod.start).toBe('2025-01-03T00:00:00Z');
    expect(entry.resource.component.map((c: { valueQuantity: { value: number } }) => c.valueQuantity.value)).not.toContain(999);
    expect(entry.resource.note).toBeUndefined();
    expect(entry.response.outcome.issue).toEqual([expect.objectContaining({ severity: 'warning', expression: ['Observation.note'] })]);
  });

  it('accepts the base with and without a trailing slash, and the lowercase alias', async () => {
    for (const path of ['/FHIR/R5', '/FHIR/R5/', '/fhir/r5', '/fhir/r5/']) {
      const res = await call('POST', path, { token: world.patient.token, body: batchOf([observation(world)]) });
      expect(res.status, path).toBe(200);
      expect(statusesOf(res), path).toEqual(['201 Created']);
      expect(res.json.entry[0].response.location).toContain(`${path.replace(/\/$/, '')}/Observation/`);
    }
  });

  it('lets a practitioner with the member role upload for a patient of their organization', async () => {
    const res = await upload(world.practitioner.token, [observation(world)]);
    expect(statusesOf(res)).toEqual(['201 Created']);
  });

  it('answers Prefer: return=minimal without resources, and return=OperationOutcome with an outcome', async () => {
    const minimal = await upload(world.patient.token, [observation(world)], { prefer: 'return=minimal' });
    expect(minimal.json.entry[0].resource).toBeUndefined();
    expect(minimal.json.entry[0].response.location).toMatch(/Observation\/\d+$/);
    const outcome = await upload(world.patient.token, [observation(world)], { prefer: 'return=OperationOutcome' });
    expect(outcome.json.entry[0].response.outcome.issue[0].severity).toBe('information');
  });

  it('accepts non-ASCII UTF-8 in the payload and returns the Base64 byte for byte', async () => {
    const payload = { header: { uuid: randomUUID(), schema_id: { namespace: 'omh', name: 'body-temperature', version: '4.0' }, source_creation_date_time: '2025-01-01T10:00:00+01:00' }, body: { body_temperature: { value: 37.2, unit: 'C' }, effective_time_frame: { date_time: '2025-01-01T10:00:00+01:00' }, note_zoë: '°C' } };
    const data = Buffer.from(JSON.stringify(payload), 'utf8').toString('base64');
    const resource = { ...observation(world, { code: 'omh:body-temperature:4.0' }), valueAttachment: { contentType: 'application/json', data } };
    const res = await upload(world.patient.token, [resource]);
    expect(statusesOf(res)).toEqual(['201 Created']);
    expect(res.json.entry[0].resource.valueAttachment.data).toBe(data);
    expect(res.json.entry[0].resource.effectiveDateTime).toBe('2025-01-01T09:00:00Z');
  });
});

describe('single create', () => {
  it('answers 201 with the resource, Location, ETag and Last-Modified', async () => {
    const res = await call('POST', '/FHIR/R5/Observation', { token: world.patient.token, body: observation(world, { code: 'omh:step-count:3.0' }) });
    expect(res.status).toBe(201);
    expect(res.json).toMatchObject({ resourceType: 'Observation', code: { coding: [{ code: 'omh:step-count:3.0' }, { system: 'http://loinc.org', code: '55423-8' }] } });
    expect(res.headers['location']).toBe(`http://localhost:8000/FHIR/R5/Observation/${res.json.id}`);
    expect(res.headers['etag']).toBe('W/"1"');
    expect(new Date(res.headers['last-modified']!).getTime()).toBeGreaterThan(0);
  });

  it('takes a reading read back and posted again (the standard coding beside the omh: one, components) as the same reading', async () => {
    const first = await call('POST', '/FHIR/R5/Observation', { token: world.patient.token, body: observation(world, { code: 'omh:heart-rate:2.0' }) });
    expect(first.status).toBe(201);
    const { id: _id, meta: _meta, ...again } = first.json;
    const second = await call('POST', '/FHIR/R5/Observation', { token: world.patient.token, body: again });
    expect(second.status).toBe(200);
    expect(second.json).toEqual(first.json);
  });

  it('answers a failed check with its status and an OperationOutcome', async () => {
    const res = await call('POST', '/FHIR/R5/Observation', { token: world.patient.token, body: recoded(observation(world), { system: 'https://w3id.org/openmhealth', code: 'omh:step-count:9.9' }) });
    expect(res.status).toBe(400);
    expect(res.json.resourceType).toBe('OperationOutcome');
  });

  it('needs a token', async () => {
    const res = await call('POST', '/FHIR/R5/Observation', { body: observation(world) });
    expect(res.status).toBe(401);
  });
});
