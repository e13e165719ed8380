/**
 * FHIR sensor readings at the FHIR base (docs/payloads.md#derived-payloads): an Observation coded
 * LOINC 99504-3 or 105272-9 with a valueQuantity and no payload is stored as a native reading with
 * a payload the service derives (marked as such), is found by code and value like a device's, is
 * the same reading when sent again (by identifier, by source and id, by content), is refused with
 * a 409 when its identity comes back with another value, and is refused whole (nothing stored)
 * when its unit does not fit its code or its time is missing or not an instant.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { modelCodeSystem, OMH_SYSTEM, SOURCE_HEADER } from '../../../shared/fhir/constants';
import { decodePayload } from '../../../shared/omh/payload';
import type { FhirSource } from '../../../shared/directory/model';
import { makeDataSource, makeFhirSource } from '../../support/directory';
import { call } from '../../support/invoke';
import { idsOf, matchIds, observationWorld, search, statusesOf, storedRows, upload, type ObservationWorld } from '../../support/observations';
import { LOINC, sensorReading, UCUM, UPSTREAM_PATIENT, type ReadingOptions } from '../../support/cgm-ig';

let world: ObservationWorld;
let source: FhirSource;

beforeAll(async () => {
  world = await observationWorld();
  source = await makeFhirSource({ patient: world.patient, dataSource: world.device });
});

/** A sensor reading as a device posts it: its patient and data source by the service's ids. */
const fromDevice = (o: ReadingOptions) => ({ ...sensorReading(o), subject: { reference: `Patient/${world.patient.id}` }, device: { reference: `Device/${world.device.id}` } });

const create = (body: unknown, headers: Record<string, string> = {}) => call('POST', '/FHIR/R5/Observation', { token: world.patient.token, body, headers });

const payloadOf = (resource: any) => {
  const decoded = decodePayload(resource.valueAttachment);
  if (!decoded.ok) throw new Error(decoded.error.message);
  return decoded.payload as any;
};

