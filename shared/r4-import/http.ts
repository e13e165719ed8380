/**
 * The import endpoints as routes: `POST /fhir-import/R4` (a Bundle) and `POST /fhir-import/R4/<Type>`
 * (one resource; the type comes from the URL). Any other method on them is a 405 with `Allow: POST`
 * (the router's). The FHIR Source header gates the whole request: missing or unknown 400, not the
 * caller's to use 403. Then always 200 with a `batch-response` Bundle, one entry per resource.
 */
import { assertCanUseFhirSource } from '../auth/scope';
import { SOURCE_HEADER } from '../fhir/constants';
import { batchResponse, writeTargetOf } from '../fhir/write-response';
import { badRequest } from '../http/errors';
import { IMPORT_BASE } from '../http/families';
import type { AuthedRequest, HttpRequest } from '../http/request';
import { fhirJson, type HttpResponse } from '../http/response';
import type { Route } from '../http/router';
import type { AuxiliaryHandover } from '../observations/auxiliary-handover';
import type { EntryResult } from '../observations/create/process';
import { METRIC } from '../telemetry/names';
import { importBundleEntries, importPrepared, notStartedImport, prepareImport, type PreparedImport } from './import';
import { retryAfterHeader } from '../observations/create/unfinished';

interface ImportInput {
  resource: unknown;
  /** Where the resource is in the request, for the outcome's expression. */
  at: string;
  urlType?: string;
  fullUrl?: string;
}

async function importRequest(req: AuthedRequest, auxiliary: AuxiliaryHandover, inputsOf: () => ImportInput[]): Promise<HttpResponse> {
  const { caller } = req;
  const inputs = inputsOf();
  const sourceHeader = req.headers[SOURCE_HEADER]?.trim();
  if (!sourceHeader) {
    throw badRequest('The X-SVC-FHIR-Source-ID header is required: name the FHIR Source the imported resources come from.', 'required');
  }
  // Checked once for the request: every entry is written through this source (`checkedSource`).
  const checkedSource = await assertCanUseFhirSource(caller, sourceHeader);
  // Converting takes time too: what the deadline leaves unconverted is not started.
  const prepared = inputs.map((input) => (req.deadline.remainingMs() > 0 ? prepareImport(input.resource, input.at, input.urlType, input.fullUrl) : notStartedImport()));
  // The import has no FHIR base of its own: its Locations are under the canonical one.
  const results = await importPrepared(prepared, { caller, ...writeTargetOf(req), sourceHeader, checkedSource, auxiliary, deadline: req.deadline, noun: 'resource' }, req.log);
  recordImport(req, prepared, results);
  // Always 200, also when no entry could be processed in time: each entry says what became of it.
  return fhirJson(200, batchResponse(results), retryAfterHeader(results));
}

/** Entries stored whole, stored with loss, refused; fields dropped; whose data was written. */
function recordImport(req: HttpRequest, prepared: readonly PreparedImport[], results: readonly EntryResult[]): void {
  let created = 0;
  let withLoss = 0;
  let failed = 0;
  let dropped = 0;
  results.forEach((r, i) => {
    const drops = prepared[i]!.dropped.length;
    dropped += drops;
    if (r.status >= 400) failed += 1;
    else if (drops > 0) withLoss += 1;
    else created += 1;
  });
  req.meter.count(METRIC.importEntriesCreated, created);
  req.meter.count(METRIC.importEntriesWithLoss, withLoss);
  req.meter.count(METRIC.importEntriesFailed, failed);
  req.meter.count(METRIC.importFieldsDropped, dropped);
  req.audit.touched(results.map((r) => r.written?.patientId));
}

function jsonBody(req: HttpRequest): unknown {
  if (req.body === undefined) throw badRequest('A JSON body is required.', 'required');
  if (typeof req.body !== 'object' || req.body === null || Array.isArray(req.body)) {
    throw badRequest('The request body must be a FHIR R4 resource (a JSON object).', 'structure');
  }
  return req.body;
}

export function importRoutes(auxiliary: AuxiliaryHandover): Route[] {
  const bundle = async (req: AuthedRequest) =>
    importRequest(req, auxiliary, () => importBundleEntries(jsonBody(req)).map((entry, i) => ({ ...entry, at: `Bundle.entry[${i}].resource` })));
  return [
    { method: 'POST', path: IMPORT_BASE, auth: 'caller', handler: bundle },
    {
      method: 'POST',
      path: `${IMPORT_BASE}/{type}`,
      auth: 'caller',
      handler: async (req) => {
        const type = req.params.type!;
        return importRequest(req, auxiliary, () => [{ resource: jsonBody(req), at: type, urlType: type }]);
      },
    },
  ];
}
