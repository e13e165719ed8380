import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { call } from '../../support/invoke';
import { matchIds, observation, observationWorld, statusesOf, upload, type ObservationWorld } from '../../support/observations';

let world: ObservationWorld;
beforeAll(async () => {
  world = await observationWorld();
});

/** A heart-rate reading with exactly this time frame; without one, an RR interval (whose schema allows that). */
function reading(frame: unknown) {
  const [name, version, body] = frame === undefined ? ['rr-interval', '1.0', { rr_interval: { value: 845, unit: 'ms' } }] : ['heart-rate', '2.0', { heart_rate: { value: 61, unit: 'beats/min' }, effective_time_frame: frame }];
  const payload = { header: { uuid: randomUUID(), schema_id: { namespace: 'omh', name, version }, source_creation_date_time: '2025-01-01T00:00:00Z' }, body };
  const data = Buffer.from(JSON.stringify(payload)).toString('base64');
  return { ...observation(world, { code: `omh:${name}:${version}` }), valueAttachment: { contentType: 'application/json', data } };
}

const interval = (members: Record<string, unknown>) => ({ time_interval: members });

const CASES: Array<[string, unknown, Record<string, unknown>]> = [
  ['date_time with a positive offset', { date_time: '2025-03-01T08:30:00+05:30' }, { effectiveDateTime: '2025-03-01T03:00:00Z' }],
  ['date_time with a negative offset and fraction', { date_time: '2025-03-01T20:00:00.250-08:00' }, { effectiveDateTime: '2025-03-02T04:00:00.250Z' }],
  ['start + end', interval({ start_date_time: '2025-03-01T23:00:00+01:00', end_date_time: '2025-03-02T01:00:00+01:00' }), { effectivePeriod: { start: '2025-03-01T22:00:00Z', end: '2025-03-02T00:00:00Z' } }],
  ['start + duration', interval({ start_date_time: '2025-03-01T10:00:00Z', duration: { value: 90, unit: 'min' } }), { effectivePeriod: { start: '2025-03-01T10:00:00Z', end: '2025-03-01T11:30:00Z' } }],
  ['end + fractional duration', interval({ end_date_time: '2025-03-01T10:00:00Z', duration: { value: 1.5, unit: 'h' } }), { effectivePeriod: { start: '2025-03-01T08:30:00Z', end: '2025-03-01T10:00:00Z' } }],
  ['start + 1 Mo from January 31 (clamped to February 28)', interval({ start_date_time: '2025-01-31T12:00:00Z', duration: { value: 1, unit: 'Mo' } }), { effectivePeriod: { start: '2025-01-31T12:00:00Z', end: '2025-02-28T12:00:00Z' } }],
  ['start + 1 Mo in a leap year (February 29)', interval({ start_date_time: '2024-01-31T12:00:00Z', duration: { value: 1, unit: 'Mo' } }), { effectivePeriod: { start: '2024-01-31T12:00:00Z', end: '2024-02-29T12:00:00Z' } }],
  ['end - 1 yr from February 29', interval({ end_date_time: '2024-02-29T00:00:00Z', duration: { value: 1, unit: 'yr' } }), { effectivePeriod: { start: '2023-02-28T00:00:00Z', end: '2024-02-29T00:00:00Z' } }],
  ['2.7 Mo counts whole months', interval({ start_date_time: '2025-01-15T00:00:00Z', duration: { value: 2.7, unit: 'Mo' } }), { effectivePeriod: { start: '2025-01-15T00:00:00Z', end: '2025-03-15T00:00:00Z' } }],
  ['part of day: night', interval({ date: '2025-03-05', part_of_day: 'night' }), { effectivePeriod: { start: '2025-03-05T00:00:00Z', end: '2025-03-05T06:00:00Z' } }],
  ['part of day: morning', interval({ date: '2025-03-05', part_of_day: 'morning' }), { effectivePeriod: { start: '2025-03-05T06:00:00Z', end: '2025-03-05T12:00:00Z' } }],
  ['part of day: afternoon', interval({ date: '2025-03-05', part_of_day: 'afternoon' }), { effectivePeriod: { start: '2025-03-05T12:00:00Z', end: '2025-03-05T18:00:00Z' } }],
  ['part of day: evening (to the next midnight)', interval({ date: '2025-03-05', part_of_day: 'evening' }), { effectivePeriod: { start: '2025-03-05T18:00:00Z', end: '2025-03-06T00:00:00Z' } }],
  ['no time frame', undefined, {}],
];

describe('the lifted effective time', () => {
  it.each(CASES)('%s', async (_, frame, expected) => {
    const sent = reading(frame);
    const res = await upload(world.patient.token, [sent]);
    expect(statusesOf(res)).toEqual(['201 Created']);
    const resource = res.json.entry[0].resource;
    const { effectiveDateTime, effectivePeriod } = resource;
    expect({ ...(effectiveDateTime ? { effectiveDateTime } : {}), ...(effectivePeriod ? { effectivePeriod } : {}) }).toEqual(expected);
    // The payload stays the source of truth, byte for byte.
    expect(resource.valueAttachment.data).toBe(sent.valueAttachment.data);
  });

  it('is what date searches see: each part of a day lies within that day, and evening not in the next', async () => {
    const day = await call('GET', `/FHIR/R5/Observation?patient=${world.patient.id}&date=2025-03-05&_count=100`, { token: world.patient.token });
    expect(matchIds(day)).toHaveLength(4);
    const next = await call('GET', `/FHIR/R5/Observation?patient=${world.patient.id}&date=2025-03-06&_count=100`, { token: world.patient.token });
    expect(matchIds(next)).toHaveLength(0);
    const monthEnd = await call('GET', `/FHIR/R5/Observation?patient=${world.patient.id}&date=sa2025-02-28T11:00:00Z&date=eb2025-03-01&_count=100`, { token: world.patient.token });
    expect(matchIds(monthEnd)).toHaveLength(0);
    const overlapping = await call('GET', `/FHIR/R5/Observation?patient=${world.patient.id}&date=ap2025-02-10&date=lt2025-02-01&_count=100`, { token: world.patient.token });
    expect(matchIds(overlapping).length).toBeGreaterThan(0);
  });
});
