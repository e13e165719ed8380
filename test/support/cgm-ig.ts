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
/** The IG's own CodeSystem (the standing order's code). */
export const CGM_CODES = 'http://hl7.org/fhir/uv/cgm/CodeSystem/cgm';
/** The summary panel, the code of the summary Observation and of the PDF report. */
export const SUMMARY_PANEL = '107931-8';
/** Every Observation of the IG is a laboratory one; its DiagnosticReport is of the LAB section. */
const LABORATORY = [{ coding: [{ system: 'http://terminology.hl7.org/CodeSystem/observation-category', code: 'laboratory' }] }];
const LAB_SECTION = [{ coding: [{ system: 'http://terminology.hl7.org/CodeSystem/v2-0074', code: 'LAB' }] }];
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
    category: LABORATORY,
    code: { coding: [{ system: LOINC, code }] },
    subject: { reference: UPSTREAM_PATIENT },
    ...(o.at !== null ? { effectiveDateTime: o.at } : {}),
    valueQuantity: { value: o.value, unit: unit.toLowerCase(), system: UCUM, code: unit },
    ...(o.device ? { device: { reference: o.device } } : {}),
  };
}

const PERIOD = { start: '2024-05-01', end: '2024-05-14' };
const percent = (value: number) => ({ value, unit: '%', system: UCUM, code: '%' });

/** A resource of the summary: LOINC-coded, final, over the reporting period. */
function ofPeriod(resourceType: string, id: string, category: Json[], code: string, extra: Json): Json {
  return { resourceType, id, status: 'final', category, code: { coding: [{ system: LOINC, code }] }, subject: { reference: UPSTREAM_PATIENT }, effectivePeriod: PERIOD, ...extra };
}

/** One summary member: its LOINC code and value over the reporting period. */
function member(id: string, code: string, value: Json | undefined, extra: Json = {}): Json {
  return ofPeriod('Observation', id, LABORATORY, code, { ...(value ? { valueQuantity: value } : {}), ...extra });
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
  /** Entry index by the resource's id. */
  index: Map<string, number>;
}

/**
 * How the entries name each other: as the IG's example does (each entry's `fullUrl` its RESTful URL
 * on the sender's server, the references relative: `Observation/<id>`), or by `urn:uuid` fullUrls.
 */
export type NamingStyle = 'restful' | 'urn';

/**
 * The data submission Bundle (R4): the PDF report (result: the summary), the summary (hasMember:
 * its members), the members, the device and `readings` (each naming the device), all with ids, as
 * the IG's examples carry theirs. The report comes first, as in the IG's example, so its reference
 * reaches forward in the Bundle.
 */
export function submissionBundle(readings: ReadingOptions[], style: NamingStyle = 'restful'): SubmissionBundle {
  const names = new Map<string, { fullUrl: string; reference: string }>();
  const name = (type: string, id: string) => {
    const named = style === 'urn' ? { fullUrl: `urn:uuid:${randomUUID()}`, reference: '' } : { fullUrl: `https://ehr.example.org/fhir/${type}/${id}`, reference: `${type}/${id}` };
    names.set(id, { ...named, reference: named.reference || named.fullUrl });
    return names.get(id)!.reference;
  };
  const device = cgmDevice();
  const deviceRef = name('Device', device.id);
  const members = summaryMembers();
  const memberRefs = members.map((m) => name('Observation', m.id));
  const summary = member('cgm-summary', SUMMARY_PANEL, undefined, { hasMember: memberRefs.map((reference) => ({ reference })) });
  const summaryRef = name('Observation', summary.id);
  const report = ofPeriod('DiagnosticReport', 'cgm-report', LAB_SECTION, SUMMARY_PANEL, {
    issued: '2024-05-15T14:30:00Z',
    result: [{ reference: summaryRef }],
    presentedForm: [{ contentType: 'application/pdf', data: smallPdf() }],
  });
  name('DiagnosticReport', report.id);
  const readingResources = readings.map((r, i) => sensorReading({ id: `reading-${i}`, device: deviceRef, ...r }));
  for (const r of readingResources) name('Observation', r.id);
  const resources: Json[] = [report, summary, ...members, device, ...readingResources];
  const bundle = {
    resourceType: 'Bundle',
    type: 'transaction',
    timestamp: '2024-05-15T14:30:00Z',
    entry: resources.map((resource) => ({ fullUrl: names.get(resource.id)!.fullUrl, resource, request: { method: 'POST', url: resource.resourceType } })),
  };
  return { bundle, index: new Map(resources.map((r, i) => [r.id as string, i])) };
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
