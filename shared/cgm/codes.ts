/**
 * The codes and units of HL7's Continuous Glucose Monitoring implementation guide (STU 1,
 * `hl7.fhir.uv.cgm` 1.0.0, http://hl7.org/fhir/uv/cgm; docs/cgm.md#the-fhir-resources): what a
 * summary's Observations are coded and measured in, and the canonical URLs of its profiles, for the
 * rendering (fhir.ts) and for recognising what a data submission holds.
 *
 * Every summary Observation of the guide is LOINC-coded, carries `subject` and an `effectivePeriod`
 * with both `start` and `end`, and one `valueQuantity` in a fixed UCUM unit; the times in ranges are
 * one panel with a component per band. The displays are LOINC's names of the codes.
 */
import type { Band } from './thresholds';

export const LOINC_SYSTEM = 'http://loinc.org';

export interface LoincCode {
  code: string;
  display: string;
}

/** The summary panel (the guide's `cgm-summary`): its members are referenced from `hasMember`. */
export const SUMMARY_PANEL: LoincCode = { code: '107931-8', display: 'Continuous glucose monitoring summary panel - Reporting Period' };

/** Mean glucose, by the unit it is given in. */
export const MEAN_GLUCOSE: Readonly<Record<'mg/dL' | 'mmol/L', LoincCode>> = {
  'mg/dL': { code: '97507-8', display: 'Average glucose [Mass/volume] in Interstitial fluid during Reporting Period' },
  'mmol/L': { code: '105273-7', display: 'Glucose [Moles/volume] in Reporting Period mean Interstitial fluid by calculation' },
};

/** The times in ranges panel; its components are TIME_IN_BAND's. */
export const TIMES_IN_RANGES: LoincCode = { code: '106793-3', display: 'Continuous glucose monitoring time in ranges panel' };

/** Each band's share of the period, a component of the times in ranges panel. */
export const TIME_IN_BAND: Readonly<Record<Band, LoincCode>> = {
  veryLow: { code: '104642-4', display: 'Time below range, very low in Reporting Period Interstitial fluid by calculation' },
  low: { code: '104641-6', display: 'Time below range, low in Reporting Period Interstitial fluid by calculation' },
  target: { code: '97510-2', display: 'Glucose measurements in range out of Total glucose measurements during reporting period' },
  high: { code: '104640-8', display: 'Time above range, high in Reporting Period Interstitial fluid by calculation' },
  veryHigh: { code: '104639-0', display: 'Time above range, very high in Reporting Period Interstitial fluid by calculation' },
};

/**
 * A sensor's reading (the guide's `cgm-sensor-reading-*` profiles), by the unit it is given in:
 * glucose in interstitial fluid. A stored blood glucose is coded so by its unit and specimen
 * (shared/omh/quantities/standard-codes.ts, docs/payloads.md), which is how the service tells a
 * sensor's readings from a glucometer's.
 */
export const SENSOR_READING: Readonly<Record<'mg/dL' | 'mmol/L', LoincCode>> = {
  'mg/dL': { code: '99504-3', display: 'Glucose [Mass/volume] in Interstitial fluid' },
  'mmol/L': { code: '105272-9', display: 'Glucose [Moles/volume] in Interstitial fluid' },
};

export const GMI: LoincCode = { code: '97506-0', display: 'Glucose management indicator' };

export const COEFFICIENT_OF_VARIATION: LoincCode = { code: '104638-2', display: 'Glucose standard deviation/Glucose mean in Reporting Period Interstitial fluid by calculation' };

export const DAYS_OF_WEAR: LoincCode = { code: '104636-6', display: 'Days continuous glucose monitor device worn [#] Reporting Period Estimated' };

export const SENSOR_ACTIVE: LoincCode = { code: '104637-4', display: 'Percentage of time continuous glucose monitor device worn Reporting Period Calculated' };

/**
 * The UCUM units the guide fixes, with the unit text its profiles fix beside them (the guide writes
 * `mg/dl` and `mmol/l` as text: a client matching its patterns compares that text too).
 */
export const IG_UNITS = {
  'mg/dL': { code: 'mg/dL', text: 'mg/dl' },
  'mmol/L': { code: 'mmol/L', text: 'mmol/l' },
  percent: { code: '%', text: '%' },
  days: { code: 'd', text: 'days' },
} as const;

/** The guide's canonical base: its profiles are `<base>/StructureDefinition/<id>`. */
export const CGM_IG = 'http://hl7.org/fhir/uv/cgm';

/** The guide's profile ids, by what they describe. */
export const CGM_PROFILES = {
  summary: 'cgm-summary',
  meanMgdl: 'cgm-summary-mean-glucose-mass-per-volume',
  meanMmolL: 'cgm-summary-mean-glucose-moles-per-volume',
  timesInRanges: 'cgm-summary-times-in-ranges',
  gmi: 'cgm-summary-gmi',
  cv: 'cgm-summary-coefficient-of-variation',
  daysOfWear: 'cgm-summary-days-of-wear',
  sensorActive: 'cgm-summary-sensor-active-percentage',
  pdf: 'cgm-summary-pdf',
  readingMgdl: 'cgm-sensor-reading-mass-per-volume',
  readingMmolL: 'cgm-sensor-reading-moles-per-volume',
  device: 'cgm-device',
  submissionBundle: 'cgm-data-submission-bundle',
} as const;

/**
 * The service's own codes (in `<namespace>/CodeSystem/cgm`, fhir.ts): the ambulatory glucose
 * profile, its percentiles and its readings per bin; here, beside the guide's, for whoever reads a
 * profile back (the portal page draws it).
 */
export const AGP_CODE = { code: 'agp', display: 'Ambulatory glucose profile' } as const;
export const percentileCode = (p: number) => ({ code: `p${p}`, display: `${p}th percentile of glucose in the time-of-day bin` });
export const BIN_READINGS_CODE = { code: 'bin-readings', display: 'Readings in the time-of-day bin' } as const;

export const profileUrl = (id: string): string => `${CGM_IG}/StructureDefinition/${id}`;
