/**
 * The FHIR REST surface as routes over a registry of types, for both bases (`/FHIR/R5` and the
 * `/fhir/r5` alias). Transport-free: the family handler wraps it in the shared middlewares.
 */
import { methodNotAllowed, notFound } from '../http/errors';
import { FHIR_BASES } from '../http/families';
import { runAsCaller, type Authenticate, type AuthedRequest, type HttpRequest } from '../http/request';
import { fhirJson, type HttpResponse } from '../http/response';
import type { Route, RouteAccess } from '../http/router';
import { capabilityStatement } from './capability-statement';
import type { FhirRegistry, FhirTypeEntry, FhirTypeHandlers } from './registry';

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

/** What an interaction's handler takes after the request. */
type ArgsOf<K extends Interaction> = NonNullable<FhirTypeHandlers[K]> extends (req: never, ...args: infer A) => unknown ? A : never;
type Handler<R extends HttpRequest, K extends Interaction> = (req: R, ...args: ArgsOf<K>) => Promise<HttpResponse>;

/**
 * The type's handler of an interaction, run as its entry says: for an entry that needs a caller,
 * with the caller (a 401 otherwise), after the 404 and 405 that need none.
 */
function handlerOf<K extends Interaction>(
  authenticate: Authenticate,
  req: HttpRequest,
  entry: FhirTypeEntry,
  interaction: K,
  level: readonly Interaction[] = [interaction],
): Handler<HttpRequest, K> {
  if (entry.auth === 'caller') {
    const handler = entry.handlers[interaction] as Handler<AuthedRequest, K> | undefined;
    if (handler) return (r, ...args) => runAsCaller(authenticate, r, handler, ...args);
  } else {
    const handler = entry.handlers[interaction] as Handler<HttpRequest, K> | undefined;
    if (handler) return handler;
  }
  // `Allow` names the methods of this path only (a search's POST lives at `_search`).
  const allowed = level.filter((i) => entry.handlers[i]).map((i) => METHODS_OF[i][0]!);
  throw methodNotAllowed(req.method, req.path, [...new Set(allowed)], entry.readOnlyHint);
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

/** The FHIR family's routes over a registry; `authenticate` finds the caller of types that need one. */
export function fhirRoutes(registry: FhirRegistry, authenticate: Authenticate): Route[] {
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
      for (const method of ['GET', 'POST'] as const) routes.push({ method, path, auth: 'caller', handler: (req) => op.handler(req, req.params.id) });
    }
    routes.push(
      {
        method: 'GET',
        path: `${base}/metadata`,
        auth: 'none',
        handler: async (req) => fhirJson(200, statementFor(`${req.origin}${baseOf(req.path)}`), { 'Cache-Control': 'public, max-age=3600' }),
      },
      { method: 'POST', path: base, ...batch },
      {
        method: 'GET',
        path: `${base}/{type}`,
        auth: 'delegated',
        handler: async (req) => {
          const entry = entryFor(registry, req.params.type!);
          return handlerOf(authenticate, req, entry, 'search', TYPE_LEVEL)(req, searchParamsOf(req));
        },
      },
      {
        method: 'POST',
        path: `${base}/{type}/_search`,
        auth: 'delegated',
        handler: async (req) => {
          const entry = entryFor(registry, req.params.type!);
          return handlerOf(authenticate, req, entry, 'search')(req, searchParamsOf(req));
        },
      },
      {
        method: 'POST',
        path: `${base}/{type}`,
        auth: 'delegated',
        handler: async (req) => handlerOf(authenticate, req, entryFor(registry, req.params.type!), 'create', TYPE_LEVEL)(req),
      },
      {
        method: 'GET',
        path: `${base}/{type}/{id}/_history/{vid}`,
        auth: 'delegated',
        handler: async (req) => handlerOf(authenticate, req, entryFor(registry, req.params.type!), 'vread')(req, req.params.id!, req.params.vid!),
      },
      ...(['read', 'update', 'patch', 'delete'] as const).map(
        (interaction): Route => ({
          method: METHODS_OF[interaction][0] as Route['method'],
          path: `${base}/{type}/{id}`,
          auth: 'delegated',
          handler: async (req) => handlerOf(authenticate, req, entryFor(registry, req.params.type!), interaction, INSTANCE_LEVEL)(req, req.params.id!),
        }),
      ),
    );
  }
  return routes;
}
