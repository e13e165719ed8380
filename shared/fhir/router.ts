/**
 * The FHIR REST surface as routes over a registry of types, for both bases (`/FHIR/R5` and the
 * `/fhir/r5` alias). Transport-free: the family handler wraps it in the shared middlewares.
 */
import { methodNotAllowed, notFound } from '../http/errors';
import { FHIR_BASES } from '../http/families';
import type { AuthedRequest, HttpRequest } from '../http/request';
import { fhirJson, type HttpResponse } from '../http/response';
import type { Access, Route, RouteAccess } from '../http/router';
import { capabilityStatement } from './capability-statement';
import type { FhirRegistry, FhirTypeEntry, FhirTypeHandlers, InteractionArgs } from './registry';

/** The FHIR base (`/FHIR/R5` or the `/fhir/r5` alias) a path is under. */
export function baseOf(path: string): string {
  return FHIR_BASES.find((b) => path.startsWith(b)) ?? FHIR_BASES[0];
}

/** Where a request's absolute links and locations point: the configured origin and the base the client used. */
export function fhirSiteOf(req: HttpRequest): { origin: string; base: string } {
  return { origin: req.origin, base: baseOf(req.path) };
}

function entryFor(registry: FhirRegistry, type: string): FhirTypeEntry {
  const entry = registry.types.get(type);
  if (!entry) throw notFound(`Unsupported FHIR resource type: ${type}.`).at(type);
  return entry;
}

type Interaction = keyof FhirTypeHandlers;

/** The interactions served at a path: the type (`/Patient`) or an instance (`/Patient/1`). */
const TYPE_LEVEL: readonly Interaction[] = ['search', 'create'];
const INSTANCE_LEVEL: readonly Interaction[] = ['read', 'update', 'patch', 'delete'];

type Handler<K extends Interaction> = (req: AuthedRequest, ...args: InteractionArgs<K>) => Promise<HttpResponse>;
type Choice<K extends Interaction> = (req: HttpRequest, ...args: InteractionArgs<K>) => Access;

/**
 * The access and handler of an interaction on a type, as its entry declares them (405 when the type
 * lacks it): decided before anyone is asked, applied by shared/http/dispatch.ts.
 */
function accessOf<K extends Interaction>(req: HttpRequest, entry: FhirTypeEntry, interaction: K, args: InteractionArgs<K>, level: readonly Interaction[] = [interaction]): Access {
  // A backend service's token reaches a type only if its system scopes name it.
  const needs = { fhirType: entry.type };
  if (entry.auth === 'caller') {
    const handler = entry.handlers[interaction] as Handler<K> | undefined;
    if (handler) return { auth: 'caller', handler: (r) => handler(r, ...args), needs };
  } else {
    const choose = entry.handlers[interaction] as Choice<K> | undefined;
    const access = choose?.(req, ...args);
    if (access) return access.auth === 'none' ? access : { ...access, needs };
  }
  // `Allow` names the methods of this path only (a search's POST lives at `_search`).
  const allowed = level.filter((i) => entry.handlers[i]).map((i) => METHODS_OF[i][0]!);
  throw methodNotAllowed(req.method, req.path, [...new Set(allowed)], entry.readOnlyHint);
}

/** A route over every type at a path: the type's entry decides the access of each request. */
function perType(
  registry: FhirRegistry,
  method: Route['method'],
  path: string,
  access: (req: HttpRequest, entry: FhirTypeEntry) => Access,
): Route {
  return { method, path, auth: 'per-request', choose: (req) => access(req, entryFor(registry, req.params.type!)) };
}

const METHODS_OF: Record<Interaction, string[]> = {
  read: ['GET'],
  vread: ['GET'],
  search: ['GET', 'POST'],
  create: ['POST'],
  update: ['PUT'],
  patch: ['PATCH'],
  delete: ['DELETE'],
};

/** Search parameters from the query string and, for `POST _search`, a form body too. */
export function searchParamsOf(req: HttpRequest): URLSearchParams {
  const params = new URLSearchParams(req.query);
  if (req.method === 'POST' && req.isForm && req.body && typeof req.body === 'object') {
    for (const [k, v] of Object.entries(req.body as Record<string, string | string[]>)) {
      for (const value of Array.isArray(v) ? v : [v]) params.append(k, value);
    }
  }
  return params;
}

/** The FHIR family's routes over a registry, each declaring who may reach it. */
export function fhirRoutes(registry: FhirRegistry): Route[] {
  // The statement depends only on the registry and the base URL: built once per base, served as text.
  const statements = new Map<string, string>();
  const statementFor = (baseUrl: string) => {
    let text = statements.get(baseUrl);
    if (text === undefined) {
      text = JSON.stringify(capabilityStatement(registry, baseUrl));
      if (statements.size < 16) statements.set(baseUrl, text);
    }
    return text;
  };
  // A registry without a batch endpoint answers a POST at the base with a 405, asking no one.
  const batch: RouteAccess = registry.batch
    ? { auth: 'caller', handler: registry.batch }
    : { auth: 'none', handler: async (req) => Promise.reject(methodNotAllowed(req.method, req.path, [])) };
  const routes: Route[] = [];
  for (const base of FHIR_BASES) {
    for (const op of registry.operations) {
      const path = op.level === 'system' ? `${base}/$${op.name}` : op.level === 'type' ? `${base}/${op.type}/$${op.name}` : `${base}/${op.type}/{id}/$${op.name}`;
      const access: RouteAccess = 'early' in op ? { auth: 'per-request', choose: op.early } : { auth: 'caller', handler: (req) => op.handler(req, req.params.id) };
      for (const method of ['GET', 'POST'] as const) routes.push({ method, path, ...access });
    }
    routes.push(
      {
        method: 'GET',
        path: `${base}/metadata`,
        auth: 'none',
        handler: async (req) => fhirJson(200, statementFor(`${req.origin}${baseOf(req.path)}`), { 'Cache-Control': 'public, max-age=3600' }),
      },
      { method: 'POST', path: base, ...batch },
      perType(registry, 'GET', `${base}/{type}`, (req, entry) => accessOf(req, entry, 'search', [searchParamsOf(req)], TYPE_LEVEL)),
      perType(registry, 'POST', `${base}/{type}/_search`, (req, entry) => accessOf(req, entry, 'search', [searchParamsOf(req)])),
      perType(registry, 'POST', `${base}/{type}`, (req, entry) => accessOf(req, entry, 'create', [], TYPE_LEVEL)),
      perType(registry, 'GET', `${base}/{type}/{id}/_history/{vid}`, (req, entry) => accessOf(req, entry, 'vread', [req.params.id!, req.params.vid!])),
      ...(['read', 'update', 'patch', 'delete'] as const).map((interaction) =>
        perType(registry, METHODS_OF[interaction][0] as Route['method'], `${base}/{type}/{id}`, (req, entry) => accessOf(req, entry, interaction, [req.params.id!], INSTANCE_LEVEL)),
      ),
    );
  }
  return routes;
}
