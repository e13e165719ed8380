/**
 * HL7's Continuous Glucose Monitoring IG (hl7.fhir.uv.cgm, FHIR R4) for tests, built from the
 * shape its published profiles give each resource: sensor readings (CGMSensorReadingMassPerVolume,
 * LOINC 99504-3 in mg/dL; CGMSensorReadingMolesPerVolume, 105272-9 in mmol/L), the summary
 * (CGMSummaryObservation and its members: mean glucose, times in ranges, GMI, CV, days of wear,
 * sensor active time), the PDF report (CGMSummaryPDF), the sensor (CGMDevice), the data submission
 * Bundle (CGMDataSubmissionBundle: a `transaction` whose entries refer to each other by fullUrl),
 * and the standing order (CGMDataSubmissionStandingOrder). `r5Of` turns the R4 Bundle into the R5
 * batch the FHIR base takes.
 */
import { randomUUID } from 'node:crypto';

export const LOINC = 'http://loinc.org';
export const UCUM = 'http://unitsofmeasure.org';
/** The IG's CodeSystems: its own codes (the standing order) and the one temporary summary code. */
export const CGM_CODES = 'http://hl7.org/fhir/uv/cgm/CodeSystem/cgm';
export const CGM_SUMMARY_CODES = 'http://hl7.org/fhir/uv/cgm/CodeSystem/cgm-summary-codes-temporary';
export const SUBMISSION_SCHEDULE = 'http://hl7.org/fhir/uv/cgm/StructureDefinition/data-submission-schedule';

/** The subject as the sending system names its patient (the IG's examples reference their own Patient). */
export const UPSTREAM_PATIENT = 'Patient/patientExample';

type Json = Record<string, any>;

export interface ReadingOptions {
  id?: string;
  value: number;
  unit?: 'mg/dL' | 'mmol/L';
  /** effectiveDateTime; null leaves it out. */
  at: string | null;
  device?: string;
  identifier?: Array<{ system?: string; value: string }>;
}

/** A sensor reading as the IG's profiles give it: LOINC by unit, valueQuantity in UCUM, the instant, the subject. */
export function sensorReading(o: ReadingOptions): Json {
  const unit = o.unit ?? 'mg/dL';
  const code = unit === 'mg/dL' ? '99504-3' : '105272-9';
  return {
    resourceType: 'Observation',
    ...(o.id ? { id: o.id } : {}),
    ...(o.identifier ? { identifier: o.identifier } : {}),
    status: 'final',
    code: { coding: [{ system: LOINC, code }] },
    subject: { reference: UPSTREAM_PATIENT },
    ...(o.at !== null ? { effectiveDateTime: o.at } : {}),
    valueQuantity: { value: o.value, unit: unit.toLowerCase(), system: UCUM, code: unit },
    ...(o.device ? { device: { reference: o.device } } : {}),
  };
}

const PERIOD = { start: '2024-05-01', end: '2024-05-14' };
const percent = (value: number) => ({ value, unit: '%', system: UCUM, code: '%' });

/** One summary member: its LOINC code and value over the reporting period. */
function member(id: string, code: string, value: Json | undefined, extra: Json = {}): Json {
  return { resourceType: 'Observation', id, status: 'final', code: { coding: [{ system: LOINC, code }] }, subject: { reference: UPSTREAM_PATIENT }, effectivePeriod: PERIOD, ...(value ? { valueQuantity: value } : {}), ...extra };
}

/** The summary's members (CGMSummaryMeanGlucoseMassPerVolume, TimesInRanges, GMI, CV, DaysOfWear, SensorActivePercentage). */
export function summaryMembers(): Json[] {
  const range = (code: string, value: number) => ({ code: { coding: [{ system: LOINC, code }] }, valueQuantity: percent(value) });
  return [
    member('cgm-mean', '97507-8', { value: 145, unit: 'mg/dl', system: UCUM, code: 'mg/dL' }),
    member('cgm-tir', '106793-3', undefined, {
      component: [range('104642-4', 3), range('104641-6', 8), range('97510-2', 65), range('104640-8', 20), range('104639-0', 4)],
    }),
    member('cgm-gmi', '97506-0', percent(6.8)),
    member('cgm-cv', '104638-2', percent(34)),
    member('cgm-wear', '104636-6', { value: 13, unit: 'days', system: UCUM, code: 'd' }),
    member('cgm-active', '104637-4', percent(95)),
  ];
}

/** A one-page PDF saying "CGM summary": small, and a PDF all the same. */
export function smallPdf(): string {
  const text = '%PDF-1.4\n1 0 obj<</Type/Catalog/Pages 2 0 R>>endobj\n2 0 obj<</Type/Pages/Kids[3 0 R]/Count 1>>endobj\n3 0 obj<</Type/Page/Parent 2 0 R/MediaBox[0 0 300 100]>>endobj\ntrailer<</Root 1 0 R>>\n%%EOF\n';
  return Buffer.from(text, 'latin1').toString('base64');
}

