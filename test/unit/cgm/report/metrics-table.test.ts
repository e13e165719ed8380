/** The metrics table's rows against the summary: each figure with the target it was judged by. */
import { describe, expect, it } from 'vitest';
import { summariseReadings } from '../../../../shared/cgm/metrics';
import { metricRows } from '../../../../shared/cgm/report/metrics-table';
import { OLDER_OR_HIGH_RISK_TARGETS } from '../../../../shared/cgm/thresholds';
import { DAY } from '../../../support/cgm';
import { FROM, variedTrace } from './fixtures';

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
