/**
 * Bulk export on the FHIR family (docs/export.md): the `$export` operations the registry serves and
 * the CapabilityStatement lists (at the base, on Patient, on a Group), and the routes of a job's
 * status URL and its files. Thin handlers: the parameters are parsed once (`params.ts`), the rest is
 * the domain's (`kickoff.ts`, `status.ts`).
 */
import { parseId } from '../directory/ids';
import { parsePrefer } from '../fhir/prefer';
import type { FhirOperation } from '../fhir/registry';
import { fhirSiteOf } from '../fhir/router';
import { badRequest, notFound } from '../http/errors';
import { FHIR_BASES } from '../http/families';
import type { AuthedRequest } from '../http/request';
import type { HttpResponse } from '../http/response';
import type { Route } from '../http/router';
import { startExport } from './kickoff';
import type { ExportLevel } from './model';
import { parseExportRequest } from './params';
import { cancelExport, downloadExportFile, exportStatus, statusPath } from './status';

/** The Bulk Data server CapabilityStatement this service also conforms to. */
export const BULK_DATA_CAPABILITY = 'http://hl7.org/fhir/uv/bulkdata/CapabilityStatement/bulk-data';

const DEFINITIONS = {
  system: 'http://hl7.org/fhir/uv/bulkdata/OperationDefinition/export',
  patient: 'http://hl7.org/fhir/uv/bulkdata/OperationDefinition/patient-export',
  group: 'http://hl7.org/fhir/uv/bulkdata/OperationDefinition/group-export',
} as const;

async function kickOff(req: AuthedRequest, level: ExportLevel, id?: string): Promise<HttpResponse> {
  if (!parsePrefer(req.headers['prefer']).respondAsync) {
    throw badRequest('An export runs asynchronously: send the header Prefer: respond-async (and poll the Content-Location of the 202).', 'required').at('Prefer');
  }
  const groupId = level === 'group' ? parseId(id) : undefined;
  if (level === 'group' && groupId === undefined) throw notFound(`Group ${id} not found.`);
  const request = parseExportRequest(req.method, req.query, req.body, req.headers['prefer']);
  const site = fhirSiteOf(req);
  const query = req.query.toString();
  const job = await startExport(req.caller, { level, ...(groupId !== undefined ? { groupId } : {}), request, requestUrl: `${site.origin}${req.path}${query ? `?${query}` : ''}` });
  return { status: 202, headers: { 'Content-Location': `${site.origin}${statusPath(site.base, job.id)}` } };
}

/** The three kick-offs, as registry operations. */
export const exportOperations: readonly FhirOperation[] = [
  { level: 'system', name: 'export', definition: DEFINITIONS.system, documentation: 'Everything the caller may see, as NDJSON files (docs/export.md).', handler: (req) => kickOff(req, 'system') },
  { level: 'type', type: 'Patient', name: 'export', definition: DEFINITIONS.patient, documentation: "Every patient the caller may see, and their data.", handler: (req) => kickOff(req, 'patient') },
  { level: 'instance', type: 'Group', name: 'export', definition: DEFINITIONS.group, documentation: "The study's enrolled patients, and of their readings the codes the study requests.", handler: (req, id) => kickOff(req, 'group', id) },
];

/** The status URL (GET, DELETE) and the file URLs of jobs, under both bases. */
export function exportJobRoutes(): Route[] {
  return FHIR_BASES.flatMap((base): Route[] => [
    { method: 'GET', path: `${base}/$export-status/{job}`, auth: 'caller', handler: (req) => exportStatus(req.caller, req.params.job!, fhirSiteOf(req)) },
    { method: 'DELETE', path: `${base}/$export-status/{job}`, auth: 'caller', handler: (req) => cancelExport(req.caller, req.params.job!) },
    { method: 'GET', path: `${base}/$export-file/{job}/{file}`, auth: 'caller', handler: (req) => downloadExportFile(req.caller, req.params.job!, req.params.file!) },
  ]);
}
