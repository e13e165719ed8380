/**
 * A period's CGM summary as FHIR R5 Observations shaped as HL7's CGM guide profiles them
 * (docs/cgm.md#the-fhir-resources; codes.ts holds the guide's codes and units):
 *
 * - the summary panel (LOINC 107931-8) whose `hasMember` references, in this order, the mean
 *   glucose (97507-8 in mg/dL, or 105273-7 in mmol/L), the times in ranges panel (106793-3, a
 *   component per band), GMI (97506-0), CV (104638-2), days of wear (104636-6, in days) and sensor
 *   active % (104637-4), then the ambulatory glucose profile (below): the guide's member slices are
 *   open, so the profile rides along as one more member;
 * - each with status `final`, category `laboratory` (what the guide's examples and write scopes
 *   use), `subject`, and an `effectivePeriod` with `start` and `end`: dates when the period is whole
 *   days on the clock it is written on (a fixed offset or a time zone, zones.ts; `end` the last day,
 *   as FHIR reads a date's whole day), else date-times (`end` the period's last millisecond);
 * - percentages, GMI and CV to two decimal places (the guide asks for at least two for the times in
 *   ranges); the mean to one decimal in mg/dL and two in mmol/L; days of wear whole;
 * - a figure the period cannot give (no readings: no mean, CV, GMI or times in ranges) has a
 *   `dataAbsentReason` of `not-performed` in place of its value, so the summary keeps its shape;
 * - the targets (thresholds.ts): the figures a target judges whole (time in range, below 54, above
 *   250, CV) carry it as a `referenceRange` text and an `interpretation` (N met, H above it, L below
 *   it); the summary's `note` lists every target and, when the data are not sufficient, why.
 *
 * The ambulatory glucose profile is an Observation of the service's own code (`agp` in
 * `<namespace>/CodeSystem/cgm`): one component per percentile (5th, 25th, 50th, 75th, 95th) and one
 * of the readings per bin, each a `valueSampledData` whose `offsets` are the minutes after local
 * midnight of the bins holding readings (bins without one are left out, rather than written as an
 * error code), in `intervalUnit` `min`, over an origin of 0 in the chosen unit (a period without
 * readings: an `interval` of 15 and no data, as SampledData must have one or the other).
 *
 * The resources carry no `meta.profile`: the guide's profiles are R4 StructureDefinitions, and these
 * are R5 resources of the same shape. References between them are the entries' `fullUrl`s
 * (`urn:uuid:` unless the caller names them), so a Bundle carries them as they are.
 */
import { randomUUID } from 'node:crypto';
import { config } from '../config';
import { OBSERVATION_CATEGORY_SYSTEM } from '../omh/categories';
import { UCUM_SYSTEM } from '../omh/quantities';
import { AGP_PERCENTILES, type AgpBin } from './agp';
import {
  AGP_CODE, BIN_READINGS_CODE, COEFFICIENT_OF_VARIATION, DAYS_OF_WEAR, GMI, IG_UNITS, LOINC_SYSTEM, MEAN_GLUCOSE, percentileCode, SENSOR_ACTIVE, SUMMARY_PANEL,
  TIME_IN_BAND, TIMES_IN_RANGES, type LoincCode,
} from './codes';
import type { CgmPeriod, CgmSummary, TargetCheck } from './metrics';
import { BANDS, METRIC_LABELS, type Band, type TargetMetric } from './thresholds';
import { BIN_MINUTES, dateAt, dateTimeAt, isMidnightAt } from './time-of-day';
import { glucoseIn, shownGlucose, type GlucoseUnit } from './units';
import { UTC_CLOCK, type Clock } from './zones';

export type FhirResource = Record<string, unknown> & { resourceType: string };

export interface CgmEntry {
  fullUrl: string;
  resource: FhirResource;
}

/** The summary panel, its members as the guide names them, and the profile. */
export interface CgmResources {
  summary: CgmEntry;
  mean: CgmEntry;
  timesInRanges: CgmEntry;
  gmi: CgmEntry;
  cv: CgmEntry;
  daysOfWear: CgmEntry;
  sensorActive: CgmEntry;
  agp: CgmEntry;
}

/** The guide's members of the summary, in its order. */
export const membersOf = (r: Omit<CgmResources, 'summary' | 'agp'>): CgmEntry[] => [r.mean, r.timesInRanges, r.gmi, r.cv, r.daysOfWear, r.sensorActive];

