import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { call } from '../../support/invoke';
import { makePatient, makeStudy } from '../../support/directory';
import { idsOf, observation, observationWorld, statusesOf, storedRows, upload, type ObservationWorld } from '../../support/observations';

let world: ObservationWorld;
beforeAll(async () => {
  world = await observationWorld();
});

describe('the same reading (patient + header.uuid) is stored once', () => {
  it('a re-post answers 200 OK with the id it already has, and adds no row', async () => {
    const reading = observation(world, { uuid: randomUUID(), at: Date.UTC(2025, 1, 1) });
    const first = await upload(world.patient.token, [reading]);
    const before = (await storedRows(world.patient.id)).length;
    const again = await upload(world.patient.token, [reading]);
    expect(statusesOf(first)).toEqual(['201 Created']);
    expect(statusesOf(again)).toEqual(['200 OK']);
    expect(idsOf(again)).toEqual(idsOf(first));
    expect(again.json.entry[0].response.location).toBe(first.json.entry[0].response.location);
    expect(again.json.entry[0].response.outcome.issue[0]).toMatchObject({ severity: 'information', code: 'duplicate' });
    expect(again.json.entry[0].resource).toEqual(first.json.entry[0].resource);
    expect((await storedRows(world.patient.id)).length).toBe(before);
    const read = await call('GET', `/FHIR/R5/Observation/${idsOf(first)[0]}`, { token: world.patient.token });
    expect(read.status).toBe(200);
  });

  it('two identical entries in one batch: one 201, one 200 with the same id', async () => {
    const reading = observation(world, { uuid: randomUUID() });
    const res = await upload(world.patient.token, [reading, observation(world), reading]);
    expect(statusesOf(res)).toEqual(['201 Created', '201 Created', '200 OK']);
    expect(idsOf(res)[2]).toBe(idsOf(res)[0]);
  });

  it('the uuid is compared without regard to case', async () => {
    const uuid = randomUUID();
    const first = await upload(world.patient.token, [observation(world, { uuid })]);
    const again = await upload(world.patient.token, [observation(world, { uuid: uuid.toUpperCase() })]);
    expect(statusesOf(again)).toEqual(['200 OK']);
    expect(idsOf(again)).toEqual(idsOf(first));
  });

  it('concurrent requests posting the same readings create each row once', async () => {
    const patient = await makePatient({ organizations: [world.organization], login: true });
    await makeStudy({ organization: world.organization, codes: ['omh:heart-rate:2.0'], patients: [patient], consent: true });
    const who = { patient: patient as never, device: world.device };
    const readings = Array.from({ length: 30 }, (_, i) => observation(who, { uuid: randomUUID(), at: Date.UTC(2025, 2, 1, 0, i) }));
    const responses = await Promise.all(Array.from({ length: 6 }, () => upload(patient.token!, readings)));
    for (let i = 0; i < readings.length; i++) {
      const outcomes = responses.map((r) => r.json.entry[i]);
      expect(outcomes.filter((e) => e.response.status === '201 Created')).toHaveLength(1);
      expect(outcomes.filter((e) => e.response.status === '200 OK')).toHaveLength(responses.length - 1);
      expect(new Set(outcomes.map((e) => e.resource.id)).size).toBe(1);
    }
    expect(await storedRows(patient.id)).toHaveLength(readings.length);
  });

  it('is per patient: two patients may carry the same uuid', async () => {
    const patient = await makePatient({ organizations: [world.organization] });
    await makeStudy({ organization: world.organization, codes: ['omh:heart-rate:2.0'], patients: [patient], consent: true });
    const uuid = randomUUID();
    const res = await upload(world.practitioner.token, [observation(world, { uuid }), observation({ patient: patient as never, device: world.device }, { uuid })]);
    expect(statusesOf(res)).toEqual(['201 Created', '201 Created']);
  });
});

describe('an Observation identifier (system, value) belongs to one Observation', () => {
  const identifier = () => ({ system: 'https://device.example/readings', value: randomUUID() });

  it('reusing it in a later request is a 409 that leaves nothing behind', async () => {
    const id = identifier();
    const first = await upload(world.patient.token, [observation(world, { identifiers: [id] })]);
    const before = (await storedRows(world.patient.id)).length;
    const second = await upload(world.patient.token, [observation(world, { identifiers: [identifier(), id] })]);
    expect(statusesOf(first)).toEqual(['201 Created']);
    expect(statusesOf(second)).toEqual(['409 Conflict']);
    expect(second.json.entry[0].response.outcome.issue[0]).toMatchObject({ severity: 'error', code: 'duplicate', expression: ['Observation.identifier'] });
    expect((await storedRows(world.patient.id)).length).toBe(before);
  });

  it('reusing it within one batch is a 409 for the later entry', async () => {
    const id = identifier();
    const res = await upload(world.patient.token, [observation(world, { identifiers: [id] }), observation(world, { identifiers: [id] })]);
    expect(statusesOf(res)).toEqual(['201 Created', '409 Conflict']);
  });

  it('an identified reading re-posted after a timeout is the same reading (200), not a conflict', async () => {
    const reading = observation(world, { identifiers: [identifier()], uuid: randomUUID() });
    const first = await upload(world.patient.token, [reading]);
    const again = await upload(world.patient.token, [reading]);
    expect(statusesOf(again)).toEqual(['200 OK']);
    expect(idsOf(again)).toEqual(idsOf(first));
    expect(again.json.entry[0].resource.identifier).toEqual(reading.identifier);
  });

  it('holds across patients: another patient\'s reading may not take it', async () => {
    const id = identifier();
    const patient = await makePatient({ organizations: [world.organization] });
    await makeStudy({ organization: world.organization, codes: ['omh:heart-rate:2.0'], patients: [patient], consent: true });
    const res = await upload(world.practitioner.token, [observation(world, { identifiers: [id] }), observation({ patient: patient as never, device: world.device }, { identifiers: [id] })]);
    expect(statusesOf(res)).toEqual(['201 Created', '409 Conflict']);
    expect(res.json.entry[1].response.outcome.issue[0].diagnostics).not.toMatch(/Observation\/\d/);
  });
});
