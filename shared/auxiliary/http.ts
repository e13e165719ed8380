/**
 * The FHIR interactions of the auxiliary types, as registry entries: each handler, given the
 * caller, calls the domain, and answers a write as every write is answered
 * (`shared/fhir/write-response.ts`). The same handlers serve the native Observation store's
 * auxiliary rows (`auxiliaryHandlers('Observation')`).
 */
import { SOURCE_HEADER, sourceUriPrefix } from '../fhir/constants';
import type { FhirTypeEntry, FhirTypeHandlers, SearchParamCapability } from '../fhir/registry';
import { fhirSiteOf } from '../fhir/router';
import { searchParamCapabilities } from '../fhir/search';
import { shapeWrite, writeHttpResponse, writeTargetOf } from '../fhir/write-response';
import { badRequest, notFound, unsupportedMediaType } from '../http/errors';
import type { AuthedRequest, HttpRequest } from '../http/request';
import { fhirJson, noContent, type HttpResponse } from '../http/response';
import { METRIC } from '../telemetry/names';
import { AUXILIARY_TYPES, NATIVE_SHARED_TYPES, type AuxiliaryType } from './accepted-types';
import type { Written } from './persist';
import { readAuxiliary } from './read';
import { searchAuxiliary } from './search';
import { createAuxiliary, deleteAuxiliary, jsonPatchAuxiliary, patchAuxiliary, updateAuxiliary, type AuxiliaryWriteContext } from './writes';

/** Registry entries of every accepted auxiliary type the auxiliary store serves alone. */
export function auxiliaryTypeEntries(): FhirTypeEntry[] {
  return AUXILIARY_TYPES.filter((t) => !NATIVE_SHARED_TYPES.has(t)).map(auxiliaryTypeEntry);
}

export function auxiliaryTypeEntry(type: AuxiliaryType): FhirTypeEntry {
  return {
    type,
    documentation: `Stored as submitted through a FHIR Source (X-SVC-FHIR-Source-ID, or meta.source = ${sourceUriPrefix()}<id>); ids are UUIDs.`,
    searchParams: () => auxiliarySearchParams(type),
    auth: 'caller',
    handlers: auxiliaryHandlers(type),
  };
}

/** The scoping parameter replaces the standard `patient`; every other parameter is the standard's. */
export function auxiliarySearchParams(type: string): SearchParamCapability[] {
  const own = searchParamCapabilities(type)
    .filter((p) => p.name !== 'patient')
    .map((p) => (p.name === '_source' ? { ...p, documentation: sourceDoc() } : p));
  return [PATIENT_PARAM, ...own];
}

const PATIENT_PARAM: SearchParamCapability = {
  name: 'patient',
  type: 'reference',
  documentation:
    "The owning patient: this service's patient id (12 or Patient/12), whatever the resource's own subject says. Chains: patient.organization=<organization id>, patient.identifier=<system>|<value>, patient._has:Group:member:_id=<study id>.",
};

const sourceDoc = (): string => `The FHIR Source: ${sourceUriPrefix()}<id> for one source, _source:below=${sourceUriPrefix()} for all of them.`;

/** The interactions of a type (a busy store is a 503 through the error renderer, as on every path). */
export function auxiliaryHandlers(type: AuxiliaryType): Required<FhirTypeHandlers> {
  return {
    read: async (req, id) => {
      const found = await readAuxiliary(req.caller, type, id);
      req.audit.touched([found.patientId]);
      const headers = { ETag: found.etag, 'Last-Modified': found.lastModified };
      if (noneMatch(req, found.etag)) return { status: 304, headers };
      return fhirJson(200, found.resource, headers);
    },
    vread: async (req, id, versionId) => {
      const found = await readAuxiliary(req.caller, type, id);
      req.audit.touched([found.patientId]);
      if (versionId !== found.versionId) {
        throw notFound(`Version ${versionId} of ${type}/${id} is not available: only the current version (${found.versionId}) is kept.`);
      }
      return fhirJson(200, found.resource, { ETag: found.etag, 'Last-Modified': found.lastModified });
    },
    search: async (req, params) => {
      const { bundle, patientIds } = await searchAuxiliary(req.caller, type, params, fhirSiteOf(req), req.headers['prefer']);
      req.audit.touched(patientIds);
      req.meter.count(METRIC.searchPages);
      req.meter.count(METRIC.searchRows, patientIds.length);
      return fhirJson(200, bundle);
    },
    create: async (req) => {
      const ctx = writeContext(req, type);
      const written = await createAuxiliary(ctx, resourceBody(req));
      return writtenResponse(req, written.status, written);
    },
    update: async (req, id) => {
      const ctx = writeContext(req, type);
      return writtenResponse(req, 200, await updateAuxiliary(ctx, id, resourceBody(req)));
    },
    patch: async (req, id) => {
      const ctx = writeContext(req, type);
      const patch = resourceBody(req);
      const jsonPatch = /^application\/json-patch\+json\s*($|;)/i.test(req.headers['content-type'] ?? '');
      return writtenResponse(req, 200, await (jsonPatch ? jsonPatchAuxiliary(ctx, id, patch) : patchAuxiliary(ctx, id, patch)));
    },
    delete: async (req, id) => {
      const { patientId } = await deleteAuxiliary(writeContext(req, type), id);
      recordWrite(req, patientId);
      return noContent();
    },
  };
}

function writeContext(req: AuthedRequest, type: string): AuxiliaryWriteContext {
  return {
    caller: req.caller,
    type,
    origin: req.origin,
    log: req.log,
    ...(req.headers[SOURCE_HEADER] !== undefined ? { sourceHeader: req.headers[SOURCE_HEADER] } : {}),
    ...(req.headers['if-match'] !== undefined ? { ifMatch: req.headers['if-match'] } : {}),
  };
}

function resourceBody(req: HttpRequest): unknown {
  if (req.body === undefined) throw badRequest('A JSON body is required.', 'required');
  if (!req.isJson) throw unsupportedMediaType('Send the resource as application/fhir+json or application/json.');
  return req.body;
}

function recordWrite(req: HttpRequest, patientId: number): void {
  req.audit.touched([patientId]);
  req.meter.count(METRIC.auxiliaryWrites);
}

/** `If-None-Match` naming the current version (or `*`). */
function noneMatch(req: HttpRequest, etag: string): boolean {
  const header = req.headers['if-none-match'];
  if (!header) return false;
  return header.split(',').some((t) => t.trim() === '*' || t.trim().replace(/^W\//, '') === etag.replace(/^W\//, ''));
}

/** The answer to a write, shaped as every write's is. */
function writtenResponse(req: HttpRequest, status: number, written: Written): HttpResponse {
  recordWrite(req, written.row.patientId);
  return writeHttpResponse(shapeWrite({ status, resource: written.resource }, writeTargetOf(req)));
}