describe('a sensor reading posted at the FHIR base', () => {
  it('is stored as a native blood glucose with a derived payload, coded and valued as it was sent', async () => {
    const res = await create(fromDevice({ value: 187, at: '2026-02-01T10:15:00+01:00', identifier: [{ system: 'urn:example:cgm', value: 'r-1' }] }));
    expect(res.status, JSON.stringify(res.json)).toBe(201);
    const reading = res.json;
    expect(reading.id).toMatch(/^\d+$/);
    expect(reading.code.coding.map((c: any) => `${c.system}|${c.code}`)).toEqual([`${OMH_SYSTEM}|omh:blood-glucose:4.0`, `${LOINC}|99504-3`]);
    expect(reading.meta.tag).toEqual([{ system: modelCodeSystem(), code: 'derived-payload', display: 'Payload derived by the service from a FHIR Observation' }]);
    expect(reading.effectiveDateTime).toBe('2026-02-01T09:15:00Z');
    expect(reading.component).toEqual([expect.objectContaining({ valueQuantity: { value: 187, unit: 'mg/dL', system: UCUM, code: 'mg/dL' } })]);
    expect(reading.identifier).toEqual([{ system: 'urn:example:cgm', value: 'r-1' }]);
    const payload = payloadOf(reading);
    expect(payload.body).toEqual({ blood_glucose: { value: 187, unit: 'mg/dL' }, effective_time_frame: { date_time: '2026-02-01T10:15:00+01:00' }, specimen_source: 'interstitial fluid' });
    expect(payload.header).toMatchObject({ schema_id: { namespace: 'omh', name: 'blood-glucose', version: '4.0' }, source_creation_date_time: '2026-02-01T10:15:00+01:00', modality: 'sensed', derived_from: { resource_type: 'Observation', code: `${LOINC}|99504-3` } });
    // Read back, and found as any glucose reading is: by the LOINC code, by value.
    const read = await call('GET', `/FHIR/R5/Observation/${reading.id}`, { token: world.patient.token });
    expect(read.json).toEqual(reading);
    expect(matchIds(await search(world.patient.token, `code=${LOINC}|99504-3&value-quantity=ge180`))).toContain(reading.id);
    expect(matchIds(await search(world.patient.token, `code=${LOINC}|99504-3&value-quantity=lt180`))).not.toContain(reading.id);
  });

  it('in mmol/L under 105272-9', async () => {
    const res = await create(fromDevice({ value: 6.7, unit: 'mmol/L', at: '2026-02-01T10:30:00Z' }));
    expect(res.status, JSON.stringify(res.json)).toBe(201);
    expect(res.json.code.coding[1]).toMatchObject({ system: LOINC, code: '105272-9' });
    expect(matchIds(await search(world.patient.token, `code=${LOINC}|105272-9&value-quantity=6.7`))).toContain(res.json.id);
  });

  it('sent again is the same reading, by identifier, and by content without one', async () => {
    const identified = fromDevice({ value: 140, at: '2026-02-02T08:00:00Z', identifier: [{ system: 'urn:example:cgm', value: 'again-1' }] });
    const plain = fromDevice({ value: 141, at: '2026-02-02T08:05:00Z' });
    const first = await upload(world.patient.token, [identified, plain]);
    expect(statusesOf(first)).toEqual(['201 Created', '201 Created']);
    const before = (await storedRows(world.patient.id)).length;
    const again = await upload(world.patient.token, [identified, plain]);
    expect(statusesOf(again)).toEqual(['200 OK', '200 OK']);
    expect(idsOf(again)).toEqual(idsOf(first));
    expect((await storedRows(world.patient.id)).length).toBe(before);
  });

  it('an identity sent again with another value is a 409, and the stored reading keeps its value', async () => {
    const first = await create(fromDevice({ value: 150, at: '2026-02-03T08:00:00Z', identifier: [{ system: 'urn:example:cgm', value: 'changed-1' }] }));
    expect(first.status).toBe(201);
    const changed = await create(fromDevice({ value: 151, at: '2026-02-03T08:00:00Z', identifier: [{ system: 'urn:example:cgm', value: 'changed-1' }] }));
    expect(changed.status).toBe(409);
    expect(changed.json.issue[0]).toMatchObject({ severity: 'error', code: 'conflict', diagnostics: expect.stringContaining(`Observation/${first.json.id}`) });
    const read = await call('GET', `/FHIR/R5/Observation/${first.json.id}`, { token: world.patient.token });
    expect(read.json.component[0].valueQuantity.value).toBe(150);
  });
});

describe('through a FHIR Source', () => {
  it("is the source's patient's reading from its data source; the upstream subject is said not kept, the upstream device kept in the payload", async () => {
    const sent = { ...sensorReading({ id: 'up-1', value: 99, at: '2026-02-04T07:00:00Z', device: 'Device/upstream-cgm' }), category: [{ text: 'sensor' }] };
    const res = await create(sent, { [SOURCE_HEADER]: String(source.id) });
    expect(res.status, JSON.stringify(res.json)).toBe(201);
    expect(res.json.subject).toEqual({ reference: `Patient/${world.patient.id}` });
    expect(res.json.device).toEqual({ reference: `Device/${world.device.id}` });
    expect(payloadOf(res.json).header.derived_from).toMatchObject({ id: 'up-1', device: 'Device/upstream-cgm', source: expect.stringMatching(new RegExp(`/fhir-source/${source.id}$`)) });
    const again = await create(sent, { [SOURCE_HEADER]: String(source.id) });
    expect([again.status, again.json.id]).toEqual([200, res.json.id]);
  });

  it('a batch says what it did not keep, entry by entry', async () => {
    const sent = { ...sensorReading({ id: 'up-2', value: 101, at: '2026-02-04T07:05:00Z' }), category: [{ text: 'sensor' }] };
    const res = await upload(world.patient.token, [sent], { [SOURCE_HEADER]: String(source.id) });
    const [entry] = res.json.entry;
    expect(entry.response.status).toBe('201 Created');
    expect(entry.response.outcome.issue).toEqual([
      expect.objectContaining({ severity: 'warning', expression: ['Observation.subject'], diagnostics: expect.stringContaining(UPSTREAM_PATIENT) }),
      expect.objectContaining({ severity: 'warning', expression: ['Observation.category'] }),
    ]);
  });

  it("is refused when the source's data source is not a personal device, and says where the device came from", async () => {
    const app = await makeFhirSource({ patient: world.patient, dataSource: await makeDataSource({ type: 'patient_app' }) });
    const res = await create(sensorReading({ id: 'up-3', value: 99, at: '2026-02-04T07:10:00Z' }), { [SOURCE_HEADER]: String(app.id) });
    expect(res.status).toBe(400);
    expect(res.json.issue.map((i: any) => i.severity)).toEqual(['error', 'information']);
    expect(res.json.issue[1].diagnostics).toContain(`FHIR Source ${app.id}`);
  });
});

