/**
 * `Patient/<id>/$cgm-summary` and `Patient/<id>/$cgm-report` on the FHIR family, as registry
 * operations (GET and POST; the CapabilityStatement lists them on Patient): thin handlers over the
 * parameters' parser, the domain functions and the Bundle rendering of their typed results
 * (docs/cgm.md#the-operation-patientidcgm-summary).
 */
import { config } from '../../config';
import type { FhirOperation } from '../../fhir/registry';
import type { AuthedRequest } from '../../http/request';
import { fhirJson, type HttpResponse } from '../../http/response';
import { cgmBundle, studyParameters } from './answer';
import { glucoseSummary } from './operation';
import { glucoseReport } from './report';
import { parseCgmRequest } from './params';
import { studyGlucoseSummary } from './study';
import { notFound } from '../../http/errors';
import { parseId } from '../../directory/ids';

/** The operation's canonical URL, under the deployment's namespace (the service's own operation). */
export const cgmSummaryDefinition = (): string => `${config().namespace}/OperationDefinition/Patient-cgm-summary`;

async function cgmSummary(req: AuthedRequest, id: string): Promise<HttpResponse> {
  const request = parseCgmRequest(id, req.method, req.query, req.body, 'cgm-summary');
  const result = await glucoseSummary(req.caller, request);
  req.audit.touched([result.patientId]);
  return fhirJson(200, cgmBundle(result));
}

async function cgmReport(req: AuthedRequest, id: string): Promise<HttpResponse> {
  const request = parseCgmRequest(id, req.method, req.query, req.body, 'cgm-report');
  const now = Date.now();
  const { result, report } = await glucoseReport(req.caller, request, now);
  req.audit.touched([result.patientId]);
  return fhirJson(200, cgmBundle(result, now, report));
}

export const cgmSummaryOperation: FhirOperation = {
  level: 'instance',
  type: 'Patient',
  name: 'cgm-summary',
  // Read when the CapabilityStatement is written: the namespace is the deployment's configuration.
  get definition() {
    return cgmSummaryDefinition();
  },
  documentation:
    "A glucose sensor's summary over a period (default the last 14 days): the International Consensus on Time in Range's metrics (mean glucose, GMI, CV, the five ranges, days of wear, sensor active %) with its targets and data sufficiency, and the ambulatory glucose profile by time of day on the readings' own clocks, as the Observations of HL7's CGM guide in a collection Bundle; parameters start, end, timeZone, unit (mg/dL or mmol/L), targets (docs/cgm.md).",
  handler: (req, id) => cgmSummary(req, id!),
};

export const cgmReportOperation: FhirOperation = {
  level: 'instance',
  type: 'Patient',
  name: 'cgm-report',
  get definition() {
    return `${config().namespace}/OperationDefinition/Patient-cgm-report`;
  },
  documentation:
    "The AGP report over a period: the answer of $cgm-summary (same parameters) with, last, the CGM guide's DiagnosticReport (LOINC 107931-8) presenting the summary and carrying the report as a one-page PDF in presentedForm: the metrics with their targets, the time-in-ranges bar, the percentile curve with the target band, and the last 14 days' profiles (docs/cgm.md).",
  handler: (req, id) => cgmReport(req, id!),
};

async function studyCgmSummary(req: AuthedRequest, id: string): Promise<HttpResponse> {
  const studyId = parseId(id);
  if (studyId === undefined) throw notFound(`Group ${id} not found.`);
  const { subject: _subject, ...request } = parseCgmRequest(id, req.method, req.query, req.body, 'cgm-summary');
  const result = await studyGlucoseSummary(req.caller, studyId, request);
  req.audit.touched(result.rows.map((r) => r.patientId));
  return fhirJson(200, studyParameters(result));
}

export const studyCgmSummaryOperation: FhirOperation = {
  level: 'instance',
  type: 'Group',
  name: 'cgm-summary',
  get definition() {
    return `${config().namespace}/OperationDefinition/Group-cgm-summary`;
  },
  documentation:
    "A study's glucose sensor table over a period (the parameters of Patient/$cgm-summary): for each participant the study reaches whose study requests blood glucose, the consensus's metrics as the parts of a participant parameter (readings, days of wear, sensor active %, sufficiency, mean, SD, GMI, CV, the five ranges' shares), from the day summaries' digests (docs/cgm.md).",
  handler: (req, id) => studyCgmSummary(req, id!),
};
