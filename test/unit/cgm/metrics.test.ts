/**
 * A period's metrics from hand-made sensor traces, each held to the same figure computed from the
 * raw readings in test/support/cgm.ts.
 */
import { describe, expect, it } from 'vitest';
import { summariseDay, type CgmReading } from '../../../shared/cgm/digest';
import { summariseReadings, summaryOf, type CgmSummary, type CgmSummaryOptions } from '../../../shared/cgm/metrics';
import { OLDER_OR_HIGH_RISK_TARGETS } from '../../../shared/cgm/thresholds';
import { mgdlOf } from '../../../shared/cgm/units';
import { isDomainFailure } from '../../../shared/failures';
import { bandInMmolL, bandPercents, DAY, daysWithReadings, HOUR, mean, MINUTE, sd, trace } from '../../support/cgm';

/** 2026-03-01 00:00 at -08:00. */
const FROM = Date.parse('2026-03-01T08:00:00Z');
const TWO_WEEKS = { from: FROM, to: FROM + 14 * DAY };
const PACIFIC = () => -480;

const summarise = (readings: CgmReading[], options: Partial<CgmSummaryOptions> = {}): CgmSummary => summariseReadings(readings, { period: TWO_WEEKS, ...options });

/** Every figure of the summary held to the raw readings' own. */
function expectFigures(summary: CgmSummary, readings: readonly CgmReading[], from = TWO_WEEKS.from): void {
  const values = readings.map((r) => r.mgdl);
  const glucose = summary.glucose!;
  expect(summary.readings).toBe(readings.length);
  expect(glucose.meanMgdl).toBeCloseTo(mean(values), 9);
  expect(glucose.sdMgdl).toBeCloseTo(sd(values), 9);
  expect(glucose.cvPercent).toBeCloseTo((100 * sd(values)) / mean(values), 9);
  expect(glucose.gmiPercent).toBeCloseTo(3.31 + 0.02392 * mean(values), 9);
  expect(glucose.minMgdl).toBe(Math.min(...values));
  expect(glucose.maxMgdl).toBe(Math.max(...values));
  const percents = bandPercents(readings);
  for (const [band, percent] of Object.entries(percents)) expect(glucose.bands[band as keyof typeof glucose.bands].percent).toBeCloseTo(percent, 9);
  expect(summary.daysOfWear).toBe(daysWithReadings(readings, from));
}

describe('a trace all in range', () => {
  const readings = trace({ start: FROM, everyMinutes: 5, days: 14, value: (i) => 100 + (i % 60), offset: PACIFIC });
  const summary = summarise(readings);

  it('is all in the target band, every target met, sufficient', () => {
    expectFigures(summary, readings);
    expect(summary.glucose!.bands.target.percent).toBe(100);
    expect(summary.glucose!.targets.every((t) => t.met)).toBe(true);
    expect(summary.sensorActivePercent).toBe(100);
    expect(summary.expectedReadings).toBe(4032);
    expect(summary.interval).toEqual({ minutes: 5, source: 'readings' });
    expect(summary.daysOfWear).toBe(14);
    expect(summary.sufficiency).toEqual({ sufficient: true, shortfalls: [] });
  });
});

describe('a trace all very low', () => {
  const readings = trace({ start: FROM, everyMinutes: 5, days: 14, value: (i) => 40 + (i % 14) });
  const summary = summarise(readings);

  it('is all below 54 mg/dL, and misses the targets of time in range and below range', () => {
    expectFigures(summary, readings);
    expect(summary.glucose!.bands.veryLow.percent).toBe(100);
    const met = Object.fromEntries(summary.glucose!.targets.map((t) => [t.metric, t.met]));
    expect(met).toEqual({ timeInRange: false, timeBelow70: false, timeBelow54: false, timeAbove180: true, timeAbove250: true, cv: true });
  });
});

