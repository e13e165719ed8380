/**
 * The demo readings of `npm start` (local/demo-readings.ts) look like a person's two weeks whatever
 * the hour the seed runs: every reading valid for its schema and inside the window, the same values
 * on every run, and the shapes a value search or `$stats` should find (a heart rate that follows the
 * day and peaks in workouts, blood pressures above 140 some days, a glucose trace every 5 minutes
 * every 15 minutes with meal rises and night lows).
 */
import { describe, expect, it } from 'vitest';
import { DAYS, MAIN_PATIENT } from '../../../local/demo-observations';
import { GLUCOSE_EVERY_MINUTES, GLUCOSE_PER_DAY, type DemoReading, type DemoSeries } from '../../../local/demo-readings';
import { MS_PER_DAY, MS_PER_MINUTE } from '../../../shared/omh/datetime';
import { sampleBody } from '../../../shared/omh/samples';
import { schemaForCode } from '../../../shared/omh/schemas/index';
import { issuesOf } from '../../../shared/omh/schemas/validate';

/** A window of the demo's length ending at `hour` o'clock UTC, as the seed makes it from "now". */
const windowUntil = (hour: number) => {
  const until = Date.UTC(2026, 11, 7, hour);
  return { from: until - DAYS * MS_PER_DAY, until };
};

const seriesOf = (code: string): DemoSeries => MAIN_PATIENT.find((s) => s.code === code)!;
/** A member's value (`heart_rate`, `systolic_blood_pressure`, ...). */
const valueOf = (reading: DemoReading, member: string) => (reading.members[member] as { value: number }).value;
const minuteOfDay = (at: number) => (at % MS_PER_DAY) / MS_PER_MINUTE;
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

