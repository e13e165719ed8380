/**
 * What the glucose page shows (docs/portal.md#the-glucose-page), read from the Bundle of
 * `Patient/<id>/$cgm-report` (docs/cgm.md#the-report-operation-patientidcgm-report): each consensus
 * target with its figure and whether it is met, the other figures, whether the data suffice, the
 * profile's bins for the chart, and the PDF. Pure functions over the Bundle's JSON, shared by the
 * page and the unit tests; every sentence is the portal's own plain words.
 *
 * The page asks for the consensus's standard targets, in mg/dL or mmol/L as the patient chooses: the
 * unit is read from the Bundle (the mean glucose member is coded for it), and the profile's bins are
 * brought to mg/dL, the unit the chart computes in.
 * A verdict is the service's own where the figure carries one (an `interpretation`: time in range,
 * below 54, above 250, CV, judged on the unrounded figure); the two sums the guide does not carry
 * alone (below 70, above 180) are judged on the sum of their bands as written.
 */
import { AGP_PERCENTILES, type AgpBin, type AgpPercentile } from '../cgm/agp';
import {
  AGP_CODE, BIN_READINGS_CODE, COEFFICIENT_OF_VARIATION, DAYS_OF_WEAR, GMI, LOINC_SYSTEM, MEAN_GLUCOSE, percentileCode, SENSOR_ACTIVE, SUMMARY_PANEL, TIME_IN_BAND,
  TIMES_IN_RANGES,
} from '../cgm/codes';
import { BANDS_OF, CONSENSUS_TARGETS, meets, METRIC_LABELS, SUFFICIENT_ACTIVE_PERCENT, SUFFICIENT_DAYS, type Target, type TargetMetric } from '../cgm/thresholds';
import { BIN_MINUTES, BINS_PER_DAY } from '../cgm/time-of-day';
import { GLUCOSE_UNITS, mgdlOf, type GlucoseUnit } from '../cgm/units';
import { isObject, type JsonObject } from '../json';
import type { Resource } from './records';

/** The unit the page shows until the patient chooses another. */
export const DEFAULT_UNIT: GlucoseUnit = 'mg/dL';

export interface ReportEntry {
  fullUrl: string;
  resource: Resource;
}

/** The entries of a report Bundle that have a `fullUrl` and a resource. */
export function reportEntries(bundle: unknown): ReportEntry[] {
  const entries = isObject(bundle) && Array.isArray(bundle.entry) ? bundle.entry : [];
  return entries.flatMap((e: unknown) =>
    isObject(e) && typeof e.fullUrl === 'string' && isObject(e.resource) && typeof e.resource.resourceType === 'string' ? [{ fullUrl: e.fullUrl, resource: e.resource as Resource }] : [],
  );
}

const codings = (concept: unknown): JsonObject[] => (isObject(concept) && Array.isArray(concept.coding) ? concept.coding.filter(isObject) : []);

/** The LOINC code of a resource or component, if it has one. */
export function loincOf(holder: unknown): string | undefined {
  const code = codings(isObject(holder) ? holder.code : undefined).find((c) => c.system === LOINC_SYSTEM)?.code;
  return typeof code === 'string' ? code : undefined;
}

/** Whether a resource is the service's ambulatory glucose profile (its own code, under any deployment's namespace). */
export const isAgpProfile = (resource: Resource): boolean =>
  resource.resourceType === 'Observation' && codings(resource.code).some((c) => c.code === AGP_CODE.code && typeof c.system === 'string' && c.system.endsWith('/CodeSystem/cgm'));

const quantityOf = (holder: unknown): { value: number; code: string } | undefined => {
  const q = isObject(holder) ? holder.valueQuantity : undefined;
  return isObject(q) && typeof q.value === 'number' ? { value: q.value, code: typeof q.code === 'string' ? q.code : '' } : undefined;
};

/** Whether a figure's interpretation says its target is met (`N`), not met (anything else), or says nothing. */
function interpretedMet(holder: unknown): boolean | undefined {
  const list = isObject(holder) && Array.isArray(holder.interpretation) ? holder.interpretation : [];
  const code = list.flatMap(codings)[0]?.code;
  return typeof code === 'string' ? code === 'N' : undefined;
}

const COMPARATOR_WORDS: Readonly<Record<Target['comparator'], string>> = { '>': 'more than', '<': 'less than', '<=': 'at most' };

export const percentText = (value: number): string => `${value.toFixed(1)}%`;

/** A target in words: `more than 70%`. */
export const targetWords = (target: Target): string => `${COMPARATOR_WORDS[target.comparator]} ${target.percent}%`;

export interface TargetLine {
  metric: TargetMetric;
  label: string;
  percent: number;
  target: string;
  met: boolean;
  /** `Time in range (70-180 mg/dL): 72.4%. Target: more than 70%. Met.` */
  sentence: string;
}

