/**
 * The export's `_typeFilter` takes the value parameters as a search does (docs/api.md#search-by-value):
 * only the readings whose values match are written, and each exported reading carries its values
 * as components, exactly as a read shows it.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { call } from '../../support/invoke';
import { downloadAll, finished, kickOff, runExportWork } from '../../support/export';
import { observation, observationWorld, upload, type ObservationWorld } from '../../support/observations';

let world: ObservationWorld;

beforeAll(async () => {
  world = await observationWorld();
  const readings = [72, 125, 140].map((bpm, i) =>
    observation(world, { code: 'omh:heart-rate:2.0', at: Date.UTC(2026, 9, 1, i), form: 'date_time', members: { heart_rate: { value: bpm, unit: 'beats/min' } } }),
  );
  const res = await upload(world.patient.token, readings);
  expect(res.json.entry.map((e: { response: { status: string } }) => e.response.status)).toEqual(['201 Created', '201 Created', '201 Created']);
});

describe('an export filtered by value', () => {
  it('writes only the readings whose values match, each as a read shows it', async () => {
    const filter = encodeURIComponent('Observation?code=http://loinc.org|8867-4&value-quantity=gt120');
    const kicked = await kickOff(world.practitioner.token, `/FHIR/R5/Patient/$export?_type=Observation&_typeFilter=${filter}`);
    expect(kicked.status, kicked.text).toBe(202);
    await runExportWork();
    const manifest = await finished(world.practitioner.token, kicked);
    const lines = await downloadAll(world.practitioner.token, manifest, 'Observation');
    expect(lines.map((o) => o.component[0].valueQuantity.value).sort()).toEqual([125, 140]);
    for (const line of lines) {
      const read = await call('GET', `/FHIR/R5/Observation/${line.id}`, { token: world.practitioner.token });
      expect(line).toEqual(read.json);
    }
  });

  it('refuses a malformed value filter before a job exists', async () => {
    const kicked = await kickOff(world.practitioner.token, `/FHIR/R5/Patient/$export?_type=Observation&_typeFilter=${encodeURIComponent('Observation?value-quantity=gtx')}`);
    expect(kicked.status).toBe(400);
  });
});
