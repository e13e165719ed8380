/**
 * `Observation/$stats` on the FHIR family, as a registry operation (GET and POST; the
 * CapabilityStatement lists it on Observation): a thin handler over the parameters' parser, the
 * domain function and the Parameters rendering of its typed result (docs/api.md#statistics-observationstats).
 */
import type { FhirOperation } from '../../fhir/registry';
import type { AuthedRequest } from '../../http/request';
import { fhirJson, type HttpResponse } from '../../http/response';
import { statsParameters } from './answer';
import { readingStatistics } from './operation';
import { parseStatsRequest } from './params';

/** R5's definition of the operation. */
export const STATS_DEFINITION = 'http://hl7.org/fhir/OperationDefinition/Observation-stats';

async function stats(req: AuthedRequest): Promise<HttpResponse> {
  const request = parseStatsRequest(req.method, req.query, req.body);
  const result = await readingStatistics(req.caller, request);
  if (result.patientId !== undefined) req.audit.touched([result.patientId]);
  return fhirJson(200, statsParameters(result));
}

export const statsOperations: readonly FhirOperation[] = [
  {
    level: 'type',
    type: 'Observation',
    name: 'stats',
    definition: STATS_DEFINITION,
    documentation:
      "Statistics of a patient's mobile-health readings over a period (count, minimum, maximum, average, sum, variance, std-dev, median, percentiles, quartiles), exact, answered as R5 defines: one Observation per code (per member of a panel such as blood pressure), each statistic a component whose code is the statistic (http://hl7.org/fhir/observation-statistics); interval=hour|day|week for a series (docs/api.md#statistics-observationstats).",
    handler: (req) => stats(req),
  },
];
