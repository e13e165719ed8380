/**
 * What the FHIR endpoint serves, type by type. The FHIR router dispatches through this registry
 * and the CapabilityStatement is generated from it, so the statement lists exactly what works.
 */
import type { AuthedRequest, HttpRequest } from '../http/request';
import type { HttpResponse } from '../http/response';
import type { Access } from '../http/router';

export type SearchParamType = 'number' | 'date' | 'string' | 'token' | 'reference' | 'composite' | 'quantity' | 'uri' | 'special';

export interface SearchParamCapability {
  name: string;
  type: SearchParamType;
  documentation?: string;
  /** Canonical URL of the standard's SearchParameter, when the parameter is one. */
  definition?: string;
}

export type TypeInteraction = 'read' | 'vread' | 'search-type' | 'create' | 'update' | 'patch' | 'delete';

/**
 * One resource type's handlers, for requests `R` (by default with their caller); an absent handler
 * is an interaction the type does not offer (405).
 */
export interface FhirTypeHandlers<R extends HttpRequest = AuthedRequest> {
  read?: (req: R, id: string) => Promise<HttpResponse>;
  /** `GET <Type>/<id>/_history/<versionId>` */
  vread?: (req: R, id: string, versionId: string) => Promise<HttpResponse>;
  search?: (req: R, params: URLSearchParams) => Promise<HttpResponse>;
  create?: (req: R) => Promise<HttpResponse>;
  update?: (req: R, id: string) => Promise<HttpResponse>;
  patch?: (req: R, id: string) => Promise<HttpResponse>;
  delete?: (req: R, id: string) => Promise<HttpResponse>;
}

/** What an interaction's handler takes after the request. */
export type InteractionArgs<K extends keyof FhirTypeHandlers> = NonNullable<FhirTypeHandlers[K]> extends (req: never, ...args: infer A) => unknown ? A : never;

/**
 * A type whose interactions pick their access per request: each answers what needs no caller by
 * throwing (405 for a change of a stored reading), else returns the access and handler of this
 * request, which shared/http/dispatch.ts then applies. Runs before anyone is asked: reads nothing.
 */
export type FhirTypeChoices = { [K in keyof FhirTypeHandlers]?: (req: HttpRequest, ...args: InteractionArgs<K>) => Access };

/**
 * Who reaches a type's handlers (the FHIR router declares it on the route, after its 404 and 405;
 * shared/http/dispatch.ts enforces it):
 * - `'caller'`: an authenticated caller only, whom the handlers receive; anyone else gets a 401.
 * - `'per-request'`: each interaction picks its access per request (`FhirTypeChoices`): the
 *   Observation type, served by two stores, whose native reads may start early.
 */
export type FhirTypeAccess = { auth: 'caller'; handlers: FhirTypeHandlers<AuthedRequest> } | { auth: 'per-request'; handlers: FhirTypeChoices };

export type FhirTypeEntry = FhirTypeAccess & {
  type: string;
  /** Where writes go instead, for the 405 text of read-only types. */
  readOnlyHint?: string;
  documentation?: string;
  searchParams: () => readonly SearchParamCapability[];
};

/** Where an operation is invoked: at the base (`$name`), on a type (`Patient/$name`) or on an instance (`Group/<id>/$name`). */
export type OperationLevel = { level: 'system' } | { level: 'type' | 'instance'; type: string };

/**
 * A FHIR operation (`$name`) the router serves (GET and POST, for an authenticated caller) and the
 * CapabilityStatement lists, at the system level or on its type.
 */
export type FhirOperation = OperationLevel & {
  name: string;
  /** Canonical URL of its OperationDefinition. */
  definition: string;
  documentation?: string;
} & (
    | {
        /** `id` is the instance's, for an instance-level operation. */
        handler: (req: AuthedRequest, id?: string) => Promise<HttpResponse>;
      }
    | {
        /** A read that may begin before the caller is confirmed: its access for the request (`earlyRead`). */
        early: (req: HttpRequest) => Access;
      }
  );

export interface FhirRegistry {
  types: ReadonlyMap<string, FhirTypeEntry>;
  /** `POST /FHIR/R5/` with a batch Bundle, for an authenticated caller. */
  batch?: (req: AuthedRequest) => Promise<HttpResponse>;
  operations: readonly FhirOperation[];
  /** Canonical URLs of the CapabilityStatements this server also conforms to (`instantiates`). */
  instantiates: readonly string[];
}

export interface RegistryExtras {
  batch?: FhirRegistry['batch'];
  operations?: readonly FhirOperation[];
  instantiates?: readonly string[];
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

export function createRegistry(entries: readonly FhirTypeEntry[], extras: RegistryExtras = {}): FhirRegistry {
  const types = new Map<string, FhirTypeEntry>();
  for (const entry of entries) {
    if (types.has(entry.type)) throw new Error(`FHIR type ${entry.type} registered twice`);
    types.set(entry.type, entry);
  }
  for (const op of extras.operations ?? []) {
    if (op.level !== 'system' && !types.has(op.type)) throw new Error(`operation $${op.name} on unregistered type ${op.type}`);
  }
  return { types, ...(extras.batch ? { batch: extras.batch } : {}), operations: extras.operations ?? [], instantiates: extras.instantiates ?? [] };
}
