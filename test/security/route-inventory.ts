/**
 * Every route the five Lambdas serve, read from their own route lists, and the rows the isolation
 * table therefore owes: one per method and template, and for the FHIR `{type}` templates one per
 * resource type as isolation-table.ts explains. The alias base `/fhir/r5` is the same route list
 * again (shared/fhir/router.ts builds both from one loop): its routes are owed under the canonical
 * base; the test checks that they run the same code and sends the first row of each route under both.
 */
import { routes as apiRoutes } from '../../functions/api/handler';
import { registry, routes as fhirRoutes } from '../../functions/fhir/handler';
import { routes as importRoutes } from '../../functions/fhir-import/handler';
import { routes as mcpRoutes } from '../../functions/mcp/handler';
import { routes as oauthRoutes } from '../../functions/oauth/handler';
import { AUXILIARY_TYPES, NATIVE_SHARED_TYPES, PROJECTION_TYPES } from '../../shared/auxiliary/accepted-types';
import { FHIR_BASES, type Family } from '../../shared/http/families';
import { Router, type Route } from '../../shared/http/router';

export const FAMILY_ROUTES: Readonly<Record<Family, readonly Route[]>> = {
  fhir: fhirRoutes,
  'fhir-import': importRoutes,
  api: apiRoutes,
  oauth: oauthRoutes,
  mcp: mcpRoutes,
};

export const [FHIR_BASE, ...FHIR_ALIASES] = FHIR_BASES;

/** A path under an alias base, written under the canonical one. */
export function canonicalPath(path: string): string {
  const alias = FHIR_ALIASES.find((a) => path === a || path.startsWith(`${a}/`));
  return alias ? `${FHIR_BASE}${path.slice(alias.length)}` : path;
}

/** `METHOD /template`, the way the table names a route. */
export const routeName = (route: Pick<Route, 'method' | 'path'>) => `${route.method} ${canonicalPath(route.path)}`;

/** Every route of every family, aliases folded into the canonical base, each once. */
export function servedRoutes(): Array<{ family: Family; name: string }> {
  const seen = new Map<string, Family>();
  for (const [family, routes] of Object.entries(FAMILY_ROUTES) as Array<[Family, readonly Route[]]>) {
    for (const route of routes) seen.set(routeName(route), family);
  }
  return [...seen].map(([name, family]) => ({ family, name }));
}

/** How each registered FHIR type is served; a type no family claims has no rows and fails the test. */
export type TypeFamily = 'projection' | 'observation' | 'auxiliary';

const AUXILIARY_ONLY: ReadonlySet<string> = new Set(AUXILIARY_TYPES.filter((t) => !NATIVE_SHARED_TYPES.has(t)));

export function typeFamilyOf(type: string): TypeFamily | undefined {
  if (PROJECTION_TYPES.has(type)) return 'projection';
  if (type === 'Observation') return 'observation';
  if (AUXILIARY_ONLY.has(type)) return 'auxiliary';
  return undefined;
}

export const REGISTERED_TYPES: readonly string[] = [...registry.types.keys()];

/** Templates where every registered type gets rows of its own (cheap reads that each say something). */
const EVERY_TYPE_TEMPLATES = new Set([`GET ${FHIR_BASE}/{type}`, `GET ${FHIR_BASE}/{type}/{id}`]);

/**
 * The rows the table owes, as `METHOD /template` or `METHOD /template Type`: for a FHIR `{type}`
 * template, every registered type on the templates above, and on the others every projection type,
 * Observation and the one type standing in for the auxiliary family.
 */
export function owedRows(auxiliaryStandIn: string): string[] {
  const owed: string[] = [];
  for (const { family, name } of servedRoutes()) {
    if (family !== 'fhir' || !name.includes('{type}')) {
      owed.push(name);
      continue;
    }
    const template = name;
    for (const type of REGISTERED_TYPES) {
      const standsForItsFamily = typeFamilyOf(type) !== 'auxiliary' || type === auxiliaryStandIn;
      if (EVERY_TYPE_TEMPLATES.has(template) || standsForItsFamily) owed.push(`${template} ${type}`);
    }
  }
  return owed;
}

const routers = new Map<Family, Router>();

/** The route a request would reach in its family (the real router, over the real routes). */
export function routeReached(family: Family, method: string, path: string): { name: string; params: Record<string, string> } | undefined {
  let router = routers.get(family);
  if (!router) routers.set(family, (router = new Router(FAMILY_ROUTES[family])));
  const match = router.match(method, path.split('?')[0]!);
  return match.kind === 'found' ? { name: routeName(match.route), params: match.params } : undefined;
}
