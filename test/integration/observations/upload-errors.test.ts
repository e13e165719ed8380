import { beforeAll, describe, expect, it } from 'vitest';
import { samplePayload } from '../../../shared/omh/samples';
import { call } from '../../support/invoke';
import { makeDataSource, makePatient, makePractitioner, makeStudy } from '../../support/directory';
import { observation, observationWorld, recoded, statusesOf, storedRows, upload, type ObservationWorld } from '../../support/observations';

let world: ObservationWorld;
beforeAll(async () => {
  world = await observationWorld();
});

const post = (body: unknown, token = world.patient.token) => call('POST', '/FHIR/R5', { token, body });
const withData = (resource: Record<string, unknown>, data: string) => ({ ...resource, valueAttachment: { contentType: 'application/json', data } });
const base64 = (value: unknown) => Buffer.from(typeof value === 'string' ? value : JSON.stringify(value), 'utf8').toString('base64');
const payloadWith = (mutate: (p: any) => void, code = 'omh:heart-rate:2.0') => {
  const payload = samplePayload(code, { at: Date.UTC(2025, 0, 1) }) as any;
  mutate(payload);
  return base64(payload);
};

describe('a malformed request is a 400 OperationOutcome and stores nothing', () => {
  const cases: Array<[string, unknown]> = [
    ['an Observation instead of a Bundle', { resourceType: 'Observation' }],
    ['a JSON list', [1, 2]],
    ['a transaction Bundle', { resourceType: 'Bundle', type: 'transaction', entry: [] }],
    ['a collection Bundle', { resourceType: 'Bundle', type: 'collection', entry: [] }],
    ['entries that are not a list', { resourceType: 'Bundle', type: 'batch', entry: { resource: {} } }],
  ];
  it.each(cases)('%s', async (_, body) => {
    const res = await post(body);
    expect(res.status).toBe(400);
    expect(res.json.resourceType).toBe('OperationOutcome');
    expect(res.json.issue[0].severity).toBe('error');
  });

  it('more entries than the limit is a 413', async () => {
    const res = await post({ resourceType: 'Bundle', type: 'batch', entry: Array.from({ length: 1001 }, () => ({ resource: { resourceType: 'Observation' } })) });
    expect(res.status).toBe(413);
    expect(res.json.resourceType).toBe('OperationOutcome');
    expect(res.json.issue[0]).toMatchObject({ severity: 'error', code: 'too-costly', expression: ['Bundle.entry'] });
  });

  it('JSON that does not parse', async () => {
    const res = await call('POST', '/FHIR/R5', { token: world.patient.token, body: '{"resourceType": "Bundle",', headers: { 'content-type': 'application/fhir+json' } });
    expect(res.status).toBe(400);
    expect(res.json.resourceType).toBe('OperationOutcome');
  });

  it('no token (401) and a forged token (401)', async () => {
    expect((await call('POST', '/FHIR/R5', { body: { resourceType: 'Bundle', type: 'batch' } })).status).toBe(401);
    expect((await call('POST', '/FHIR/R5', { token: `${world.patient.token}x`, body: { resourceType: 'Bundle', type: 'batch' } })).status).toBe(401);
  });

  it('a batch without entries answers an empty batch-response', async () => {
    const res = await post({ resourceType: 'Bundle', type: 'batch' });
    expect(res.status).toBe(200);
    expect(res.json).toEqual({ resourceType: 'Bundle', type: 'batch-response' });
  });
});