describe('a sensor off for hours and days', () => {
  // Off on days 3, 4 and 5, and every night from 01:00 to 07:00 (local) in the second week.
  const missing = (at: number) => {
    const day = Math.floor((at - FROM) / DAY);
    const hour = ((at - FROM) % DAY) / HOUR;
    return (day >= 3 && day <= 5) || (day >= 7 && hour >= 1 && hour < 7);
  };
  const readings = trace({ start: FROM, everyMinutes: 5, days: 14, value: (i) => 80 + ((i * 7) % 200), offset: PACIFIC, missing });
  const summary = summarise(readings);

  it('counts the days holding a reading and the share of the readings the sensor would have taken', () => {
    expectFigures(summary, readings);
    expect(summary.daysOfWear).toBe(11);
    expect(summary.readings).toBe(4032 - 3 * 288 - 7 * 72);
    expect(summary.sensorActivePercent).toBeCloseTo((100 * readings.length) / 4032, 12);
    expect(summary.interval.minutes).toBe(5);
  });

  it('is not sufficient below 70% active, and says so', () => {
    expect(summary.sensorActivePercent).toBeLessThan(70);
    expect(summary.sufficiency.sufficient).toBe(false);
    expect(summary.sufficiency.shortfalls).toEqual([{ code: 'too-little-data', activePercent: summary.sensorActivePercent, needed: 70 }]);
  });
});

describe('the sufficiency rule', () => {
  it('asks for 14 days', () => {
    const week = { from: FROM, to: FROM + 7 * DAY };
    const summary = summariseReadings(trace({ start: FROM, everyMinutes: 5, days: 7, value: () => 120 }), { period: week });
    expect(summary.sufficiency.shortfalls).toEqual([{ code: 'period-too-short', days: 7, needed: 14 }]);
  });

  it('has nothing to say of a period without readings but that it has none', () => {
    const summary = summarise([]);
    expect(summary.glucose).toBeUndefined();
    expect(summary.daysOfWear).toBe(0);
    expect(summary.sensorActivePercent).toBe(0);
    expect(summary.interval).toEqual({ minutes: 5, source: 'default' });
    expect(summary.sufficiency.shortfalls.map((s) => s.code)).toEqual(['no-readings', 'too-little-data']);
    expect(summary.agp.bins.every((b) => b.readings === 0 && b.percentiles === undefined)).toBe(true);
  });
});

describe('readings every 1, 5 and 15 minutes', () => {
  it.each([1, 5, 15])('finds the interval of %i minutes, and a full sensor is 100%% active', (every) => {
    const readings = trace({ start: FROM, everyMinutes: every, days: 14, value: (i) => 60 + (i % 150) });
    const summary = summarise(readings);
    expectFigures(summary, readings);
    expect(summary.interval).toEqual({ minutes: every, source: 'readings' });
    expect(summary.expectedReadings).toBe((14 * 1440) / every);
    expect(summary.sensorActivePercent).toBe(100);
  });

  it('reads a few seconds of clock jitter as the same interval', () => {
    const jitter = [0, 3, -2, 1, -4];
    const readings = trace({ start: FROM, everyMinutes: 5, days: 14, value: () => 110 }).map((r, i) => ({ ...r, at: r.at + jitter[i % 5]! * 1000 }));
    expect(summarise(readings).interval).toEqual({ minutes: 5, source: 'readings' });
  });

  it('takes an interval it is given, and counts a sensor that reads more often as no more than 100% active', () => {
    const readings = trace({ start: FROM, everyMinutes: 1, days: 14, value: () => 110 });
    const summary = summarise(readings, { intervalMinutes: 5 });
    expect(summary.interval).toEqual({ minutes: 5, source: 'given' });
    expect(summary.sensorActivePercent).toBe(100);
    const half = summarise(readings.filter((_, i) => i % 10 === 0), { intervalMinutes: 5 });
    expect(half.sensorActivePercent).toBeCloseTo(50, 12);
  });
});

