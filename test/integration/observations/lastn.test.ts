/**
 * `Observation/$lastn` (docs/api.md#the-latest-readings-observationlastn): each code's newest
 * readings of a patient, grouped by code, newest first, ties kept; filtered by code (the omh: or
 * the standard code), category and any search parameter; an empty searchset when nothing matches.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { directoryStore, useDirectoryStore } from '../../../shared/directory/store/current';
import type { DirectoryStore } from '../../../shared/directory/store/port';
import { observationStore, useObservationStore } from '../../../shared/observations/store/current';
import { call } from '../../support/invoke';
import { matchIds, observation, observationWorld, upload, type ObservationWorld } from '../../support/observations';

let world: ObservationWorld;
const T = Date.UTC(2026, 10, 1, 8);
const MINUTE = 60_000;
const ids = new Map<string, string>();

const hr = (value: number, minute: number) => observation(world, { code: 'omh:heart-rate:2.0', at: T + minute * MINUTE, form: 'date_time', members: { heart_rate: { value, unit: 'beats/min' } } });
const weight = (value: number, minute: number) => observation(world, { code: 'omh:body-weight:3.0', at: T + minute * MINUTE, form: 'date_time', members: { body_weight: { value, unit: 'kg' } } });
const steps = (minute: number) => observation(world, { code: 'omh:step-count:3.0', at: T + minute * MINUTE });

const READINGS: Array<[string, () => Record<string, unknown>]> = [
  ['hr 70 @0', () => hr(70, 0)],
  ['hr 125 @1', () => hr(125, 1)],
  ['hr 80 @2', () => hr(80, 2)],
  ['hr 90 @2', () => hr(90, 2)], // tied with the one above
  ['hr 100 @3', () => hr(100, 3)],
  ['w 71 @0', () => weight(71, 0)],
  ['w 72 @5', () => weight(72, 5)],
  ['steps @4', () => steps(4)],
];

function lastn(query: string, token = world.patient.token) {
  return call('GET', `/FHIR/R5/Observation/$lastn?${query}`, { token });
}

async function names(query: string): Promise<string[]> {
  const res = await lastn(query);
  expect(res.status, JSON.stringify(res.json)).toBe(200);
  expect(res.json).toMatchObject({ resourceType: 'Bundle', type: 'searchset' });
  const byId = new Map([...ids].map(([name, id]) => [id, name]));
  return matchIds(res).map((id) => byId.get(id) ?? id);
}

beforeAll(async () => {
  world = await observationWorld();
  const res = await upload(world.patient.token, READINGS.map(([, make]) => make()));
  res.json.entry.forEach((e: { response: { status: string }; resource: { id: string } }, i: number) => {
    expect(e.response.status).toBe('201 Created');
    ids.set(READINGS[i]![0], e.resource.id);
  });
});

describe('Observation/$lastn', () => {
  it('max=1 (the default): the newest reading of each code, grouped in code-table order', async () => {
    const found = await names(`patient=${world.patient.id}`);
    expect(found).toHaveLength(3);
    expect(found).toEqual(expect.arrayContaining(['hr 100 @3', 'w 72 @5', 'steps @4']));
  });

  it('max=2: newest first, and a reading tied with the last one kept is kept too', async () => {
    const found = await names(`patient=${world.patient.id}&code=omh:heart-rate:2.0&max=2`);
    expect(found[0]).toBe('hr 100 @3');
    expect(found.slice(1).sort()).toEqual(['hr 80 @2', 'hr 90 @2']);
    expect(await names(`subject=Patient/${world.patient.id}&code=omh:body-weight:3.0&max=5`)).toEqual(['w 72 @5', 'w 71 @0']);
  });

  it('by the standard code, by category, and with any search parameter (a value filter)', async () => {
    expect(await names(`patient=${world.patient.id}&code=http://loinc.org|8867-4`)).toEqual(['hr 100 @3']);
    const vitals = await names(`patient=${world.patient.id}&category=vital-signs`);
    expect(vitals.sort()).toEqual(['hr 100 @3', 'w 72 @5']);
    expect(await names(`patient=${world.patient.id}&category=http://terminology.hl7.org/CodeSystem/observation-category|activity`)).toEqual(['steps @4']);
    expect(await names(`patient=${world.patient.id}&code=omh:heart-rate:2.0&value-quantity=gt110`)).toEqual(['hr 125 @1']);
  });

  it('renders the readings as a read does, with their category', async () => {
    const res = await lastn(`patient=${world.patient.id}&code=omh:heart-rate:2.0`);
    const resource = res.json.entry[0].resource;
    const read = await call('GET', `/FHIR/R5/Observation/${resource.id}`, { token: world.patient.token });
    expect(resource).toEqual(read.json);
    expect(resource.category).toEqual([{ coding: [{ system: 'http://terminology.hl7.org/CodeSystem/observation-category', code: 'vital-signs', display: 'Vital Signs' }] }]);
    expect(res.json.link).toEqual([{ relation: 'self', url: expect.stringContaining('/FHIR/R5/Observation/$lastn?patient=') }]);
  });

  it('an empty searchset when nothing matches', async () => {
    expect(await names(`patient=${world.patient.id}&code=omh:blood-pressure:4.0`)).toEqual([]);
    expect(await names(`patient=${world.patient.id}&category=laboratory`)).toEqual([]);
  });

  it('takes a POST with a Parameters body', async () => {
    const body = { resourceType: 'Parameters', parameter: [{ name: 'patient', valueReference: { reference: `Patient/${world.patient.id}` } }, { name: 'code', valueString: 'omh:heart-rate:2.0' }, { name: 'max', valueInteger: 1 }] };
    const res = await call('POST', '/FHIR/R5/Observation/$lastn', { token: world.patient.token, body });
    expect(res.status).toBe(200);
    expect(matchIds(res)).toEqual([ids.get('hr 100 @3')]);
  });

  it('refuses what it cannot answer: no patient, a bad max, paging parameters', async () => {
    for (const query of ['code=omh:heart-rate:2.0', `patient=${world.patient.id}&max=0`, `patient=${world.patient.id}&max=101`, `patient=${world.patient.id}&max=two`, `patient=${world.patient.id}&max=1&max=2`, `patient=${world.patient.id}&_count=5`]) {
      const res = await lastn(query);
      expect(res.status, query).toBe(400);
      expect(res.json.resourceType).toBe('OperationOutcome');
    }
  });

  it("shows another patient's readings to no one outside their reach", async () => {
    const other = await observationWorld();
    expect(matchIds(await lastn(`patient=${world.patient.id}`, other.patient.token))).toEqual([]);
    expect((await lastn(`patient=${world.patient.id}`, other.practitioner.token)).status).toBe(403);
    expect((await lastn(`patient=${world.patient.id}`, '')).status).toBe(401);
  });

  it("reads a named patient's codes while the caller's account is confirmed and their reach resolved, and shows them only when the reach allows", async () => {
    const other = await observationWorld();
    const inner = { directory: directoryStore(), observations: observationStore() };
    // The directory's users, patients and organizations (what confirming the account and the reach
    // read) answer once the readings are being read, or after 2 s.
    let readsBegun!: () => void;
    const begun = new Promise<void>((resolve) => (readsBegun = resolve));
    let readWhileHeld = 0;
    let held = true;
    const gate = Promise.race([begun, new Promise((r) => setTimeout(r, 2000))]).then(() => void (held = false));
    const heldStore = Object.fromEntries(
      Object.entries(inner.directory).map(([group, records]) => [
        group,
        !['users', 'patients', 'organizations'].includes(group) ? records : Object.fromEntries(Object.entries(records as object).map(([name, fn]) => [name, async (...args: unknown[]) => (await gate, (fn as (...a: unknown[]) => unknown).apply(records, args))])),
      ]),
    ) as unknown as DirectoryStore;
    useDirectoryStore(heldStore);
    const firstReads: string[] = [];
    useObservationStore({
      ...inner.observations,
      readings: (query, limit, start, filter) => {
        readWhileHeld += held ? 1 : 0;
        if (!start) firstReads.push(`${query.patientId}/${query.codeId}`);
        readsBegun();
        return inner.observations.readings(query, limit, start, filter);
      },
    });
    try {
      const res = await lastn(`patient=${world.patient.id}`, world.practitioner.token);
      expect(res.status).toBe(200);
      expect(matchIds(res)).toHaveLength(3);
      expect(readWhileHeld).toBeGreaterThan(0);
      // Each code's newest end read once: the reads begun early are the ones used.
      expect(new Set(firstReads).size).toBe(firstReads.length);
      // Read early for a practitioner the reach leaves out: refused, and nothing of them shown.
      const refused = await lastn(`patient=${world.patient.id}`, other.practitioner.token);
      expect(refused.status).toBe(403);
      expect(JSON.stringify(refused.json)).not.toContain(ids.get('hr 100 @3'));
      expect(matchIds(await lastn(`patient=${world.patient.id}`, other.patient.token))).toEqual([]);
    } finally {
      useDirectoryStore(inner.directory);
      useObservationStore(inner.observations);
    }
  });

  it('finds a rare match in a few reads: each read past rows the filters pass over asks for twice as many', async () => {
    const many = await observationWorld();
    const readings = Array.from({ length: 600 }, (_, i) =>
      observation(many, { code: 'omh:heart-rate:2.0', at: T + i * MINUTE, form: 'date_time', members: { heart_rate: { value: i === 0 ? 150 : 70, unit: 'beats/min' } } }),
    );
    expect((await upload(many.patient.token, readings)).status).toBe(200);
    const inner = observationStore();
    let reads = 0;
    useObservationStore({ ...inner, readings: (query, limit, start, filter) => (reads++, inner.readings(query, limit, start, filter)) });
    try {
      const res = await lastn(`patient=${many.patient.id}&code=omh:heart-rate:2.0&value-quantity=gt120`, many.patient.token);
      expect(res.status).toBe(200);
      expect(res.json.entry.map((e: { resource: { component: Array<{ valueQuantity: { value: number } }> } }) => e.resource.component[0]!.valueQuantity.value)).toEqual([150]);
    } finally {
      useObservationStore(inner);
    }
    // 2, 4, 8, ... rows a read: the oldest of 600 readings within ten reads (one row a read would take 300).
    expect(reads).toBeLessThanOrEqual(10);
  });

  it('is listed in the CapabilityStatement', async () => {
    const res = await call('GET', '/FHIR/R5/metadata');
    const observationType = res.json.rest[0].resource.find((r: { type: string }) => r.type === 'Observation');
    expect(observationType.operation).toEqual(expect.arrayContaining([expect.objectContaining({ name: 'lastn', definition: 'http://hl7.org/fhir/OperationDefinition/Observation-lastn' })]));
  });
});
