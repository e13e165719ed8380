/**
 * The answer to every write (a create, an update or patch, each entry of a batch or an import):
 * shaped once here so a client hears the same thing whichever path stored its resource. The
 * location is absolute, under the base the client used; the validators come from the resource's
 * `meta` (`version-headers.ts`); `Prefer: return=` picks the body.
 */
import { STATUS_CODES } from 'node:http';
import type { HttpRequest } from '../http/request';
import { fhirJson, type HttpResponse } from '../http/response';
import { issue, operationOutcome, type OperationOutcome, type OutcomeIssue } from './outcome';
import { parsePrefer, type ReturnPreference } from './prefer';
import { fhirSiteOf } from './router';
import { etagOf, httpDate, metaOf } from './version-headers';

/** Where a write's answer points, and what body its client prefers. */
export interface WriteTarget {
  /** scheme://host of the configured site. */
  origin: string;
  /** The FHIR base the client used (`/FHIR/R5` or the `/fhir/r5` alias). */
  base: string;
  returnPreference?: ReturnPreference;
}

/** A write's answer, before it becomes HTTP headers and a body, or a batch entry. */
export interface WriteResult {
  status: number;
  resource?: Record<string, unknown>;
  location?: string;
  etag?: string;
  /** The stored instant (`meta.lastUpdated`); headers send it as an HTTP date. */
  lastModified?: string;
  outcome?: OperationOutcome;
}

/** A resource as a store wrote it: `meta.lastUpdated` stamped, and `meta.versionId` when the store keeps versions. */
export interface WrittenResource {
  status: number;
  resource: Record<string, unknown> & { resourceType: string; id: string };
  /** The version of a store whose resources carry no `meta.versionId` (a native reading is only ever version 1). */
  versionId?: string;
  /** Issues the store has to say about this write (a duplicate, elements it did not keep). */
  notes?: readonly OutcomeIssue[];
}

export function writeTargetOf(req: HttpRequest): WriteTarget {
  const preference = parsePrefer(req.headers['prefer']).return;
  return { ...fhirSiteOf(req), ...(preference ? { returnPreference: preference } : {}) };
}

/**
 * A written resource as its client prefers it: the resource (the default), nothing, or an outcome
 * naming what was done; the store's notes ride along in every form.
 */
export function shapeWrite(written: WrittenResource, target: WriteTarget): WriteResult {
  const { status, resource } = written;
  const meta = metaOf(resource);
  const versionId = meta.versionId ?? written.versionId;
  // A store that keeps versions names the one written; a store without them names the resource.
  const path = `${resource.resourceType}/${resource.id}${meta.versionId ? `/_history/${meta.versionId}` : ''}`;
  const location = `${target.origin}${target.base}/${path}`;
  const head: WriteResult = {
    status,
    location,
    ...(versionId ? { etag: etagOf(versionId) } : {}),
    ...(meta.lastUpdated ? { lastModified: meta.lastUpdated } : {}),
  };
  const notes = written.notes ?? [];
  const withNotes = notes.length > 0 ? { outcome: operationOutcome([...notes]) } : {};
  switch (target.returnPreference) {
    case 'minimal':
      return { ...head, ...withNotes };
    case 'OperationOutcome':
      return { ...head, outcome: operationOutcome([issue('information', 'informational', `${STATUS_CODES[status]}: ${location}`), ...notes]) };
    default:
      return { ...head, resource, ...withNotes };
  }
}

/**
 * A write's answer as an HTTP response: `Location` for a created resource, `Content-Location` for
 * a 200 (RFC 9110 gives `Location` no meaning there); the body is the resource, else the outcome.
 */
export function writeHttpResponse(result: WriteResult): HttpResponse {
  if (result.status >= 400) return fhirJson(result.status, result.outcome ?? operationOutcome([]));
  const headers: Record<string, string> = {
    ...(result.location ? { [result.status === 201 ? 'Location' : 'Content-Location']: result.location } : {}),
    ...(result.etag ? { ETag: result.etag } : {}),
    ...(result.lastModified ? { 'Last-Modified': httpDate(result.lastModified) } : {}),
  };
  const body = result.resource ?? result.outcome;
  return body === undefined ? { status: result.status, headers } : fhirJson(result.status, body, headers);
}

/** `201 Created`, `422 Unprocessable Entity`, ... */
function statusLine(status: number): string {
  return `${status} ${STATUS_CODES[status] ?? 'Unknown'}`;
}

/** The batch-response Bundle: one entry per request entry, in order. */
export function batchResponse(results: readonly WriteResult[]): Record<string, unknown> {
  return {
    resourceType: 'Bundle',
    type: 'batch-response',
    ...(results.length > 0 ? { entry: results.map(batchResponseEntry) } : {}),
  };
}

function batchResponseEntry(result: WriteResult): Record<string, unknown> {
  return {
    ...(result.resource ? { resource: result.resource } : {}),
    response: {
      status: statusLine(result.status),
      ...(result.location ? { location: result.location } : {}),
      ...(result.etag ? { etag: result.etag } : {}),
      ...(result.lastModified ? { lastModified: result.lastModified } : {}),
      ...(result.outcome ? { outcome: result.outcome } : {}),
    },
  };
}