describe('refused whole, nothing stored', () => {
  const cases: Array<[string, () => Record<string, unknown>, string, RegExp]> = [
    ['mmol/L under the mg/dL code', () => ({ ...fromDevice({ value: 6, at: '2026-02-05T08:00:00Z' }), valueQuantity: { value: 6, unit: 'mmol/L', system: UCUM, code: 'mmol/L' } }), 'Observation.valueQuantity.code', /takes values in mg\/dL/],
    ['mg/dL under the mmol/L code', () => ({ ...fromDevice({ value: 108, unit: 'mmol/L', at: '2026-02-05T08:00:00Z' }), valueQuantity: { value: 108, system: UCUM, code: 'mg/dL' } }), 'Observation.valueQuantity.code', /takes values in mmol\/L/],
    ['a unit without its UCUM code', () => ({ ...fromDevice({ value: 108, at: '2026-02-05T08:00:00Z' }), valueQuantity: { value: 108, unit: 'mg/dL' } }), 'Observation.valueQuantity.code', /no UCUM code/],
    ['no effective time', () => (fromDevice({ value: 108, at: null })), 'Observation.effectiveDateTime', /needs the instant/],
    ['a day, not an instant', () => (fromDevice({ value: 108, at: '2026-02-05' })), 'Observation.effectiveDateTime', /must be an instant/],
    ['a period', () => ({ ...fromDevice({ value: 108, at: null }), effectivePeriod: { start: '2026-02-05T08:00:00Z' } }), 'Observation.effectiveDateTime', /not effectivePeriod/],
    ['no value', () => ({ ...fromDevice({ value: 108, at: '2026-02-05T08:00:00Z' }), valueQuantity: undefined, dataAbsentReason: { text: 'sensor warm-up' } }), 'Observation.valueQuantity', /without a value/],
    ['a comparator', () => ({ ...fromDevice({ value: 40, at: '2026-02-05T08:00:00Z' }), valueQuantity: { value: 40, comparator: '<', system: UCUM, code: 'mg/dL' } }), 'Observation.valueQuantity.comparator', /exact value/],
  ];

  it.each(cases)('%s: 400 naming the element', async (_name, make, expression, message) => {
    const body = make();
    const before = (await storedRows(world.patient.id)).length;
    const res = await create(body);
    expect(res.status, JSON.stringify(res.json)).toBe(400);
    expect(res.json.issue[0]).toMatchObject({ severity: 'error', expression: [expression], diagnostics: expect.stringMatching(message) });
    const batch = await upload(world.patient.token, [body]);
    expect(statusesOf(batch)).toEqual(['400 Bad Request']);
    expect((await storedRows(world.patient.id)).length).toBe(before);
  });
});
