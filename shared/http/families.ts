/**
 * The one table of which public paths reach which Lambda. The CDK stack makes its HTTP API routes
 * and CloudFront behaviours from it, and the local gateway routes with it, so they cannot drift.
 */
export const FAMILIES = ['fhir', 'fhir-import', 'api', 'oauth', 'mcp'] as const;
export type Family = (typeof FAMILIES)[number];

export interface GatewayRoute {
  family: Family;
  /** An HTTP API route path: literal segments, or a final `{proxy+}`. Every method goes to the family. */
  path: string;
}

export const FHIR_BASES = ['/FHIR/R5', '/fhir/r5'] as const;
export const IMPORT_BASE = '/fhir-import/R4';
export const API_BASE = '/api/v1';
/** The OAuth endpoints, named here because the discovery documents and the FHIR CapabilityStatement both publish them. */
export const OAUTH_PATHS = {
  authorize: '/o/authorize/',
  token: '/o/token/',
  revoke: '/o/revoke_token/',
  jwks: '/o/.well-known/jwks.json',
  userinfo: '/o/userinfo/',
  register: '/o/register/',
} as const;

/** The assistants' endpoint (MCP over Streamable HTTP, docs/mcp.md). */
export const MCP_PATH = '/mcp';

/**
 * The resources an access token is issued for (RFC 8707), each its own audience, so a token is good
 * at one only: `service`, the FHIR, import and management APIs (one token serves the three, as
 * always), and `mcp`, the assistants' endpoint. `shared/auth/claims.ts` says which audience and
 * which `resource` parameter name each.
 */
export type TokenResource = 'service' | 'mcp';
/**
 * RFC 9728's Protected Resource Metadata: the document of the resource at `/mcp` sits at this path
 * followed by the resource's path; the service's 401 on `/mcp` names it.
 */
export const PROTECTED_RESOURCE_PATH = '/.well-known/oauth-protected-resource';

export const GATEWAY_ROUTES: readonly GatewayRoute[] = [
  ...FHIR_BASES.flatMap((base) => [
    { family: 'fhir' as const, path: base },
    { family: 'fhir' as const, path: `${base}/{proxy+}` },
  ]),
  { family: 'fhir-import', path: IMPORT_BASE },
  { family: 'fhir-import', path: `${IMPORT_BASE}/{proxy+}` },
  { family: 'api', path: `${API_BASE}/{proxy+}` },
  { family: 'api', path: '/health' },
  { family: 'oauth', path: '/o/{proxy+}' },
  { family: 'oauth', path: '/.well-known/{proxy+}' },
  { family: 'oauth', path: '/auth/callback' },
  // Exact routes win over `/.well-known/{proxy+}`: the MCP family answers for its own resource.
  { family: 'mcp', path: MCP_PATH },
  { family: 'mcp', path: `${PROTECTED_RESOURCE_PATH}${MCP_PATH}` },
];

/**
 * Requests that match no route (API Gateway's `$default`) go to the FHIR family: it serves the
 * batch endpoint at `/FHIR/R5/` whether or not API Gateway counts that trailing slash as a match of
 * the exact route, and answers any other stray path with a 404 in that path's dialect.
 */
export const DEFAULT_ROUTE_FAMILY: Family = 'fhir';

/** CloudFront path patterns that send a request to the API instead of the portal bucket. */
export function cloudFrontApiPatterns(): string[] {
  const patterns = [...new Set(GATEWAY_ROUTES.map((r) => r.path.replace(/\/\{proxy\+\}$/, '/*')))];
  // An exact path a wildcard already sends to the API needs no behaviour of its own (CloudFront caps their number).
  const wildcards = patterns.filter((p) => p.endsWith('/*')).map((p) => p.slice(0, -1));
  return patterns.filter((p) => p.endsWith('/*') || !wildcards.some((w) => p.startsWith(w)));
}

/** Whether CloudFront would send this path to the API (else it is a portal file). */
export function isApiPath(path: string): boolean {
  return cloudFrontApiPatterns().some((p) => (p.endsWith('/*') ? path.startsWith(p.slice(0, -1)) : path === p));
}

/**
 * API Gateway's choice for a path: an exact route beats a greedy one, a longer prefix beats a
 * shorter one; `undefined` means the `$default` route.
 */
export function selectGatewayRoute(path: string): { route: GatewayRoute; proxy?: string } | undefined {
  let best: { route: GatewayRoute; proxy?: string; weight: number } | undefined;
  for (const route of GATEWAY_ROUTES) {
    const greedy = route.path.endsWith('/{proxy+}');
    const prefix = greedy ? route.path.slice(0, -'{proxy+}'.length) : route.path;
    const fits = greedy ? path.startsWith(prefix) && path.length > prefix.length : path === route.path;
    if (!fits) continue;
    const weight = prefix.length + (greedy ? 0 : 10_000);
    if (!best || weight > best.weight) best = greedy ? { route, weight, proxy: path.slice(prefix.length) } : { route, weight };
  }
  if (!best) return undefined;
  return best.proxy === undefined ? { route: best.route } : { route: best.route, proxy: best.proxy };
}

export function familyForPath(path: string): Family {
  return selectGatewayRoute(path)?.route.family ?? DEFAULT_ROUTE_FAMILY;
}

/** How errors and bodies are rendered on a path. */
export type Dialect = 'fhir' | 'api' | 'oauth' | 'plain';

/** The dialect of a path. */
export function dialectOf(path: string): Dialect {
  if (/^\/(FHIR\/R5|fhir\/r5|fhir-import\/R4)(\/|$)/.test(path)) return 'fhir';
  if (path.startsWith(`${API_BASE}/`) || path === API_BASE) return 'api';
  if (path.startsWith('/o/') || path.startsWith('/.well-known/')) return 'oauth';
  return 'plain';
}