/** The CGMDevice, in R4 (`deviceName`). */
export function cgmDevice(id = 'cgm-device-1'): Json {
  return {
    resourceType: 'Device',
    id,
    identifier: [{ system: 'http://devices.example.org/cgm', value: '456789' }],
    serialNumber: 'ABC123',
    deviceName: [{ name: 'Example CGM System', type: 'user-friendly-name' }],
  };
}

export interface SubmissionBundle {
  bundle: Json;
  /** fullUrls by the resource's id, to find an entry. */
  fullUrls: Map<string, string>;
  /** Entry index by the resource's id. */
  index: Map<string, number>;
}

/**
 * The data submission Bundle (R4): the device, `readings` (each referring to the device by its
 * fullUrl), the summary's members, the summary (hasMember by fullUrl) and the PDF report (result:
 * the summary), all with ids, as the IG's examples carry theirs. The report comes first, as in the
 * IG's example, so its reference reaches forward in the Bundle.
 */
export function submissionBundle(readings: ReadingOptions[]): SubmissionBundle {
  const fullUrls = new Map<string, string>();
  const urn = (id: string) => {
    const url = `urn:uuid:${randomUUID()}`;
    fullUrls.set(id, url);
    return url;
  };
  const device = cgmDevice();
  const deviceUrl = urn(device.id);
  const members = summaryMembers();
  const memberUrls = members.map((m) => urn(m.id));
  const summary = {
    resourceType: 'Observation',
    id: 'cgm-summary',
    status: 'final',
    code: { coding: [{ system: CGM_SUMMARY_CODES, code: 'cgm-summary' }] },
    subject: { reference: UPSTREAM_PATIENT },
    effectivePeriod: PERIOD,
    hasMember: memberUrls.map((reference) => ({ reference })),
  };
  const summaryUrl = urn(summary.id);
  const report = {
    resourceType: 'DiagnosticReport',
    id: 'cgm-report',
    status: 'final',
    code: { coding: [{ system: CGM_SUMMARY_CODES, code: 'cgm-summary' }] },
    subject: { reference: UPSTREAM_PATIENT },
    effectivePeriod: PERIOD,
    issued: '2024-05-15T14:30:00Z',
    result: [{ reference: summaryUrl }],
    presentedForm: [{ contentType: 'application/pdf', data: smallPdf() }],
  };
  const reportUrl = urn(report.id);
  const readingResources = readings.map((r, i) => sensorReading({ id: `reading-${i}`, device: deviceUrl, ...r }));
  const readingUrls = readingResources.map((r) => urn(r.id));
  const resources: Array<[string, Json]> = [
    [reportUrl, report],
    [summaryUrl, summary],
    ...members.map((m, i): [string, Json] => [memberUrls[i]!, m]),
    [deviceUrl, device],
    ...readingResources.map((r, i): [string, Json] => [readingUrls[i]!, r]),
  ];
  const bundle = {
    resourceType: 'Bundle',
    type: 'transaction',
    timestamp: '2024-05-15T14:30:00Z',
    entry: resources.map(([fullUrl, resource]) => ({ fullUrl, resource, request: { method: 'POST', url: resource.resourceType } })),
  };
  return { bundle, fullUrls, index: new Map(resources.map(([, r], i) => [r.id as string, i])) };
}

/** The same submission as the FHIR base takes it: a `batch`, the device's name in R5's `name`. */
export function r5Of(bundle: Json): Json {
  const entry = bundle.entry.map((e: Json) => {
    if (e.resource.resourceType !== 'Device') return e;
    const { deviceName, ...device } = e.resource;
    return { ...e, resource: { ...device, name: deviceName.map((n: Json) => ({ value: n.name, type: n.type })) } };
  });
  return { ...bundle, type: 'batch', entry };
}

/**
 * The standing order (CGMDataSubmissionStandingOrder): submit every `weeks` weeks, a summary and its
 * PDF. In R4 its code is a CodeableConcept; R5 made `ServiceRequest.code` a CodeableReference.
 */
export function standingOrder(subject: string, weeks: number, extra: Json = {}, release: 'R4' | 'R5' = 'R4'): Json {
  const code = { coding: [{ system: CGM_CODES, code: 'cgm-data-submission-standing-order' }] };
  return {
    resourceType: 'ServiceRequest',
    status: 'active',
    intent: 'order',
    code: release === 'R4' ? code : { concept: code },
    subject: { reference: subject },
    extension: [
      {
        url: SUBMISSION_SCHEDULE,
        extension: [
          { url: 'submissionPeriod', valueQuantity: { value: weeks, unit: 'week', system: UCUM, code: 'wk' } },
          { url: 'submissionDataProfile', valueCanonical: 'http://hl7.org/fhir/uv/cgm/StructureDefinition/cgm-summary' },
          { url: 'submissionDataProfile', valueCanonical: 'http://hl7.org/fhir/uv/cgm/StructureDefinition/cgm-summary-pdf' },
        ],
      },
    ],
    ...extra,
  };
}
