/**
 * The digest: small, mergeable in any order, and a period's figures from its days' digests equal to
 * the figures of its raw readings (test/support/cgm.ts), over random traces.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { AGP_PERCENTILES } from '../../../shared/cgm/agp';
import { emptyDigest, figuresOf, mergeDigests, mergeFigures, summariseDay, type CgmReading } from '../../../shared/cgm/digest';
import { summariseReadings, summaryOf, type CgmSummary } from '../../../shared/cgm/metrics';
import { mgdlOf } from '../../../shared/cgm/units';
import {
  bandInMgdl, bandInMmolL, byUtcDay, DAY, daysWithReadings, HOUR, mean, medianGapMinutes, MINUTE, quantile, sd, trace, valuesByBin,
} from '../../support/cgm';

const FROM = Date.parse('2026-03-01T08:00:00Z');

describe('a day digest', () => {
  // The demo sensor's day: 288 readings between 40 and 400 mg/dL.
  const day = trace({ start: FROM, everyMinutes: 5, days: 1, value: (i) => 40 + ((i * 97) % 361), offset: () => -480 });
  const digest = summariseDay(day);

  it('is a few kilobytes of JSON, and reads back as it was', () => {
    const json = JSON.stringify(digest);
    expect(json.length).toBeLessThan(4096);
    expect(JSON.parse(json)).toEqual(digest);
  });

  it('counts the gaps, the quarter-hours and the profile of its readings', () => {
    expect(digest.count).toBe(288);
    expect(digest.gaps).toEqual([[300, 287]]);
    expect(digest.active).toEqual([[FROM / (15 * MINUTE), FROM / (15 * MINUTE) + 96]]);
    expect(digest.profile.reduce((n, [, , times]) => n + times, 0)).toBe(288);
    expect([digest.first, digest.last]).toEqual([FROM, FROM + DAY - 5 * MINUTE]);
  });

  it('leaves out a value that is no glucose, and refuses a time that is none', () => {
    const odd = [
      { at: FROM, offsetMinutes: 0, mgdl: Number.NaN },
      { at: FROM + MINUTE, offsetMinutes: 0, mgdl: -5 },
      { at: FROM + 2 * MINUTE, offsetMinutes: 0, mgdl: 99 },
    ];
    expect(summariseDay(odd).count).toBe(1);
    expect(() => summariseDay([{ at: FROM, offsetMinutes: 24 * 60, mgdl: 99 }])).toThrow(RangeError);
    expect(() => summariseDay([{ at: Number.NaN, offsetMinutes: 0, mgdl: 99 }])).toThrow(RangeError);
  });
});

describe('merging digests', () => {
  const readings = trace({ start: FROM, everyMinutes: 5, days: 3, value: (i) => 60 + (i % 200) });
  const days = byUtcDay(readings).map(summariseDay);

  it('gives the digest of all their readings, whatever their order, the gaps across days included', () => {
    const whole = summariseDay(readings);
    const merged = mergeDigests([days[2]!, emptyDigest(), days[0]!, days[1]!, days[3]!]);
    expect({ ...merged, m2: 0 }).toEqual({ ...whole, m2: 0 });
    expect(merged.m2).toBeCloseTo(whole.m2, 6);
    expect(merged.gaps).toEqual([[300, readings.length - 1]]);
  });

  it('merges figures alone as it merges the digests, profile left out', () => {
    const figures = mergeFigures([days[1]!, days[3]!, days[0]!, days[2]!].map(figuresOf));
    const whole = figuresOf(mergeDigests(days));
    expect(figures).not.toHaveProperty('profile');
    expect({ ...figures, m2: 0 }).toEqual({ ...whole, m2: 0 });
    expect(figures.m2).toBeCloseTo(whole.m2, 6);
    expect(mergeFigures([])).toEqual(figuresOf(emptyDigest()));
  });

  it('merges merged digests again', () => {
    const twice = mergeDigests([mergeDigests(days.slice(0, 2)), mergeDigests(days.slice(2))]);
    expect(twice.profile).toEqual(summariseDay(readings).profile);
  });

  it('refuses digests whose readings interleave in time', () => {
    const odd = summariseDay(readings.filter((_, i) => i % 2 === 1));
    const even = summariseDay(readings.filter((_, i) => i % 2 === 0));
    expect(() => mergeDigests([odd, even])).toThrow(RangeError);
  });

  it('refuses a digest of another version', () => {
    expect(() => mergeDigests([{ ...days[0]!, version: 2 as 1 }])).toThrow(RangeError);
  });

  it('of none is the empty digest', () => {
    expect(mergeDigests([])).toEqual(emptyDigest());
  });
});

/** A random sensor's trace: its interval, unit, values, outages, clock jitter and a UTC offset that may change once. */
const traces = fc
  .record({
    quarterHour: fc.integer({ min: 0, max: 365 * 96 }),
    hours: fc.integer({ min: 1, max: 96 }),
    every: fc.constantFrom(1, 5, 15),
    mmol: fc.boolean(),
    a: fc.integer({ min: 1, max: 997 }),
    b: fc.integer({ min: 0, max: 9999 }),
    outages: fc.array(fc.tuple(fc.integer({ min: 0, max: 95 }), fc.integer({ min: 1, max: 30 })), { maxLength: 3 }),
    jitter: fc.boolean(),
    offsets: fc.tuple(fc.constantFrom(-480, -420, -210, 0, 60, 330, 345, 780), fc.constantFrom(-420, 0, 60, 345), fc.integer({ min: 0, max: 96 })),
  })
  .map((spec) => {
    const start = Date.parse('2025-06-01T00:00:00Z') + spec.quarterHour * 15 * MINUTE;
    const [before, after, switchHour] = spec.offsets;
    const readings = trace({
      start,
      everyMinutes: spec.every,
      days: spec.hours / 24,
      value: (i) => (spec.mmol ? mgdlOf((22 + ((i * spec.a + spec.b) % 200)) / 10, 'mmol/L')! : 40 + ((i * spec.a + spec.b) % 361)),
      offset: (at) => (at < start + switchHour * HOUR ? before : after),
      missing: (at) => spec.outages.some(([hour, length]) => at >= start + hour * HOUR && at < start + (hour + length) * HOUR),
    }).map((r, i) => (spec.jitter ? { ...r, at: r.at + ((i * 7) % 5) * 1000 } : r));
    return { readings, period: { from: start, to: start + spec.hours * HOUR }, mmol: spec.mmol };
  });

