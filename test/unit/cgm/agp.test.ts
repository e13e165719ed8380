/**
 * The ambulatory glucose profile: each 15-minute bin of the readings' own clock, its percentiles
 * held to the raw values' (test/support/cgm.ts), across a change of daylight-saving time.
 */
import { describe, expect, it } from 'vitest';
import { AGP_PERCENTILES, agpOf } from '../../../shared/cgm/agp';
import { mergeDigests, summariseDay } from '../../../shared/cgm/digest';
import { byUtcDay, DAY, HOUR, MINUTE, quantile, trace, valuesByBin } from '../../support/cgm';

/** 2026-03-01 00:00 at -08:00. */
const FROM = Date.parse('2026-03-01T08:00:00Z');

describe('the profile of a trace', () => {
  // A daily rhythm (higher in the afternoon) with day-to-day noise, every 5 minutes for 14 days.
  const readings = trace({
    start: FROM,
    everyMinutes: 5,
    days: 14,
    value: (i, at) => {
      const hour = ((at - FROM) % DAY) / HOUR;
      return Math.round(100 + 60 * Math.sin((Math.PI * hour) / 24) + ((i * 37) % 41) - 20);
    },
    offset: () => -480,
  });
  const agp = agpOf(mergeDigests(byUtcDay(readings).map(summariseDay)));

  it('has 96 bins of 15 minutes from local midnight, each with its readings', () => {
    expect(agp.binMinutes).toBe(15);
    expect(agp.bins.map((b) => b.startMinute)).toEqual(Array.from({ length: 96 }, (_, i) => i * 15));
    expect(agp.bins.every((b) => b.readings === 14 * 3)).toBe(true);
  });

  it('gives each bin the percentiles of its values, exactly for whole mg/dL', () => {
    const raw = valuesByBin(readings);
    agp.bins.forEach((bin, i) => {
      for (const p of AGP_PERCENTILES) expect(bin.percentiles![p]).toBe(quantile(raw[i]!, p / 100));
    });
  });

  it('is the same profile from one digest of every reading', () => {
    expect(agpOf(summariseDay(readings))).toEqual(agp);
  });
});

describe('values that are not whole mg/dL', () => {
  const readings = trace({ start: FROM, everyMinutes: 5, days: 3, value: (i) => 3.9 * 18.0156 + ((i * 0.77) % 9.3), offset: () => 60 });

  it('gives percentiles within 0.5 mg/dL of the raw values own', () => {
    const raw = valuesByBin(readings);
    agpOf(summariseDay(readings)).bins.forEach((bin, i) => {
      for (const p of AGP_PERCENTILES) expect(Math.abs(bin.percentiles![p] - quantile(raw[i]!, p / 100))).toBeLessThanOrEqual(0.5);
    });
  });
});

describe('a change of daylight-saving time', () => {
  /** US Pacific: -08:00 until 2026-03-08 10:00 UTC (02:00 local becomes 03:00), -07:00 after; back at 2026-11-01 09:00 UTC. */
  const pacific = (at: number) => (at >= Date.parse('2026-03-08T10:00:00Z') && at < Date.parse('2026-11-01T09:00:00Z') ? -420 : -480);

  it('puts each reading in the bin of its own clock: the skipped hour gets none that day', () => {
    // The day of 2026-03-08 from local midnight (-08:00) to the next local midnight (-07:00): 23 hours.
    const start = Date.parse('2026-03-08T08:00:00Z');
    const readings = trace({ start, everyMinutes: 5, days: 23 / 24, value: () => 100, offset: pacific });
    const before = readings.find((r) => r.at === Date.parse('2026-03-08T09:55:00Z'))!;
    const after = readings.find((r) => r.at === Date.parse('2026-03-08T10:00:00Z'))!;
    expect([before.offsetMinutes, after.offsetMinutes]).toEqual([-480, -420]);
    const counts = agpOf(summariseDay(readings)).bins.map((b) => b.readings);
    // 01:45-02:00 local holds 01:55 (-08:00); 02:00-03:00 is skipped; 03:00 (-07:00) opens its bin.
    expect(counts.slice(7, 13)).toEqual([3, 0, 0, 0, 0, 3]);
    expect(counts.reduce((a, b) => a + b, 0)).toBe(readings.length);
    expect(counts.filter((n) => n === 3)).toHaveLength(92);
  });

  it('gives the repeated hour both hours of readings when the clocks go back', () => {
    // 2026-11-01 from local midnight (-07:00) to the next (-08:00): 25 hours.
    const start = Date.parse('2026-11-01T07:00:00Z');
    const readings = trace({ start, everyMinutes: 5, days: 25 / 24, value: () => 100, offset: pacific });
    const counts = agpOf(summariseDay(readings)).bins.map((b) => b.readings);
    // 01:00-02:00 local happens twice.
    expect(counts.slice(3, 9)).toEqual([3, 6, 6, 6, 6, 3]);
    expect(counts.reduce((a, b) => a + b, 0)).toBe(25 * 12);
  });

  it('leaves a bin without readings without percentiles', () => {
    const readings = [{ at: FROM + 10 * MINUTE, offsetMinutes: -480, mgdl: 90 }];
    const bins = agpOf(summariseDay(readings)).bins;
    expect(bins[0]).toEqual({ startMinute: 0, readings: 1, percentiles: { 5: 90, 25: 90, 50: 90, 75: 90, 95: 90 } });
    expect(bins[1]).toEqual({ startMinute: 15, readings: 0 });
  });
});
