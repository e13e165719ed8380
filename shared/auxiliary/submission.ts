/**
 * What a write submits, checked and turned into what is stored: the body must be a resource of
 * the URL's type that passes R5 validation; the stored copy gets the service's id, version,
 * `meta.lastUpdated` and `meta.source` (the FHIR Source's URI), and its search index values are
 * extracted once, here, from that stored copy.
 */
import { config } from '../config';
import { sourceUri, sourceUriPrefix } from '../fhir/constants';
import { extractSearchIndex, type SearchIndex } from '../fhir/search';
import { hasErrors, validateResource } from '../fhir/validation';
import { badRequest, HttpError, unprocessable } from '../http/errors';
import { FHIR_BASES } from '../http/families';
import { shown } from '../shown';
import type { RowHead } from './rows';
import { isObject } from '../json';

export type Resource = Record<string, unknown>;

/** A resource as stored: its type, the row's id, and the meta the service stamps. */
export type StoredResource = Resource & { resourceType: string; id: string };

/** The body as a resource object of the expected type (400 for anything else). */
export function asResourceOf(type: string, body: unknown): Resource {
  if (!isObject(body)) throw badRequest(`The request body must be a FHIR ${type} resource (a JSON object).`, 'structure');
  const declared = body.resourceType;
  if (declared === undefined) throw badRequest(`resourceType is missing: expected '${type}'.`, 'required').at(`${type}.resourceType`);
  if (declared !== type) {
    throw badRequest(`resourceType '${shown(declared)}' does not match the type of the URL, ${type}.`, 'invalid').at(`${type}.resourceType`);
  }
  return body;
}

/** 400 with the validator's issues (errors first, each naming its element) unless the resource is valid R5. */
export async function assertValidR5(type: string, resource: Resource): Promise<void> {
  const issues = await validateResource(resource, { expectedType: type });
  if (!hasErrors(issues)) return;
  const errors = issues.filter((i) => i.severity === 'error' || i.severity === 'fatal');
  const [first, ...rest] = [...errors, ...issues.filter((i) => !errors.includes(i))];
  const error = new HttpError(400, first!.diagnostics, first!.code, { issues: rest });
  throw first!.expression ? error.at(first!.expression) : error;
}

/**
 * The FHIR Source a write names: the `X-SVC-FHIR-Source-ID` header, else the resource's own
 * `meta.source` when it is `{sourceUriPrefix()}<id>`. Undefined when neither names one.
 */
export function namedSourceId(sourceHeader: string | undefined, resource: Resource): string | undefined {
  const header = sourceHeader?.trim();
  if (header) return header;
  const source = isObject(resource.meta) ? resource.meta.source : undefined;
  const prefix = sourceUriPrefix();
  if (typeof source === 'string' && source.startsWith(prefix)) return source.slice(prefix.length);
  return undefined;
}

/** The submitted `id`, kept as the upstream id (validation has checked its format). */
export function upstreamIdOf(resource: Resource): string | undefined {
  return typeof resource.id === 'string' ? resource.id : undefined;
}

export interface Prepared {
  resource: StoredResource;
  /** The stored JSON text. */
  json: string;
  index: SearchIndex;
}

/** Largest index item text accepted; real resources stay far below (p99 of the R5 examples: 10 KB). */
const MAX_INDEX_BYTES = 300 * 1024;

/** The stored copy of a submitted resource under a row's id, version and source, with its index. */
export async function prepareStored(submitted: Resource, head: RowHead, origin?: string): Promise<Prepared> {
  // The submitted resourceType is the row's type (`asResourceOf` checked it).
  const { resourceType: _type, id: _id, meta, ...rest } = submitted;
  const resource: StoredResource = {
    resourceType: head.type,
    id: head.id,
    meta: { ...(isObject(meta) ? meta : {}), versionId: String(head.version), lastUpdated: head.lastUpdated, source: sourceUri(head.sourceId) },
    ...rest,
  };
  const index = await extractSearchIndex(resource, { localBases: localBases(origin) });
  if (Buffer.byteLength(JSON.stringify(index), 'utf8') > MAX_INDEX_BYTES) {
    throw unprocessable(`The resource has too many searchable values to index (over ${MAX_INDEX_BYTES} bytes).`);
  }
  return { resource, json: JSON.stringify(resource), index };
}

/** Absolute references to this server are indexed as the local `Type/id` they name. */
function localBases(origin?: string): string[] {
  const origins = [...new Set([config().siteUrl, ...(origin ? [origin] : [])])];
  return origins.flatMap((o) => FHIR_BASES.map((b) => `${o}${b}`));
}
