/**
 * Which stored readings are a glucose sensor's, and what each comes to: the interstitial-fluid
 * readings of a blood glucose (by its unit and specimen, as the service codes it), their instant,
 * the offset their start was written with, and the value in mg/dL.
 */
import { describe, expect, it } from 'vitest';
import { SENSOR_READING } from '../../../../shared/cgm/codes';
import { MGDL_PER_MMOLL } from '../../../../shared/cgm/units';
import type { StoredObservation } from '../../../../shared/observations/model';
import { holdsSensorReadings, sensorReadingsOf } from '../../../../shared/observations/cgm/readings';
import { keptValues } from '../../../../shared/observations/values';
import { liftEffectiveTime } from '../../../../shared/omh/effective-time';
import { encodePayload, samplePayload } from '../../../../shared/omh/samples';
import { observationCodings, schemaQuantities } from '../../../../shared/omh/quantities';

const GLUCOSE = 'omh:blood-glucose:4.0';
let nextId = 1;

/** A stored blood glucose with these body members over the sample's. */
function stored(members: Record<string, unknown>, status = 'final'): StoredObservation {
  const payload = samplePayload(GLUCOSE, { members: { temporal_relationship_to_sleep: undefined, ...members } });
  return {
    id: nextId++,
    patientId: 1,
    codeId: 1,
    deviceId: 1,
    status,
    identifiers: [],
    data: encodePayload(payload),
    uuid: payload.header.uuid,
    effective: liftEffectiveTime(payload.body),
    values: keptValues(GLUCOSE, payload.body),
    lastUpdated: '2026-03-08T12:00:00.000Z',
  };
}

/** A blood glucose of this specimen (null: none named). */
const sensor = (value: number, unit: string, effective_time_frame: unknown, specimen: string | null = 'interstitial fluid') =>
  stored({ blood_glucose: { value, unit }, effective_time_frame, specimen_source: specimen ?? undefined });

describe('sensor readings', () => {
  it('are the interstitial-fluid readings, in mg/dL, at their start on their own clock', () => {
    const rows = [
      sensor(112, 'mg/dL', { date_time: '2026-03-08T01:55:00-08:00' }),
      sensor(6.2, 'mmol/L', { date_time: '2026-03-08T03:00:00-07:00' }),
      sensor(140, 'mg/dL', { time_interval: { start_date_time: '2026-03-08T03:05:00+05:45', duration: { value: 5, unit: 'min' } } }),
    ];
    expect(sensorReadingsOf(rows, GLUCOSE)).toEqual([
      { at: Date.parse('2026-03-08T09:55:00Z'), offsetMinutes: -480, mgdl: 112 },
      { at: Date.parse('2026-03-08T10:00:00Z'), offsetMinutes: -420, mgdl: 6.2 * MGDL_PER_MMOLL },
      { at: Date.parse('2026-03-07T21:20:00Z'), offsetMinutes: 345, mgdl: 140 },
    ]);
  });

  it("leave out a glucometer's readings, those of no specimen, and those entered in error", () => {
    const rows = [
      sensor(100, 'mg/dL', { date_time: '2026-03-08T08:00:00Z' }, 'capillary blood'),
      sensor(100, 'mg/dL', { date_time: '2026-03-08T08:00:00Z' }, null),
      sensor(100, 'mg/dL', { date_time: '2026-03-08T08:00:00Z' }, 'urine'),
      stored({ blood_glucose: { value: 100, unit: 'mg/dL' }, effective_time_frame: { date_time: '2026-03-08T08:00:00Z' }, specimen_source: 'interstitial fluid' }, 'entered-in-error'),
    ];
    expect(sensorReadingsOf(rows, GLUCOSE)).toEqual([]);
  });

  it("are a blood glucose's only: the schema whose codings are the guide's sensor readings", () => {
    expect(holdsSensorReadings(GLUCOSE)).toBe(true);
    expect(holdsSensorReadings('omh:heart-rate:2.0')).toBe(false);
    expect(holdsSensorReadings('omh:no-such:1.0')).toBe(false);
    // The guide's codes are the ones the service's own table gives an interstitial reading.
    const codings = observationCodings(schemaQuantities(GLUCOSE)!).map((c) => c.code);
    for (const { code } of Object.values(SENSOR_READING)) expect(codings).toContain(code);
    expect(sensorReadingsOf([sensor(100, 'mg/dL', { date_time: '2026-03-08T08:00:00Z' })], 'omh:heart-rate:2.0')).toEqual([]);
  });
});
