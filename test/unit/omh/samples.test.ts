import { describe, expect, it } from 'vitest';
import { checkPayload } from '../../../shared/omh/check';
import { liftEffectiveTime } from '../../../shared/omh/effective-time';
import {
  EFFECTIVE_FORMS, formOf, formsFor, sampleAttachment, samplePayload, SAMPLE_CODES,
} from '../../../shared/omh/samples';

const AT = Date.UTC(2026, 0, 31, 22, 45);

describe('sample payloads', () => {
  it('know which forms each schema takes', () => {
    const ieee = ['date_time', 'start_end', 'start_duration', 'end_duration'];
    const omh = [...ieee, 'date_part_of_day'];
    expect(formsFor('omh:blood-pressure:4.0')).toEqual(ieee);
    expect(formsFor('omh:heart-rate:2.0')).toEqual(omh);
    expect(formsFor('omh:rr-interval:1.0')).toEqual(omh);
    expect(formsFor('omh:step-count:3.0')).toEqual(omh.slice(1));
    expect(formsFor('ieee:sleep-stage-summary:1.0')).toEqual(ieee.slice(1));
    expect(formsFor('ieee:food-entry:0.1')).toEqual([...ieee, 'full_date']);
    expect(formsFor('omh:unknown:1.0')).toEqual([]);
  });

  it('every form is possible for some code', () => {
    expect(new Set(SAMPLE_CODES.flatMap((code) => formsFor(code)))).toEqual(new Set(EFFECTIVE_FORMS));
  });

  describe.each(SAMPLE_CODES)('%s', (code) => {
    it.each(formsFor(code))('form %s: valid, written in that form, effective at the chosen instant', (form) => {
      const uuid = '00000000-0000-4000-8000-000000000042';
      const payload = samplePayload(code, { uuid, at: new Date(AT), form, spanMinutes: 30 });
      expect(payload.header.uuid).toBe(uuid);
      expect(formOf(payload.body.effective_time_frame)).toBe(form);

      const result = checkPayload(code, sampleAttachment(code, { uuid, at: AT, form, spanMinutes: 30 }));
      if (!result.ok) throw new Error(JSON.stringify(result.issues));
      const effective = liftEffectiveTime(payload.body)!;
      expect(result.effective).toEqual(effective);
      if (form === 'date_part_of_day') expect([effective.start, effective.end]).toEqual([AT - 4.75 * 3_600_000, AT + 1.25 * 3_600_000]);
      else if (form === 'full_date') expect([effective.start, effective.end]).toEqual([Date.UTC(2026, 0, 31), Date.UTC(2026, 1, 1)]);
      else if (form === 'date_time') expect(effective).toEqual({ kind: 'dateTime', start: AT, end: AT });
      else expect(effective).toEqual({ kind: 'period', start: AT, end: AT + 30 * 60_000 });
    });
  });

  it('keeps nested times in step with the moved time frame', () => {
    const payload = samplePayload('ieee:sleep-stage-summary:1.0', { at: AT });
    const episode = (payload.body.sleep_stage_episodes as Array<{ sleep_stage_time_frame: unknown }>)[0]!;
    // In the example the deep-sleep episode starts 20 minutes after the sleep.
    expect(liftEffectiveTime({ effective_time_frame: episode.sleep_stage_time_frame })?.start).toBe(AT + 20 * 60_000);
  });

  it('defaults to the example\'s own instant and form, with a fresh uuid each time', () => {
    const a = samplePayload('omh:heart-rate:2.0');
    const b = samplePayload('omh:heart-rate:2.0');
    expect(a.body.effective_time_frame).toEqual({ time_interval: { date: '2025-03-02', part_of_day: 'night' } });
    expect(a.header.uuid).not.toBe(b.header.uuid);
  });

  it('never dates the reading\'s creation after now, even when its time frame ends later', () => {
    const before = Date.now();
    const payload = samplePayload('omh:heart-rate:2.0', { at: before, form: 'full_date' });
    const created = Date.parse(payload.header.source_creation_date_time as string);
    expect(created).toBeGreaterThanOrEqual(before - 1000);
    expect(created).toBeLessThanOrEqual(Date.now());
  });

  it('sets the members given over the example\'s, and leaves out those given as undefined', () => {
    const { body } = samplePayload('omh:blood-glucose:4.0', {
      at: AT,
      form: 'date_time',
      members: { blood_glucose: { value: 142, unit: 'mg/dL' }, specimen_source: 'interstitial fluid', temporal_relationship_to_meal: undefined },
    });
    expect(body).toEqual({
      blood_glucose: { value: 142, unit: 'mg/dL' },
      effective_time_frame: { date_time: '2026-01-31T22:45:00Z' },
      specimen_source: 'interstitial fluid',
      temporal_relationship_to_sleep: 'on waking',
    });
    expect(checkPayload('omh:blood-glucose:4.0', sampleAttachment('omh:blood-glucose:4.0', { members: { blood_glucose: { value: 142, unit: 'mg/dL' }, temporal_relationship_to_meal: undefined } }))).toMatchObject({ ok: true });
  });
});
