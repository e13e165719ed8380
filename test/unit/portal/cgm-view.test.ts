/** The glucose page's reading of a `$cgm-report` Bundle: targets and verdicts, figures, sufficiency, the profile's bins, the PDF. */
import { describe, expect, it } from 'vitest';
import { summariseReadings } from '../../../shared/cgm/metrics';
import { MGDL_PER_MMOLL } from '../../../shared/cgm/units';
import { agpBinsOf, cgmView, isAgpProfile, periodWords, reportEntries, targetWords } from '../../../shared/portal/cgm-view';
import { FROM, inRangeTrace, reportBundle, variedTrace } from './cgm-reports';

const DAY = 86_400_000;

describe('the glucose page view of a report', async () => {
  const readings = variedTrace(14);
  const bundle = await reportBundle(readings);
  const summary = summariseReadings(readings, { period: { from: FROM, to: FROM + 14 * DAY } });
  const view = cgmView(bundle)!;

  it('lists every consensus target with the figure, the target in words and the service’s verdict', () => {
    expect(view.targets.map((t) => t.metric)).toEqual(['timeInRange', 'timeBelow70', 'timeBelow54', 'timeAbove180', 'timeAbove250', 'cv']);
    for (const line of view.targets) {
      const check = summary.glucose!.targets.find((t) => t.metric === line.metric)!;
      expect(line.met).toBe(check.met);
      expect(line.percent).toBeCloseTo(check.value, 1);
    }
    expect(view.targets[0]!.sentence).toBe(`Time in range (70-180 mg/dL): ${summary.glucose!.targets[0]!.value.toFixed(1)}%. Target: more than 70%. Not met.`);
    expect(view.targets.find((t) => t.metric === 'timeAbove250')!.sentence).toMatch(/^Time above 250 mg\/dL: 2\.5%\. Target: less than 5%\. Met\.$/);
    expect(view.targets.find((t) => t.metric === 'cv')!.target).toBe('at most 36%');
  });

  it('shows the other figures, the period and that the data suffice', () => {
    expect(view.period).toBe('2026-03-01 to 2026-03-14');
    expect(view.hasReadings).toBe(true);
    expect(view.figures.map((f) => [f.label, f.text])).toEqual([
      ['Average glucose', `${Number(summary.glucose!.meanMgdl.toFixed(1))} mg/dL`],
      ['Glucose management indicator (GMI)', `${summary.glucose!.gmiPercent.toFixed(1)}%`],
      ['Days with sensor readings', '14'],
      ['Time the sensor was active', `${summary.sensorActivePercent.toFixed(1)}%`],
    ]);
    expect(view.sufficient).toBe(true);
    expect(view.sufficiency).toEqual([`Enough data for a reliable summary: 14 days, with your sensor active ${summary.sensorActivePercent.toFixed(1)}% of the time (at least 70% is needed).`]);
  });

  it('reads the profile back into the bins it was written from', () => {
    const bins = agpBinsOf(reportEntries(bundle).map((e) => e.resource).find(isAgpProfile));
    expect(bins).toHaveLength(96);
    summary.agp.bins.forEach((bin, i) => {
      expect(bins[i]!.readings).toBe(bin.readings);
      for (const p of [5, 25, 50, 75, 95] as const) expect(bins[i]!.percentiles?.[p]).toBeCloseTo(bin.percentiles![p], 2);
    });
    expect(view.agp).toEqual(bins);
  });

  it('reads a report in mmol/L: its labels and mean in mmol/L, the same verdicts, the profile brought back to mg/dL', async () => {
    const mmol = cgmView(await reportBundle(readings, 14, 'mmol/L'))!;
    expect([view.unit, mmol.unit]).toEqual(['mg/dL', 'mmol/L']);
    expect(mmol.targets.map((t) => t.label)).toEqual([
      'Time in range (3.9-10.0 mmol/L)',
      'Time below 3.9 mmol/L',
      'Time below 3.0 mmol/L',
      'Time above 10.0 mmol/L',
      'Time above 13.9 mmol/L',
      'Coefficient of variation',
    ]);
    expect(mmol.targets.map((t) => [t.percent, t.met])).toEqual(view.targets.map((t) => [t.percent, t.met]));
    const mean = mmol.figures.find((f) => f.key === 'mean')!.text;
    expect(mean).toMatch(/^\d+\.\d{1,2} mmol\/L$/);
    expect(parseFloat(mean)).toBeCloseTo(summary.glucose!.meanMgdl / MGDL_PER_MMOLL, 2);
    expect(mmol.figures.slice(1)).toEqual(view.figures.slice(1));
    mmol.agp.forEach((bin, i) => {
      for (const p of [5, 25, 50, 75, 95] as const) expect(Math.abs(bin.percentiles![p] - view.agp[i]!.percentiles![p])).toBeLessThan(0.1);
    });
  });

  it('finds the PDF in the DiagnosticReport', () => {
    expect(Buffer.from(view.pdf!.base64, 'base64').subarray(0, 5).toString()).toBe('%PDF-');
    expect(view.pdf!.title).toBe('Ambulatory Glucose Profile (AGP) report, 2026-03-01 – 2026-03-14');
  });

  it('says why a short or thin period is not enough', async () => {
    const thin = cgmView(await reportBundle(inRangeTrace(14).filter((r) => (r.at - FROM) % DAY < DAY / 2)))!;
    expect(thin.sufficient).toBe(false);
    expect(thin.sufficiency).toEqual(['Not enough data for a reliable summary, so read these figures with care.', 'Your sensor was active 50.0% of the time; at least 70% is needed.']);
    const short = cgmView(await reportBundle(inRangeTrace(7), 7))!;
    expect(short.sufficiency[1]).toBe('The summary covers 7.0 days; at least 14 are needed.');
    expect(short.targets.every((t) => t.met)).toBe(true);
  });

  it('has no figures, targets or profile without readings', async () => {
    const empty = cgmView(await reportBundle([]))!;
    expect(empty).toMatchObject({ hasReadings: false, sufficient: false, sufficiency: [], targets: [], figures: [], agp: [] });
    expect(empty.pdf).toBeDefined();
  });

  it('is nothing for a Bundle without a summary', () => {
    expect(cgmView({ resourceType: 'Bundle', entry: [] })).toBeUndefined();
    expect(cgmView('not a bundle')).toBeUndefined();
  });

  it('writes periods and targets in words', () => {
    expect(periodWords({ start: '2026-03-01T09:12:00.123-08:00', end: '2026-03-15T09:11:59.999-08:00' })).toBe('2026-03-01 09:12 to 2026-03-15 09:11');
    expect(targetWords({ metric: 'timeBelow70', comparator: '<', percent: 4 })).toBe('less than 4%');
  });
});
