/**
 * `Patient/<id>/$cgm-summary` on the FHIR family, as a registry operation (GET and POST; the
 * CapabilityStatement lists it on Patient): a thin handler over the parameters' parser, the domain
 * function and the Bundle rendering of its typed result (docs/cgm.md#the-operation-patientidcgm-summary).
 */
import { config } from '../../config';
import type { FhirOperation } from '../../fhir/registry';
import type { AuthedRequest } from '../../http/request';
import { fhirJson, type HttpResponse } from '../../http/response';
import { cgmBundle } from './answer';
import { glucoseSummary } from './operation';
import { parseCgmRequest } from './params';

/** The operation's canonical URL, under the deployment's namespace (the service's own operation). */
export const cgmSummaryDefinition = (): string => `${config().namespace}/OperationDefinition/Patient-cgm-summary`;

async function cgmSummary(req: AuthedRequest, id: string): Promise<HttpResponse> {
  const request = parseCgmRequest(id, req.method, req.query, req.body);
  const result = await glucoseSummary(req.caller, request);
  req.audit.touched([result.patientId]);
  return fhirJson(200, cgmBundle(result));
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