describe('a bad entry fails alone, leaves nothing behind, and the valid entries are stored', () => {
  const good = () => observation(world, { at: Date.UTC(2025, 6, 1) });
  const cases: Array<[string, () => unknown, string, string?]> = [
    ['an entry without a resource', () => ({ request: { method: 'POST', url: 'Observation' } }), '400 Bad Request', 'Bundle.entry[1].resource'],
    ['a PUT entry', () => ({ resource: good(), request: { method: 'PUT', url: 'Observation/1' } }), '400 Bad Request', 'Bundle.entry[1].request.method'],
    ['a DELETE entry', () => ({ request: { method: 'DELETE', url: 'Observation/1' } }), '400 Bad Request', 'Bundle.entry[1].request.method'],
    ['a URL naming another type', () => ({ resource: good(), request: { method: 'POST', url: 'Patient' } }), '400 Bad Request', 'Bundle.entry[1].request.url'],
    ['an entry that is not an object', () => 'hello', '400 Bad Request'],
    ['invalid R5 (unknown status, unknown element)', () => ({ resource: { ...good(), status: 'done', colour: 'red' } }), '400 Bad Request', 'Observation.status'],
    ['non-Base64 data', () => ({ resource: withData(good(), 'not base64!!') }), '400 Bad Request', 'Observation.value.ofType(Attachment).data'],
    ['Base64 of text that is not JSON', () => ({ resource: withData(good(), base64('heart rate 60')) }), '400 Bad Request', 'Observation.valueAttachment.data'],
    ['no valueAttachment', () => ({ resource: { ...good(), valueAttachment: undefined } }), '400 Bad Request', 'Observation.valueAttachment'],
    ['a payload that fails its schema', () => ({ resource: withData(good(), payloadWith((p) => (p.body.heart_rate.unit = 'bpm'))) }), '422 Unprocessable Entity', 'Observation.valueAttachment.data.body.heart_rate.unit'],
    ['a header naming another schema', () => ({ resource: withData(good(), payloadWith((p) => (p.header.schema_id.name = 'step-count'))) }), '422 Unprocessable Entity', 'Observation.valueAttachment.data.header.schema_id'],
    ['a time frame with an impossible date', () => ({ resource: withData(good(), payloadWith((p) => (p.body.effective_time_frame = { date_time: '2025-02-30T10:00:00Z' }))) }), '422 Unprocessable Entity'],
    ['a date-time without an offset', () => ({ resource: withData(good(), payloadWith((p) => (p.body.effective_time_frame = { date_time: '2025-02-03T10:00:00' }))) }), '422 Unprocessable Entity'],
    ['a duration with an unknown unit', () => ({ resource: withData(good(), payloadWith((p) => (p.body.effective_time_frame = { time_interval: { start_date_time: '2025-02-03T10:00:00Z', duration: { value: 3, unit: 'fortnight' } } }))) }), '422 Unprocessable Entity'],
    ['an unknown code', () => ({ resource: recoded(good(), { system: 'https://w3id.org/openmhealth', code: 'omh:heart-rate:9.0' }) }), '400 Bad Request', 'Observation.code.coding[0]'],
    // The reading's standard coding may follow its omh: coding (a reading read back and posted again); nothing else may.
    ['a second coding that is not the standard one', () => ({ resource: recoded(good(), { system: 'https://w3id.org/openmhealth', code: 'omh:heart-rate:2.0' }, { system: 'http://loinc.org', code: '8480-6' }) }), '400 Bad Request', 'Observation.code.coding[1]'],
    ['three codings', () => ({ resource: recoded(good(), { system: 'https://w3id.org/openmhealth', code: 'omh:heart-rate:2.0' }, { system: 'http://loinc.org', code: '8867-4' }, { system: 'http://loinc.org', code: '8867-4' }) }), '400 Bad Request', 'Observation.code.coding'],
    ['an unknown patient', () => ({ resource: observation(world, { patientId: 999_999 }) }), '403 Forbidden'],
    ['a subject that is not a Patient', () => ({ resource: { ...good(), subject: { reference: 'Group/1' } } }), '400 Bad Request', 'Observation.subject.reference'],
    ['no subject', () => ({ resource: { ...good(), subject: undefined } }), '400 Bad Request', 'Observation.subject'],
    ['an unknown data source', () => ({ resource: observation(world, { deviceId: 999_999 }) }), '400 Bad Request', 'Observation.device.reference'],
    ['no device', () => ({ resource: { ...good(), device: undefined } }), '400 Bad Request', 'Observation.device'],
    ['an identifier without a value', () => ({ resource: { ...good(), identifier: [{ system: 'https://device.example' }] } }), '400 Bad Request'],
  ];

  it.each(cases)('%s', async (_, bad, status, expression) => {
    const before = (await storedRows(world.patient.id)).length;
    const first = good();
    const body = { resourceType: 'Bundle', type: 'batch', entry: [{ resource: first }, bad(), { resource: good() }] };
    const res = await post(body);
    expect(res.status).toBe(200);
    expect(statusesOf(res)).toEqual(['201 Created', status, '201 Created']);
    const failed = res.json.entry[1];
    expect(failed.resource).toBeUndefined();
    expect(failed.response.outcome.resourceType).toBe('OperationOutcome');
    expect(failed.response.outcome.issue[0].severity).toBe('error');
    if (expression) expect(failed.response.outcome.issue.flatMap((i: any) => i.expression ?? [])).toContain(expression);
    expect((await storedRows(world.patient.id)).length).toBe(before + 2);
  });
});

describe('who may write', () => {
  it("a patient may not write another patient's readings (403), even one they could name", async () => {
    const other = await makePatient({ organizations: [world.organization] });
    const res = await upload(world.patient.token, [observation(world, { patientId: other.id })]);
    expect(statusesOf(res)).toEqual(['403 Forbidden']);
    expect(await storedRows(other.id)).toHaveLength(0);
  });

  it('a practitioner outside the patient\'s organizations, or only a viewer, may not (403)', async () => {
    const stranger = await makePractitioner({ organizations: [] });
    const viewer = await makePractitioner({ organizations: [world.organization], role: 'viewer' });
    for (const token of [stranger.token, viewer.token]) {
      expect(statusesOf(await upload(token, [observation(world)]))).toEqual(['403 Forbidden']);
    }
  });

  it('a code the patient has not consented to is refused (403)', async () => {
    const patient = await makePatient({ organizations: [world.organization], login: true });
    await makeStudy({ organization: world.organization, codes: ['omh:heart-rate:2.0', 'omh:step-count:3.0'], patients: [patient], consent: false });
    const consenting = await makePatient({ organizations: [world.organization], login: true });
    await makeStudy({ organization: world.organization, codes: ['omh:heart-rate:2.0'], patients: [consenting], consent: true });
    expect(statusesOf(await upload(patient.token!, [observation({ patient: patient as never, device: world.device })]))).toEqual(['403 Forbidden']);
    const res = await upload(consenting.token!, [
      observation({ patient: consenting as never, device: world.device }, { code: 'omh:heart-rate:2.0' }),
      observation({ patient: consenting as never, device: world.device }, { code: 'omh:step-count:3.0' }),
    ]);
    expect(statusesOf(res)).toEqual(['201 Created', '403 Forbidden']);
  });

  it('a data source that is not a personal device is refused (400)', async () => {
    const monitor = await makeDataSource({ type: 'medical_device' });
    const app = await makeDataSource({ type: 'patient_app' });
    const res = await upload(world.patient.token, [observation(world, { deviceId: monitor.id }), observation(world, { deviceId: app.id })]);
    expect(statusesOf(res)).toEqual(['400 Bad Request', '400 Bad Request']);
    expect(res.json.entry[0].response.outcome.issue[0].diagnostics).toContain('personal_device');
  });
});