export interface FigureLine {
  key: 'mean' | 'gmi' | 'daysOfWear' | 'sensorActive';
  label: string;
  text: string;
}

export interface CgmView {
  /** The glucose unit of the report's figures and labels. */
  unit: GlucoseUnit;
  /** The period in words: `2026-03-01 to 2026-03-14`, or with times when it does not run from midnight to midnight. */
  period: string;
  hasReadings: boolean;
  sufficient: boolean;
  /** Why the data suffice or not, in plain sentences. */
  sufficiency: string[];
  targets: TargetLine[];
  figures: FigureLine[];
  /** The profile's 96 bins, in mg/dL whatever the report's unit (empty without readings). */
  agp: AgpBin[];
  /** The AGP report as the DiagnosticReport carries it. */
  pdf: { base64: string; title: string } | undefined;
}

/** The sentence a patient without sensor readings sees instead of a summary. */
export const NO_READINGS =
  'There are no glucose sensor readings in your study account from the last 14 days, so there is no summary to show. Once your sensor’s readings reach the study, your summary will appear here.';

const MS_PER_DAY = 86_400_000;

/** The period's length in days: FHIR's ends are inclusive (a date's whole day, a date-time's last millisecond). */
function periodDays(start: string, end: string): number {
  const last = Date.parse(end) + (end.length === 10 ? MS_PER_DAY : 1);
  return (last - Date.parse(start)) / MS_PER_DAY;
}

/** A FHIR date or date-time as the page writes it: the date, and the time to the minute when there is one. */
const when = (value: string): string => (value.length > 10 ? `${value.slice(0, 10)} ${value.slice(11, 16)}` : value);

export const periodWords = (period: { start: string; end: string }): string => `${when(period.start)} to ${when(period.end)}`;

function sufficiencyOf(hasReadings: boolean, days: number, activePercent: number): { sufficient: boolean; sentences: string[] } {
  if (!hasReadings) return { sufficient: false, sentences: [] };
  const shortfalls: string[] = [];
  // A hundredth of a day: the ends of a period ending now are written to the millisecond.
  if (days < SUFFICIENT_DAYS - 0.01) shortfalls.push(`The summary covers ${days.toFixed(1)} days; at least ${SUFFICIENT_DAYS} are needed.`);
  if (activePercent < SUFFICIENT_ACTIVE_PERCENT) shortfalls.push(`Your sensor was active ${percentText(activePercent)} of the time; at least ${SUFFICIENT_ACTIVE_PERCENT}% is needed.`);
  if (shortfalls.length > 0) return { sufficient: false, sentences: ['Not enough data for a reliable summary, so read these figures with care.', ...shortfalls] };
  return {
    sufficient: true,
    sentences: [`Enough data for a reliable summary: ${Math.round(days)} days, with your sensor active ${percentText(activePercent)} of the time (at least ${SUFFICIENT_ACTIVE_PERCENT}% is needed).`],
  };
}

/** Each target of the consensus with its figure and verdict, from the times in ranges panel and the CV. */
function targetLines(ranges: Resource | undefined, cv: Resource | undefined, unit: GlucoseUnit): TargetLine[] {
  const components = isObject(ranges) && Array.isArray(ranges.component) ? ranges.component.filter(isObject) : [];
  const bandComponent = new Map(Object.entries(TIME_IN_BAND).map(([band, code]) => [band, components.find((c) => loincOf(c) === code.code)]));
  return CONSENSUS_TARGETS.flatMap((target): TargetLine[] => {
    let percent: number | undefined;
    let judged: boolean | undefined;
    if (target.metric === 'cv') {
      percent = quantityOf(cv)?.value;
      judged = interpretedMet(cv);
    } else {
      const bands = BANDS_OF[target.metric].map((band) => bandComponent.get(band));
      const values = bands.map((c) => quantityOf(c)?.value);
      if (values.every((v) => v !== undefined)) percent = values.reduce((a: number, v) => a + v!, 0);
      // A figure of one band carries the service's verdict on it.
      if (bands.length === 1) judged = interpretedMet(bands[0]);
    }
    if (percent === undefined) return [];
    const met = judged ?? meets(target, percent);
    const label = METRIC_LABELS[target.metric][unit];
    const words = targetWords(target);
    return [{ metric: target.metric, label, percent, target: words, met, sentence: `${label}: ${percentText(percent)}. Target: ${words}. ${met ? 'Met' : 'Not met'}.` }];
  });
}