export interface CgmRenderOptions {
  /** The patient's reference, `Patient/<id>`. */
  subject: string;
  /** The unit of the glucose figures (mean, the profile); mg/dL when not given. */
  unit?: GlucoseUnit;
  /** The clock the period's ends are written on (a fixed offset or a time zone's, zones.ts); UTC when not given. */
  periodClock?: Clock;
  /** A new entry's `fullUrl`; `urn:uuid:<random>` when not given. */
  fullUrlOf?: () => string;
}

/** The code system of the service's own CGM concepts (the profile and its components), under the deployment's namespace. */
export const cgmCodeSystem = (): string => `${config().namespace}/CodeSystem/cgm`;


/** The band each of the guide's components judges by a target on the same figure. */
const TARGET_OF_BAND: Partial<Record<Band, TargetMetric>> = { veryLow: 'timeBelow54', target: 'timeInRange', veryHigh: 'timeAbove250' };

/** FHIR's dataAbsentReason for a figure the period's readings cannot give. */
const NOT_PERFORMED = { coding: [{ system: 'http://terminology.hl7.org/CodeSystem/data-absent-reason', code: 'not-performed', display: 'Not Performed' }] };

const INTERPRETATION_SYSTEM = 'http://terminology.hl7.org/CodeSystem/v3-ObservationInterpretation';

const round = (value: number, decimals: number) => Number(value.toFixed(decimals));

/** A percentage as every answer shows it (the Observations, the study table, the tool): to two decimals, as the guide asks for the times in ranges. */
export const shownPercent = (value: number): number => round(value, 2);

/** The summary's resources; `cgmEntries` lists them in Bundle order. */
export function cgmResources(summary: CgmSummary, options: CgmRenderOptions): CgmResources {
  const unit = options.unit ?? 'mg/dL';
  const fullUrlOf = options.fullUrlOf ?? (() => `urn:uuid:${randomUUID()}`);
  const base = {
    status: 'final',
    category: [{ coding: [{ system: OBSERVATION_CATEGORY_SYSTEM, code: 'laboratory', display: 'Laboratory' }] }],
  };
  const about = { subject: { reference: options.subject }, effectivePeriod: effectivePeriodOf(summary.period, options.periodClock ?? UTC_CLOCK) };
  const observation = (code: { coding: object[]; text?: string }, rest: Record<string, unknown>): CgmEntry => ({
    fullUrl: fullUrlOf(),
    resource: { resourceType: 'Observation', ...base, code, ...about, ...rest },
  });
  const glucose = summary.glucose;
  const targets = new Map((glucose?.targets ?? []).map((t) => [t.metric, t]));
  const judged = (metric: TargetMetric | undefined) => {
    const check = metric === undefined ? undefined : targets.get(metric);
    return check ? judgement(check) : {};
  };

  const members = {
    mean: observation(loinc(MEAN_GLUCOSE[unit]), glucose ? { valueQuantity: glucoseQuantity(glucose.meanMgdl, unit) } : { dataAbsentReason: NOT_PERFORMED }),
    timesInRanges: observation(loinc(TIMES_IN_RANGES), {
      component: BANDS.map((band) => ({
        code: loinc(TIME_IN_BAND[band]),
        ...(glucose ? { valueQuantity: percent(glucose.bands[band].percent) } : { dataAbsentReason: NOT_PERFORMED }),
        ...judged(TARGET_OF_BAND[band]),
      })),
    }),
    gmi: observation(loinc(GMI), glucose ? { valueQuantity: percent(glucose.gmiPercent) } : { dataAbsentReason: NOT_PERFORMED }),
    cv: observation(loinc(COEFFICIENT_OF_VARIATION), glucose ? { valueQuantity: percent(glucose.cvPercent), ...judged('cv') } : { dataAbsentReason: NOT_PERFORMED }),
    daysOfWear: observation(loinc(DAYS_OF_WEAR), { valueQuantity: { value: summary.daysOfWear, unit: IG_UNITS.days.text, system: UCUM_SYSTEM, code: IG_UNITS.days.code } }),
    sensorActive: observation(loinc(SENSOR_ACTIVE), { valueQuantity: percent(summary.sensorActivePercent) }),
  };
  const agp = observation({ coding: [{ system: cgmCodeSystem(), ...AGP_CODE }], text: AGP_CODE.display }, { component: agpComponents(summary.agp.bins, unit) });
  const note = notesOf(summary, unit);
  const panel = observation(loinc(SUMMARY_PANEL), {
    hasMember: [...membersOf(members), agp].map((m) => ({ reference: m.fullUrl })),
    ...(note.length > 0 ? { note: note.map((text) => ({ text })) } : {}),
  });
  return { summary: panel, ...members, agp };
}