describe('the demo readings', () => {
  it.each([0, 7, 13, 19])('are each valid for their schema and inside the window ending at %i:00', (hour) => {
    const window = windowUntil(hour);
    for (const { code, readings } of MAIN_PATIENT) {
      const schema = schemaForCode(code)!;
      for (const r of readings(window)) {
        const body = sampleBody(code, { at: r.at, form: r.form, members: r.members, ...(r.spanMinutes ? { spanMinutes: r.spanMinutes } : {}) });
        expect(issuesOf(schema.body, body, 'body'), `${code} at ${new Date(r.at).toISOString()}`).toEqual([]);
        expect(r.at).toBeGreaterThanOrEqual(window.from);
        expect(r.at + (r.spanMinutes ?? 0) * MS_PER_MINUTE).toBeLessThanOrEqual(window.until);
      }
    }
  });

  it('are the same on every run, and a clock time of a day has the same value whenever the seed ran that day', () => {
    const morning = windowUntil(9);
    const evening = windowUntil(21);
    for (const { code, readings } of MAIN_PATIENT) expect(readings(morning), code).toEqual(readings(morning));
    const glucoseAt = (window: { from: number; until: number }) => new Map(seriesOf('omh:blood-glucose:4.0').readings(window).map((r) => [r.at, valueOf(r, 'blood_glucose')]));
    const [early, late] = [glucoseAt(morning), glucoseAt(evening)];
    let shared = 0;
    for (const [at, value] of early) {
      if (!late.has(at)) continue;
      shared += 1;
      expect(late.get(at), new Date(at).toISOString()).toBe(value);
    }
    expect(shared).toBeGreaterThan(0.9 * early.size);
  });

  describe.each(Array.from({ length: 24 }, (_, hour) => hour))('seeded at %i:00', (hour) => {
    const window = windowUntil(hour);

    it('heart rates follow the day: many values, lower asleep than by day, above 100 in each daily workout', () => {
      const readings = seriesOf('omh:heart-rate:2.0').readings(window);
      const bpm = readings.map((r) => valueOf(r, 'heart_rate'));
      expect(new Set(bpm).size).toBeGreaterThan(10);
      const exercising = readings.filter((r) => r.members.temporal_relationship_to_physical_activity === 'during exercise');
      const resting = (fromHour: number, toHour: number) =>
        readings.filter((r) => !exercising.includes(r) && minuteOfDay(r.at) >= fromHour * 60 && minuteOfDay(r.at) < toHour * 60).map((r) => valueOf(r, 'heart_rate'));
      expect(median(resting(1, 5))).toBeLessThan(median(resting(10, 16)) - 10);
      expect(new Set(exercising.map((r) => Math.floor(r.at / MS_PER_DAY))).size).toBeGreaterThanOrEqual(DAYS - 1);
      expect(bpm.filter((v) => v > 100).length).toBeGreaterThan(50);
      expect(Math.max(...bpm)).toBeLessThanOrEqual(170);
      expect(Math.min(...bpm)).toBeGreaterThanOrEqual(40);
    });

    it('blood pressures vary, some systolic above 140', () => {
      const systolic = seriesOf('omh:blood-pressure:4.0').readings(window).map((r) => valueOf(r, 'systolic_blood_pressure'));
      expect(systolic.some((v) => v > 140)).toBe(true);
      expect(systolic.some((v) => v < 125)).toBe(true);
      expect(new Set(systolic).size).toBeGreaterThan(10);
    });

    it(`the glucose sensor reads every ${GLUCOSE_EVERY_MINUTES} minutes, ${GLUCOSE_PER_DAY} a day, between 40 and 260 mg/dL, rising after meals and low below 70 some nights`, () => {
      const readings = seriesOf('omh:blood-glucose:4.0').readings(window);
      expect(readings).toHaveLength(DAYS * GLUCOSE_PER_DAY);
      for (let day = 0; day < DAYS; day++) {
        const from = window.from + day * MS_PER_DAY;
        expect(readings.filter((r) => r.at >= from && r.at < from + MS_PER_DAY)).toHaveLength(GLUCOSE_PER_DAY);
      }
      expect(readings.every((r, i) => i === 0 || r.at - readings[i - 1]!.at === GLUCOSE_EVERY_MINUTES * MS_PER_MINUTE)).toBe(true);
      expect(readings.every((r) => r.members.specimen_source === 'interstitial fluid' && (r.members.blood_glucose as { unit: string }).unit === 'mg/dL')).toBe(true);
      const mgdl = readings.map((r) => valueOf(r, 'blood_glucose'));
      expect(Math.min(...mgdl)).toBeGreaterThanOrEqual(40);
      expect(Math.max(...mgdl)).toBeLessThanOrEqual(260);
      expect(Math.max(...mgdl)).toBeGreaterThan(180);
      const lowNights = new Set(readings.filter((r) => valueOf(r, 'blood_glucose') < 70).map((r) => Math.floor(r.at / MS_PER_DAY)));
      expect(lowNights.size).toBeGreaterThanOrEqual(2);
      expect(lowNights.size).toBeLessThan(DAYS);
      // An hour after lunch is higher than an hour before it, day after day.
      const around = (minute: number) => median(readings.filter((r) => minuteOfDay(r.at) === minute).map((r) => valueOf(r, 'blood_glucose')));
      expect(around(13 * 60 + 30)).toBeGreaterThan(around(11 * 60 + 30) + 25);
    });

    it('oxygen saturation stays within 94-99 %, weight within a kilogram', () => {
      const saturation = seriesOf('omh:oxygen-saturation:2.0').readings(window).map((r) => valueOf(r, 'oxygen_saturation'));
      expect(saturation.every((v) => v >= 94 && v <= 99)).toBe(true);
      expect(new Set(saturation).size).toBeGreaterThan(2);
      const weight = seriesOf('omh:body-weight:3.0').readings(window).map((r) => valueOf(r, 'body_weight'));
      expect(Math.max(...weight) - Math.min(...weight)).toBeLessThan(1.5);
      expect(new Set(weight).size).toBeGreaterThan(2);
    });
  });

  it('never has two readings of one code at one instant', () => {
    const window = windowUntil(1);
    for (const { code, readings } of MAIN_PATIENT) {
      const times = readings(window).map((r) => r.at);
      expect(new Set(times).size, code).toBe(times.length);
    }
  });
});