/** Every figure of a summary held to the raw readings' own. */
function expectRawFigures(summary: CgmSummary, readings: readonly CgmReading[], period: { from: number; to: number }, mmol: boolean): void {
  expect(summary.readings).toBe(readings.length);
  expect(summary.daysOfWear).toBe(daysWithReadings(readings, period.from));
  const interval = medianGapMinutes(readings) ?? 5;
  expect(summary.interval.minutes).toBe(interval);
  expect(summary.sensorActivePercent).toBeCloseTo(Math.min(100, (100 * readings.length * interval * MINUTE) / (period.to - period.from)), 9);
  const bins = valuesByBin(readings);
  summary.agp.bins.forEach((bin, i) => {
    expect(bin.readings).toBe(bins[i]!.length);
    if (bins[i]!.length === 0) return;
    for (const p of AGP_PERCENTILES) {
      const raw = quantile(bins[i]!, p / 100);
      if (mmol) expect(Math.abs(bin.percentiles![p] - raw)).toBeLessThanOrEqual(0.5 + 1e-9);
      else expect(bin.percentiles![p]).toBe(raw);
    }
  });
  if (readings.length === 0) return expect(summary.glucose).toBeUndefined();
  const values = readings.map((r) => r.mgdl);
  const glucose = summary.glucose!;
  expect(glucose.meanMgdl).toBeCloseTo(mean(values), 9);
  expect(glucose.sdMgdl).toBeCloseTo(sd(values), 7);
  expect(glucose.cvPercent).toBeCloseTo((100 * sd(values)) / mean(values), 7);
  expect([glucose.minMgdl, glucose.maxMgdl]).toEqual([Math.min(...values), Math.max(...values)]);
  const bandOf = (r: CgmReading) => (mmol ? bandInMmolL(r.mgdl / 18.0156) : bandInMgdl(r.mgdl));
  for (const band of ['veryLow', 'low', 'target', 'high', 'veryHigh'] as const) expect(glucose.bands[band].readings).toBe(readings.filter((r) => bandOf(r) === band).length);
}

describe('a period from its days digests', () => {
  it('has the figures of its raw readings (counts, bands, interval, days of wear exactly; mean and CV to floating point; percentiles within 0.5 mg/dL)', () => {
    fc.assert(
      fc.property(traces, fc.integer(), ({ readings, period, mmol }, seed) => {
        // The days' digests in a shuffled order, as a store may answer them.
        const days = byUtcDay(readings)
          .map(summariseDay)
          .sort((x, y) => ((x.first! ^ seed) & 0xff) - ((y.first! ^ seed) & 0xff));
        const fromDigests = summaryOf(mergeDigests(days), { period });
        expectRawFigures(fromDigests, readings, period, mmol);
        const direct = summariseReadings(readings, { period });
        expect({ ...fromDigests, glucose: undefined }).toEqual({ ...direct, glucose: undefined });
      }),
      { numRuns: 60 },
    );
  });
});
