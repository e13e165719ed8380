/**
 * The summary as FHIR R5: the CGM guide's codes, units and cardinalities, and every resource valid
 * to the R5 validator (shared/fhir/validation), alone and as a Bundle.
 */
import { describe, expect, it } from 'vitest';
import { cgmCodeSystem, cgmEntries, cgmResources, effectivePeriodOf, membersOf, type CgmEntry } from '../../../shared/cgm/fhir';
import { summariseReadings } from '../../../shared/cgm/metrics';
import { fixedClock, UTC_CLOCK, zoneClock } from '../../../shared/cgm/zones';
import { hasErrors, validateResource } from '../../../shared/fhir/validation';
import { DAY, HOUR, trace } from '../../support/cgm';

/** 2026-03-01 00:00 at -08:00. */
const FROM = Date.parse('2026-03-01T08:00:00Z');
const PERIOD = { from: FROM, to: FROM + 14 * DAY };
const readings = trace({
  start: FROM,
  everyMinutes: 5,
  days: 14,
  value: (i, at) => Math.round(120 + 70 * Math.sin((2 * Math.PI * ((at - FROM) % DAY)) / DAY) + ((i * 13) % 31)),
  offset: () => -480,
  missing: (at) => at >= FROM + 20 * HOUR && at < FROM + 26 * HOUR,
});
const summary = summariseReadings(readings, { period: PERIOD });
let next = 0;
const fullUrlOf = () => `urn:uuid:00000000-0000-4000-8000-${String((next += 1)).padStart(12, '0')}`;

const codeOf = (entry: CgmEntry) => (entry.resource.code as { coding: Array<{ system: string; code: string }> }).coding[0]!;
const valueOf = (entry: CgmEntry) => entry.resource.valueQuantity as { value: number; unit: string; system: string; code: string };

async function expectValid(resource: unknown): Promise<void> {
  const issues = await validateResource(resource);
  expect(hasErrors(issues), JSON.stringify(issues.filter((i) => i.severity === 'error'))).toBe(false);
}

describe('the summary in mg/dL', () => {
  const resources = cgmResources(summary, { subject: 'Patient/7', periodClock: fixedClock(-480), fullUrlOf });
  const { mean, timesInRanges: ranges, gmi, cv, daysOfWear: days, sensorActive: active } = resources;

  it('is the summary panel, its members referenced from hasMember in the guide order, then the profile', () => {
    expect(codeOf(resources.summary)).toMatchObject({ system: 'http://loinc.org', code: '107931-8' });
    expect(membersOf(resources).map((m) => codeOf(m).code)).toEqual(['97507-8', '106793-3', '97506-0', '104638-2', '104636-6', '104637-4']);
    expect(resources.summary.resource.hasMember).toEqual([...membersOf(resources), resources.agp].map((m) => ({ reference: m.fullUrl })));
    expect(cgmEntries(resources)).toHaveLength(8);
  });

  it('gives each Observation its status, category, subject and effective period, whole local days as dates', () => {
    for (const { resource } of cgmEntries(resources)) {
      expect(resource).toMatchObject({
        resourceType: 'Observation',
        status: 'final',
        category: [{ coding: [{ system: 'http://terminology.hl7.org/CodeSystem/observation-category', code: 'laboratory' }] }],
        subject: { reference: 'Patient/7' },
        effectivePeriod: { start: '2026-03-01', end: '2026-03-14' },
      });
    }
  });

  it('measures each figure in the unit the guide fixes', () => {
    const ucum = (code: string, unit: string) => ({ system: 'http://unitsofmeasure.org', code, unit });
    expect(valueOf(mean)).toEqual({ value: Number(summary.glucose!.meanMgdl.toFixed(1)), ...ucum('mg/dL', 'mg/dl') });
    expect(valueOf(gmi)).toEqual({ value: Number(summary.glucose!.gmiPercent.toFixed(2)), ...ucum('%', '%') });
    expect(valueOf(cv)).toEqual({ value: Number(summary.glucose!.cvPercent.toFixed(2)), ...ucum('%', '%') });
    expect(valueOf(days)).toEqual({ value: 14, ...ucum('d', 'days') });
    expect(valueOf(active)).toEqual({ value: Number(summary.sensorActivePercent.toFixed(2)), ...ucum('%', '%') });
  });

  it('gives the times in ranges one component per band, in %, with the targets that judge a band whole', () => {
    const components = ranges.resource.component as Array<Record<string, any>>;
    expect(components.map((c) => c.code.coding[0].code)).toEqual(['104642-4', '104641-6', '97510-2', '104640-8', '104639-0']);
    const bands = ['veryLow', 'low', 'target', 'high', 'veryHigh'] as const;
    components.forEach((c, i) => expect(c.valueQuantity).toMatchObject({ value: Number(summary.glucose!.bands[bands[i]!].percent.toFixed(2)), code: '%' }));
    expect(components.map((c) => c.interpretation?.[0].coding[0].code)).toEqual(['N', undefined, summary.glucose!.targets[0]!.met ? 'N' : 'L', undefined, 'N']);
    expect(components[2]!.referenceRange).toEqual([{ text: 'target > 70%' }]);
  });

  it('notes every target', () => {
    const notes = (resources.summary.resource.note as Array<{ text: string }>).map((n) => n.text);
    expect(notes).toHaveLength(6);
    expect(notes[1]).toMatch(/^Time below 70 mg\/dL: [\d.]+% \(target < 4%\): (met|not met)\.$/);
  });

  it('draws the profile as a series per percentile over the bins holding readings', () => {
    const components = resources.agp.resource.component as Array<Record<string, any>>;
    expect(codeOf(resources.agp)).toEqual({ system: cgmCodeSystem(), code: 'agp', display: 'Ambulatory glucose profile' });
    expect(components.map((c) => c.code.coding[0].code)).toEqual(['p5', 'p25', 'p50', 'p75', 'p95', 'bin-readings']);
    const median = components[2]!.valueSampledData;
    expect(median).toMatchObject({ origin: { value: 0, code: 'mg/dL' }, intervalUnit: 'min', dimensions: 1 });
    expect(median.offsets.split(' ')).toHaveLength(96);
    expect(median.data.split(' ').map(Number)).toEqual(summary.agp.bins.map((b) => Number(b.percentiles![50].toFixed(2))));
    expect(components[5]!.valueSampledData.data.split(' ').map(Number)).toEqual(summary.agp.bins.map((b) => b.readings));
  });

  it('is valid R5, each resource and the whole as a Bundle', async () => {
    for (const { resource } of cgmEntries(resources)) await expectValid(resource);
    await expectValid({ resourceType: 'Bundle', type: 'collection', entry: cgmEntries(resources) });
  });
});

