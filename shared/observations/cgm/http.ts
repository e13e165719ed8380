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

/**
 * One of the CGM operations on a type's instances: its canonical URL under the deployment's
 * namespace (the service's own operation), read when the CapabilityStatement is written, since the
 * namespace is the deployment's configuration.
 */
function cgmOperation(type: 'Patient' | 'Group', name: string, documentation: string, handler: (req: AuthedRequest, id: string) => Promise<HttpResponse>): FhirOperation {
  return {
    level: 'instance',
    type,
    name,
    get definition() {
      return `${config().namespace}/OperationDefinition/${type}-${name}`;
    },
    documentation,
    handler: (req, id) => handler(req, id!),
  };
}

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

export const cgmSummaryOperation = cgmOperation(
  'Patient',
  'cgm-summary',
  "A glucose sensor's summary over a period (default the last 14 days): the International Consensus on Time in Range's metrics (mean glucose, GMI, CV, the five ranges, days of wear, sensor active %) with its targets and data sufficiency, and the ambulatory glucose profile by time of day on the readings' own clocks, as the Observations of HL7's CGM guide in a collection Bundle; parameters start, end, timeZone, unit (mg/dL or mmol/L), targets (docs/cgm.md).",
  cgmSummary,
);

export const cgmReportOperation = cgmOperation(
  'Patient',
  'cgm-report',
  "The AGP report over a period: the answer of $cgm-summary (same parameters) with, last, the CGM guide's DiagnosticReport (LOINC 107931-8) presenting the summary and carrying the report as a one-page PDF in presentedForm: the metrics with their targets, the time-in-ranges bar, the percentile curve with the target band, and the last 14 days' profiles (docs/cgm.md).",
  cgmReport,
);

async function studyCgmSummary(req: AuthedRequest, id: string): Promise<HttpResponse> {
  const studyId = parseId(id);
  if (studyId === undefined) throw notFound(`Group ${id} not found.`);
  const { subject: _subject, ...request } = parseCgmRequest(id, req.method, req.query, req.body, 'cgm-summary');
  const result = await studyGlucoseSummary(req.caller, studyId, request);
  req.audit.touched(result.rows.map((r) => r.patientId));
  return fhirJson(200, studyParameters(result));
}

export const studyCgmSummaryOperation = cgmOperation(
  'Group',
  'cgm-summary',
  "A study's glucose sensor table over a period (the parameters of Patient/$cgm-summary): for each participant the study reaches whose study requests blood glucose, the consensus's metrics as the parts of a participant parameter (readings, days of wear, sensor active %, sufficiency, mean, SD, GMI, CV, the five ranges' shares), from the day summaries' digests (docs/cgm.md).",
  studyCgmSummary,
);