function figureLines(find: (code: string) => Resource | undefined, unit: GlucoseUnit): FigureLine[] {
  const lines: FigureLine[] = [];
  const mean = quantityOf(find(MEAN_GLUCOSE[unit].code));
  if (mean) lines.push({ key: 'mean', label: 'Average glucose', text: `${mean.value} ${mean.code}` });
  const gmi = quantityOf(find(GMI.code));
  if (gmi) lines.push({ key: 'gmi', label: 'Glucose management indicator (GMI)', text: percentText(gmi.value) });
  const days = quantityOf(find(DAYS_OF_WEAR.code));
  if (days) lines.push({ key: 'daysOfWear', label: 'Days with sensor readings', text: String(days.value) });
  const active = quantityOf(find(SENSOR_ACTIVE.code));
  if (active) lines.push({ key: 'sensorActive', label: 'Time the sensor was active', text: percentText(active.value) });
  return lines;
}

/** One series of the profile: minute of the day to value, from a `valueSampledData` with `offsets`. */
function seriesOf(profile: Resource | undefined, code: string): Map<number, number> {
  const components = isObject(profile) && Array.isArray(profile.component) ? profile.component.filter(isObject) : [];
  const data = components.find((c) => codings(c.code).some((coding) => coding.code === code))?.valueSampledData;
  if (!isObject(data) || typeof data.offsets !== 'string' || typeof data.data !== 'string') return new Map();
  const offsets = data.offsets.trim().split(/\s+/).map(Number);
  const values = data.data.trim().split(/\s+/).map(Number);
  return new Map(offsets.flatMap((minute, i) => (Number.isFinite(minute) && Number.isFinite(values[i]) ? [[minute, values[i]!] as [number, number]] : [])));
}

/** The profile's bins in mg/dL, from a profile in either glucose unit; none when its unit is neither. */
export function agpBinsOf(profile: Resource | undefined): AgpBin[] {
  const components = isObject(profile) && Array.isArray(profile.component) ? profile.component.filter(isObject) : [];
  const origin = components.map((c) => (isObject(c.valueSampledData) ? c.valueSampledData.origin : undefined)).find(isObject);
  const unit = GLUCOSE_UNITS.find((u) => u === origin?.code);
  if (!unit) return [];
  const series = new Map(AGP_PERCENTILES.map((p) => [p, seriesOf(profile, percentileCode(p).code)]));
  const readings = seriesOf(profile, BIN_READINGS_CODE.code);
  return Array.from({ length: BINS_PER_DAY }, (_, i): AgpBin => {
    const startMinute = i * BIN_MINUTES;
    const figures = AGP_PERCENTILES.map((p) => {
      const value = series.get(p)!.get(startMinute);
      return value === undefined ? undefined : mgdlOf(value, unit);
    });
    const bin: AgpBin = { startMinute, readings: readings.get(startMinute) ?? 0 };
    if (figures.every((f) => f !== undefined)) bin.percentiles = Object.fromEntries(AGP_PERCENTILES.map((p, k) => [p, figures[k]!])) as Record<AgpPercentile, number>;
    return bin;
  });
}

function pdfOf(report: Resource | undefined): CgmView['pdf'] {
  const forms = isObject(report) && Array.isArray(report.presentedForm) ? report.presentedForm.filter(isObject) : [];
  const pdf = forms.find((f) => f.contentType === 'application/pdf' && typeof f.data === 'string');
  return pdf ? { base64: pdf.data as string, title: typeof pdf.title === 'string' ? pdf.title : 'AGP report' } : undefined;
}

/** The page's view of a report Bundle; undefined when the Bundle holds no summary panel. */
export function cgmView(bundle: unknown): CgmView | undefined {
  const resources = reportEntries(bundle).map((e) => e.resource);
  const observations = resources.filter((r) => r.resourceType === 'Observation');
  const find = (code: string) => observations.find((r) => loincOf(r) === code);
  const summary = find(SUMMARY_PANEL.code);
  const period = isObject(summary) ? summary.effectivePeriod : undefined;
  if (!summary || !isObject(period) || typeof period.start !== 'string' || typeof period.end !== 'string') return undefined;
  const ends = { start: period.start, end: period.end };
  // The mean is the one member coded by its unit; without readings it has no value, and the view no unit of its own.
  const unit = GLUCOSE_UNITS.find((u) => find(MEAN_GLUCOSE[u].code)) ?? DEFAULT_UNIT;
  const hasReadings = quantityOf(find(MEAN_GLUCOSE[unit].code)) !== undefined;
  const { sufficient, sentences } = sufficiencyOf(hasReadings, periodDays(ends.start, ends.end), quantityOf(find(SENSOR_ACTIVE.code))?.value ?? 0);
  return {
    unit,
    period: periodWords(ends),
    hasReadings,
    sufficient,
    sufficiency: sentences,
    targets: hasReadings ? targetLines(find(TIMES_IN_RANGES.code), find(COEFFICIENT_OF_VARIATION.code), unit) : [],
    figures: hasReadings ? figureLines(find, unit) : [],
    agp: hasReadings ? agpBinsOf(observations.find(isAgpProfile)) : [],
    pdf: pdfOf(resources.find((r) => r.resourceType === 'DiagnosticReport' && loincOf(r) === SUMMARY_PANEL.code)),
  };
}