describe('the summary in mmol/L', () => {
  const resources = cgmResources(summary, { subject: 'Patient/7', unit: 'mmol/L', fullUrlOf });

  it('codes the mean as a substance concentration, and draws the profile in mmol/L', async () => {
    expect(codeOf(resources.mean).code).toBe('105273-7');
    expect(valueOf(resources.mean)).toMatchObject({ value: Number((summary.glucose!.meanMgdl / 18.0156).toFixed(2)), code: 'mmol/L', unit: 'mmol/l' });
    const median = (resources.agp.resource.component as Array<Record<string, any>>)[2]!.valueSampledData;
    expect(median.origin).toMatchObject({ code: 'mmol/L' });
    expect(Number(median.data.split(' ')[0])).toBeCloseTo(summary.agp.bins[0]!.percentiles![50] / 18.0156, 2);
    for (const { resource } of cgmEntries(resources)) await expectValid(resource);
  });

  it('names the thresholds in mmol/L', () => {
    const notes = (resources.summary.resource.note as Array<{ text: string }>).map((n) => n.text);
    expect(notes[0]).toMatch(/^Time in range \(3\.9-10\.0 mmol\/L\)/);
  });
});

describe('a period without readings', () => {
  const empty = summariseReadings([], { period: PERIOD });
  const resources = cgmResources(empty, { subject: 'Patient/7', fullUrlOf });

  it('keeps every member, a figure it cannot give marked absent, and says why', async () => {
    const { mean, timesInRanges: ranges, gmi, cv, daysOfWear: days, sensorActive: active } = resources;
    for (const m of [mean, gmi, cv]) expect(m.resource).toMatchObject({ dataAbsentReason: { coding: [{ code: 'not-performed' }] } });
    for (const c of ranges.resource.component as Array<Record<string, unknown>>) expect(c.dataAbsentReason).toBeDefined();
    expect([valueOf(days).value, valueOf(active).value]).toEqual([0, 0]);
    expect((resources.summary.resource.note as Array<{ text: string }>).map((n) => n.text)).toEqual([
      'Not sufficient: the period holds no glucose readings.',
      'Not sufficient: the sensor was active 0% of the period, and at least 70% is needed.',
    ]);
    const agp = resources.agp.resource.component as Array<Record<string, any>>;
    expect(agp[0]!.valueSampledData).toEqual({ origin: { value: 0, unit: 'mg/dl', system: 'http://unitsofmeasure.org', code: 'mg/dL' }, intervalUnit: 'min', dimensions: 1, interval: 15 });
    for (const { resource } of cgmEntries(resources)) await expectValid(resource);
  });
});

describe('the effective period', () => {
  it('is dates for whole days on the clock it is written on, the end the last day held', () => {
    expect(effectivePeriodOf(PERIOD, fixedClock(-480))).toEqual({ start: '2026-03-01', end: '2026-03-14' });
    expect(effectivePeriodOf({ from: Date.parse('2026-03-01T00:00:00Z'), to: Date.parse('2026-03-15T00:00:00Z') }, UTC_CLOCK)).toEqual({ start: '2026-03-01', end: '2026-03-14' });
  });

  it('is date-times otherwise, the end the last millisecond held', () => {
    expect(effectivePeriodOf(PERIOD, UTC_CLOCK)).toEqual({ start: '2026-03-01T08:00:00Z', end: '2026-03-15T07:59:59.999Z' });
    expect(effectivePeriodOf({ from: FROM + HOUR, to: FROM + 2 * DAY }, fixedClock(-480))).toEqual({ start: '2026-03-01T01:00:00-08:00', end: '2026-03-02T23:59:59.999-08:00' });
  });

  it("reads each end at its own offset on a time zone's clock, across a change of daylight saving time", () => {
    const losAngeles = zoneClock('America/Los_Angeles')!;
    // 2026-03-01 00:00 PST to 2026-03-15 00:00 PDT: 14 local days, one of them 23 hours.
    const local = { from: Date.parse('2026-03-01T08:00:00Z'), to: Date.parse('2026-03-15T07:00:00Z') };
    expect(effectivePeriodOf(local, losAngeles)).toEqual({ start: '2026-03-01', end: '2026-03-14' });
    expect(effectivePeriodOf({ from: local.from, to: local.to + HOUR }, losAngeles)).toEqual({ start: '2026-03-01T00:00:00-08:00', end: '2026-03-15T00:59:59.999-07:00' });
    expect(effectivePeriodOf({ from: local.from + HOUR, to: local.to }, losAngeles)).toEqual({ start: '2026-03-01T01:00:00-08:00', end: '2026-03-14T23:59:59.999-07:00' });
  });
});
