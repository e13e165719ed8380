/**
 * What the FHIR endpoint serves, type by type. The FHIR router dispatches through this registry
 * and the CapabilityStatement is generated from it, so the statement lists exactly what works.
 */
import type { HttpRequest } from '../http/request';
import type { HttpResponse } from '../http/response';

export type SearchParamType = 'number' | 'date' | 'string' | 'token' | 'reference' | 'composite' | 'quantity' | 'uri' | 'special';

export interface SearchParamCapability {
  name: string;
  type: SearchParamType;
  documentation?: string;
  /** Canonical URL of the standard's SearchParameter, when the parameter is one. */
  definition?: string;
}

export type TypeInteraction = 'read' | 'vread' | 'search-type' | 'create' | 'update' | 'patch' | 'delete';

/** One resource type's handlers; an absent handler is an interaction the type does not offer (405). */
export interface FhirTypeHandlers {
  read?: (req: HttpRequest, id: string) => Promise<HttpResponse>;
  /** `GET <Type>/<id>/_history/<versionId>` */
  vread?: (req: HttpRequest, id: string, versionId: string) => Promise<HttpResponse>;
  search?: (req: HttpRequest, params: URLSearchParams) => Promise<HttpResponse>;
  create?: (req: HttpRequest) => Promise<HttpResponse>;
  update?: (req: HttpRequest, id: string) => Promise<HttpResponse>;
  patch?: (req: HttpRequest, id: string) => Promise<HttpResponse>;
  delete?: (req: HttpRequest, id: string) => Promise<HttpResponse>;
}

export interface FhirTypeEntry {
  type: string;
  /** Where writes go instead, for the 405 text of read-only types. */
  readOnlyHint?: string;
  documentation?: string;
  searchParams: () => readonly SearchParamCapability[];
  handlers: FhirTypeHandlers;
}

export interface FhirRegistry {
  types: ReadonlyMap<string, FhirTypeEntry>;
  /** `POST /FHIR/R5/` with a batch Bundle. */
  batch?: (req: HttpRequest) => Promise<HttpResponse>;
}

export function interactionsOf(entry: FhirTypeEntry): TypeInteraction[] {
  const h = entry.handlers;
  const out: TypeInteraction[] = [];
  if (h.read) out.push('read');
  if (h.vread) out.push('vread');
  if (h.search) out.push('search-type');
  if (h.create) out.push('create');
  if (h.update) out.push('update');
  if (h.patch) out.push('patch');
  if (h.delete) out.push('delete');
  return out;
}

export function createRegistry(entries: readonly FhirTypeEntry[], batch?: FhirRegistry['batch']): FhirRegistry {
  const types = new Map<string, FhirTypeEntry>();
  for (const entry of entries) {
    if (types.has(entry.type)) throw new Error(`FHIR type ${entry.type} registered twice`);
    types.set(entry.type, entry);
  }
  return batch ? { types, batch } : { types };
}