describe('mg/dL and mmol/L', () => {
  // A sensor reporting mmol/L at 0.1 resolution across every band edge.
  const mmol = [2.9, 3.0, 3.8, 3.9, 10.0, 10.1, 13.9, 14.0, 5.5, 7.2];
  const readings = trace({ start: FROM, everyMinutes: 5, days: 14, value: (i) => mgdlOf(mmol[i % mmol.length]!, 'mmol/L')! });
  const summary = summarise(readings);

  it('puts each mmol/L value in the band the consensus gives it in mmol/L', () => {
    const percents = bandPercents(readings, (r) => bandInMmolL(r.mgdl / 18.0156));
    for (const [band, percent] of Object.entries(percents)) expect(summary.glucose!.bands[band as 'low'].percent).toBeCloseTo(percent, 9);
    // 10.0 mmol/L (180.16 mg/dL) is in range, 10.1 is not; 3.9 (70.26) is in range, 3.8 is not.
    const inRange = readings.filter((r) => [3.9, 10.0, 5.5, 7.2].some((v) => Math.abs(r.mgdl / 18.0156 - v) < 1e-9)).length;
    expect(summary.glucose!.bands.target.readings).toBe(inRange);
  });

  it('computes the mean and spread of the converted values', () => {
    const values = readings.map((r) => r.mgdl);
    expect(summary.glucose!.meanMgdl).toBeCloseTo(mean(values), 9);
    expect(summary.glucose!.sdMgdl).toBeCloseTo(sd(values), 9);
  });
});

describe('targets', () => {
  it('judges by the targets asked for', () => {
    const readings = trace({ start: FROM, everyMinutes: 5, days: 14, value: (i) => (i % 8 < 5 ? 150 : 200) });
    const summary = summarise(readings, { targets: OLDER_OR_HIGH_RISK_TARGETS });
    expect(summary.glucose!.targets.map((t) => [t.metric, t.value, t.met])).toEqual([
      ['timeInRange', 62.5, true],
      ['timeBelow70', 0, true],
      ['timeAbove250', 0, true],
      ['cv', summary.glucose!.cvPercent, true],
    ]);
    expect(summarise(readings).glucose!.targets.find((t) => t.metric === 'timeInRange')!.met).toBe(false);
  });
});

describe('the period', () => {
  it('leaves out readings outside it, and refuses a digest that holds some', () => {
    const readings = trace({ start: FROM - DAY, everyMinutes: 5, days: 16, value: () => 100 });
    expect(summarise(readings).readings).toBe(4032);
    expect(() => summaryOf(summariseDay(readings), { period: TWO_WEEKS })).toThrow(RangeError);
  });

  it("refuses a period that ends before it starts, and an interval that is none, as a fault of the query", () => {
    const failure = (f: () => unknown) => {
      try {
        f();
      } catch (e) {
        return isDomainFailure(e) ? [e.kind, e.at] : e;
      }
      return undefined;
    };
    expect(failure(() => summarise([], { period: { from: FROM, to: FROM } }))).toEqual(['invalid-query', 'period']);
    expect(failure(() => summarise([], { intervalMinutes: 0 }))).toEqual(['invalid-query', 'interval']);
    expect(failure(() => summarise([], { intervalMinutes: Number.NaN }))).toEqual(['invalid-query', 'interval']);
  });

  it('counts days of wear from its start: a day is 24 hours from there, not a UTC date', () => {
    // One reading at 23:00 local on each of the first three days: three days, whatever UTC date each is.
    const readings = [0, 1, 2].map((d) => ({ at: FROM + d * DAY + 23 * HOUR, offsetMinutes: -480, mgdl: 100 }));
    expect(summarise(readings).daysOfWear).toBe(3);
    // Minutes apart across a day's boundary: two days.
    const edge = [FROM + DAY - MINUTE, FROM + DAY].map((at) => ({ at, offsetMinutes: -480, mgdl: 100 }));
    expect(summarise(edge).daysOfWear).toBe(2);
  });
});
