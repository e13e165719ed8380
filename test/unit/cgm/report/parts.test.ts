/**
 * The pieces the report is drawn from: the daily profiles of a period's readings, the days the grid
 * shows, a day's line broken at the sensor's gaps, the bar's band heights, and the metrics table's
 * rows against the summary.
 */
import { describe, expect, it } from 'vitest';
import { summariseReadings } from '../../../../shared/cgm/metrics';
import { dayPath, scalesOf } from '../../../../shared/cgm/report/curves';
import { dailyProfilesOf } from '../../../../shared/cgm/report/daily-profiles';
import { daysToShow } from '../../../../shared/cgm/report/input';
import { metricRows } from '../../../../shared/cgm/report/metrics-table';
import { bandHeights } from '../../../../shared/cgm/report/ranges-bar';
import { OLDER_OR_HIGH_RISK_TARGETS } from '../../../../shared/cgm/thresholds';
import { DAY, HOUR, MINUTE } from '../../../support/cgm';
import { FROM, OFFSET, variedTrace } from './fixtures';

describe('the daily profiles of a period', () => {
  const period = { from: FROM, to: FROM + 3 * DAY };

  it('has every date of the period on its clock, each reading at its minute on its own clock', () => {
    const readings = [
      { at: FROM, offsetMinutes: OFFSET, mgdl: 101 },
      { at: FROM + 90 * MINUTE, offsetMinutes: OFFSET, mgdl: 102 },
      // The same instant's day, read on a clock an hour ahead (the clocks went forward).
      { at: FROM + DAY + 23 * HOUR + 30 * MINUTE, offsetMinutes: OFFSET + 60, mgdl: 103 },
      // Outside the period: left out.
      { at: FROM + 3 * DAY, offsetMinutes: OFFSET, mgdl: 104 },
    ];
    expect(dailyProfilesOf(readings, period, OFFSET)).toEqual([
      { date: '2026-03-01', points: [[0, 101], [90, 102]] },
      { date: '2026-03-02', points: [] },
      { date: '2026-03-03', points: [[30, 103]] },
    ]);
  });

  it('shows the last 14 days by date, their points in time-of-day order', () => {
    const days = dailyProfilesOf(variedTrace(20), { from: FROM, to: FROM + 20 * DAY }, OFFSET).reverse();
    days[0] = { ...days[0]!, points: [[600, 120], [30, 90]] };
    const { shown, of } = daysToShow(days);
    expect(of).toBe(20);
    expect(shown.map((d) => d.date)).toEqual(Array.from({ length: 14 }, (_, i) => `2026-03-${String(i + 7).padStart(2, '0')}`));
    expect(shown.at(-1)!.points).toEqual([[30, 90], [600, 120]]);
  });
});

describe("a day's line", () => {
  const scales = scalesOf(1440, 350);

  it('runs through the readings, y up, and breaks where they are further apart than the gap', () => {
    const path = dayPath([[0, 100], [5, 110], [10, 350], [60, 200], [65, 400]], 30, scales);
    expect(path).toBe('M0,250L5,240L10,0M60,150L65,0');
  });
});

describe("the time-in-ranges bar's bands", () => {
  it('are their shares of the bar, top first, a band with readings at least a hairline', () => {
    const heights = bandHeights({ veryLow: 0, low: 0.01, target: 89.99, high: 10, veryHigh: 0 }, 100);
    expect(heights.map(([band]) => band)).toEqual(['veryHigh', 'high', 'target', 'low', 'veryLow']);
    const [veryHigh, high, target, low, veryLow] = heights.map(([, h]) => h);
    expect(veryHigh).toBe(0);
    expect(veryLow).toBe(0);
    expect(low).toBeGreaterThanOrEqual(0.99);
    expect(high! / target!).toBeCloseTo(10 / 89.99, 6);
    expect(heights.reduce((sum, [, h]) => sum + h, 0)).toBeCloseTo(100, 9);
  });
});

describe("the metrics table's rows", () => {
  const readings = variedTrace(14);
  const period = { from: FROM, to: FROM + 14 * DAY };

  it('gives each figure to a tenth with the target that judged it', () => {
    const summary = summariseReadings(readings, { period });
    const g = summary.glucose!;
    const rows = metricRows(summary, 'mg/dL');
    expect(rows.map((r) => r.label)).toEqual([
      'Time in range (70-180 mg/dL)',
      'Time below 70 mg/dL',
      'Time below 54 mg/dL',
      'Time above 180 mg/dL',
      'Time above 250 mg/dL',
      'Coefficient of variation',
      'Mean glucose',
      'Glucose management indicator (GMI)',
      'Standard deviation (SD)',
    ]);
    expect(rows[1]).toEqual({
      label: 'Time below 70 mg/dL',
      value: `${(g.bands.veryLow.percent + g.bands.low.percent).toFixed(1)}%`,
      target: '< 4%',
      met: g.targets[1]!.met,
    });
    expect(rows[5]!.target).toBe('≤ 36%');
    expect(rows[6]).toEqual({ label: 'Mean glucose', value: `${g.meanMgdl.toFixed(0)} mg/dL`, target: '—' });
  });

  it('leaves the targets the summary was not judged by blank (older or high-risk people)', () => {
    const summary = summariseReadings(readings, { period, targets: OLDER_OR_HIGH_RISK_TARGETS });
    const rows = metricRows(summary, 'mmol/L');
    expect(rows.map((r) => r.target)).toEqual(['> 50%', '< 1%', '—', '—', '< 10%', '≤ 36%', '—', '—', '—']);
    expect(rows[2]!.met).toBeUndefined();
    expect(rows[6]!.value).toMatch(/^\d+\.\d mmol\/L$/);
  });
});
