/** The page's AGP chart: the report's scales and curves in an SVG box, and the chart in words. */
import { describe, expect, it } from 'vitest';
import type { AgpBin } from '../../../shared/cgm/agp';
import { agpChart, agpDescription, AGP_CHART_SIZE, targetRangeWords } from '../../../shared/portal/agp-chart';

/** Every bin the same: 5th 60, 25th 90, median 120, 75th 150, 95th 200 mg/dL. */
const flat: AgpBin[] = Array.from({ length: 96 }, (_, i) => ({ startMinute: i * 15, readings: 14, percentiles: { 5: 60, 25: 90, 50: 120, 75: 150, 95: 200 } }));

describe('the AGP chart of the glucose page', () => {
  const chart = agpChart(flat, 15);
  const yOf = (mgdl: number) => chart.plot.height * (1 - mgdl / 350);

  it('fits its box, the day across and 0-350 mg/dL up, with the target band and thresholds', () => {
    expect([chart.width, chart.height]).toEqual([AGP_CHART_SIZE.width, AGP_CHART_SIZE.height]);
    expect(chart.plot.x + chart.plot.width).toBeLessThanOrEqual(chart.width);
    expect(chart.plot.y + chart.plot.height).toBeLessThanOrEqual(chart.height);
    expect(chart.hours.map((h) => h.label)).toEqual(['00:00', '03:00', '06:00', '09:00', '12:00', '15:00', '18:00', '21:00', '24:00']);
    expect(chart.hours.at(-1)!.x).toBeCloseTo(chart.plot.width, 6);
    expect(chart.glucose.map((g) => [g.label, g.strong])).toEqual([['0', false], ['54', false], ['70', true], ['180', true], ['250', false], ['350', false]]);
    expect(chart.targetBand.y).toBeCloseTo(yOf(180), 6);
    expect(chart.targetBand.height).toBeCloseTo(yOf(70) - yOf(180), 6);
    expect(chart.targetLines).toEqual([yOf(70), yOf(180)].map((y) => expect.closeTo(y, 6)));
    expect(chart.dashedLines).toEqual([yOf(54), yOf(250)].map((y) => expect.closeTo(y, 6)));
  });

  it('draws the median through each bin’s figure and the bands between their percentiles', () => {
    // Every command's points are x,y pairs: on a flat profile every y is the median's.
    const ys = (chart.paths.median.match(/-?[\d.]+/g) ?? []).map(Number).filter((_, i) => i % 2 === 1);
    expect(chart.paths.median.startsWith('M0,')).toBe(true);
    expect(new Set(ys.map((y) => y.toFixed(2)))).toEqual(new Set([yOf(120).toFixed(2)]));
    expect(chart.paths.outer).toContain(yOf(200).toFixed(2).replace(/\.?0+$/, ''));
    expect(chart.paths.inner).toContain(yOf(90).toFixed(2).replace(/\.?0+$/, ''));
    expect(chart.colours.median).toMatch(/^#[0-9a-f]{6}$/);
  });

  it('says in words what it shows, and that there is nothing to draw without readings', () => {
    expect(chart.description).toBe(
      'Ambulatory glucose profile: over the time of day, your median glucose ranged from 120 to 120 mg/dL; the middle half of your readings lay between 90 and 150 mg/dL, and 90% of them between 60 and 200 mg/dL. The target range is 70 to 180 mg/dL.',
    );
    const empty = agpChart(flat.map(({ startMinute }) => ({ startMinute, readings: 0 })), 15);
    expect(empty.paths).toEqual({ outer: '', inner: '', median: '' });
    expect(agpDescription([])).toBe('No glucose readings to draw.');
  });

  it('labels the same geometry in mmol/L, to a tenth', () => {
    const mmol = agpChart(flat, 15, 'mmol/L');
    expect(mmol.glucose.map((g) => [g.label, g.strong])).toEqual([['0.0', false], ['3.0', false], ['3.9', true], ['10.0', true], ['13.9', false], ['19.4', false]]);
    expect(mmol.glucose.map((g) => g.y)).toEqual(chart.glucose.map((g) => g.y));
    expect(mmol.paths).toEqual(chart.paths);
    expect(mmol.description).toBe(
      'Ambulatory glucose profile: over the time of day, your median glucose ranged from 6.7 to 6.7 mmol/L; the middle half of your readings lay between 5.0 and 8.3 mmol/L, and 90% of them between 3.3 and 11.1 mmol/L. The target range is 3.9 to 10.0 mmol/L.',
    );
    expect(targetRangeWords('mg/dL')).toBe('70 to 180 mg/dL');
  });
});