/** The resources in the order a Bundle lists them: the summary, its members, the profile. */
export const cgmEntries = (resources: CgmResources): CgmEntry[] => [resources.summary, ...membersOf(resources), resources.agp];

/**
 * A period as FHIR's `effectivePeriod`: dates when both ends are midnights on the clock (the end
 * date is the last day the period holds), else date-times on that clock (the end the period's last
 * millisecond, FHIR's ends being inclusive). Each end is read at its own offset, so a period of
 * local days across a change of daylight saving time is still written as dates.
 */
export function effectivePeriodOf(period: CgmPeriod, clock: Clock): { start: string; end: string } {
  const last = period.to - 1;
  const [fromOffset, toOffset, lastOffset] = [clock(period.from), clock(period.to), clock(last)];
  if (isMidnightAt(period.from, fromOffset) && isMidnightAt(period.to, toOffset)) {
    return { start: dateAt(period.from, fromOffset), end: dateAt(last, lastOffset) };
  }
  return { start: dateTimeAt(period.from, fromOffset), end: dateTimeAt(last, lastOffset) };
}

const loinc = ({ code, display }: LoincCode) => ({ coding: [{ system: LOINC_SYSTEM, code, display }] });

const percent = (value: number) => ({ value: shownPercent(value), unit: IG_UNITS.percent.text, system: UCUM_SYSTEM, code: IG_UNITS.percent.code });

function glucoseQuantity(mgdl: number, unit: GlucoseUnit) {
  const { code, text } = IG_UNITS[unit];
  return { value: shownGlucose(mgdl, unit), unit: text, system: UCUM_SYSTEM, code };
}

/** A target as a reference range's text and the interpretation of the figure against it. */
function judgement(check: TargetCheck) {
  const flag = check.met ? { code: 'N', display: 'Normal' } : check.comparator === '>' ? { code: 'L', display: 'Low' } : { code: 'H', display: 'High' };
  return {
    interpretation: [{ coding: [{ system: INTERPRETATION_SYSTEM, ...flag }] }],
    referenceRange: [{ text: `target ${check.comparator === '<=' ? '≤' : check.comparator} ${check.percent}%` }],
  };
}

/** Every target with its figure, and the sufficiency's shortfalls, as the summary's notes (and the assistants' tool's lines). */
export function notesOf(summary: CgmSummary, unit: GlucoseUnit): string[] {
  const targets = (summary.glucose?.targets ?? []).map(
    (t) => `${METRIC_LABELS[t.metric][unit]}: ${round(t.value, 2)}% (target ${t.comparator === '<=' ? '≤' : t.comparator} ${t.percent}%): ${t.met ? 'met' : 'not met'}.`,
  );
  const shortfalls = summary.sufficiency.shortfalls.map((s) => {
    switch (s.code) {
      case 'no-readings':
        return 'Not sufficient: the period holds no glucose readings.';
      case 'period-too-short':
        return `Not sufficient: the period is ${round(s.days, 2)} days, and at least ${s.needed} are needed.`;
      case 'too-little-data':
        return `Not sufficient: the sensor was active ${round(s.activePercent, 2)}% of the period, and at least ${s.needed}% is needed.`;
    }
  });
  return [...targets, ...shortfalls];
}

/** The profile's components: a series per percentile, then the readings per bin, over the bins holding readings. */
function agpComponents(bins: readonly AgpBin[], unit: GlucoseUnit) {
  const held = bins.filter((b) => b.percentiles !== undefined);
  const { code, text } = IG_UNITS[unit];
  const series = (origin: Record<string, unknown>, values: number[]) => ({
    origin,
    intervalUnit: 'min',
    dimensions: 1,
    // A series has an interval or offsets (sdd-1): one with no bin holding readings has the bins' width and no data.
    ...(held.length > 0 ? { offsets: held.map((b) => b.startMinute).join(' '), data: values.join(' ') } : { interval: BIN_MINUTES }),
  });
  const glucoseOrigin = { value: 0, unit: text, system: UCUM_SYSTEM, code };
  return [
    ...AGP_PERCENTILES.map((p) => ({
      code: { coding: [{ system: cgmCodeSystem(), ...percentileCode(p) }] },
      valueSampledData: series(glucoseOrigin, held.map((b) => round(glucoseIn(b.percentiles![p], unit), 2))),
    })),
    {
      code: { coding: [{ system: cgmCodeSystem(), ...BIN_READINGS_CODE }] },
      valueSampledData: series({ value: 0, system: UCUM_SYSTEM, code: '1' }, held.map((b) => b.readings)),
    },
  ];
}
