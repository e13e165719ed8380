/**
 * A small path router: `{name}` matches one segment, `{name+}` the rest of the path. A path that
 * matches with another method is a 405 with `Allow`; a path that matches nothing is a 404.
 */
import type { PatientCaller, PractitionerCaller } from '../auth/caller';
import type { HttpError } from './errors';
import type { AuthedRequest, CallerNeeds, HttpRequest } from './request';
import type { HttpResponse } from './response';

export type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE' | 'OPTIONS';

export type RouteHandler = (req: HttpRequest) => Promise<HttpResponse>;
export type CallerRouteHandler = (req: AuthedRequest) => Promise<HttpResponse>;

/**
 * A read that may start while its caller is confirmed (shared/auth's `authorizedRead`): `prepare`,
 * when given, starts caller-free work (tables, the page of the patient a request names or a patient
 * token claims) once the token's signature holds; `handler` may then run for the caller the token
 * claims before the account is read, and runs again as the confirmed caller if they differ. Nothing
 * is released before the account is confirmed. Only for work without side effects.
 */
export interface EarlyRead<P = unknown> {
  prepare?: (claimedPatientId: number | undefined) => Promise<P>;
  handler: (req: AuthedRequest, prepared: Promise<P> | undefined) => Promise<HttpResponse>;
}

/**
 * What a request needs to reach a handler, decided before it runs (shared/http/dispatch.ts, the only
 * place that authenticates):
 * - `'caller'`: an authenticated caller only, whom the handler receives as `req.caller`; anyone else
 *   gets a 401 before the handler runs. A handler that takes an `AuthedRequest` can be registered no
 *   other way.
 * - `'practitioner'`: the same, and the caller a practitioner (a patient gets a 403 before the
 *   handler runs), whom the handler receives typed as one.
 * - `'patient'`: the same for a patient; a practitioner gets the route's own `refusal` (the answers
 *   existing clients know differ between routes) before the handler runs.
 * - `'caller-early'`: any caller, for a read that may start before the account is confirmed
 *   (`EarlyRead`).
 * - `'none'`: anyone (health, discovery, sign-in, the token endpoints, metadata).
 *
 * `needs`: what the caller's token must hold beyond being valid (a FHIR type's system scope), on
 * top of what the route's family needs (`createHandler`).
 */
export type Access =
  | { auth: 'caller'; handler: CallerRouteHandler; needs?: CallerNeeds }
  | { auth: 'practitioner'; handler: (req: AuthedRequest<PractitionerCaller>) => Promise<HttpResponse>; needs?: CallerNeeds }
  | { auth: 'patient'; handler: (req: AuthedRequest<PatientCaller>) => Promise<HttpResponse>; refusal: () => HttpError; needs?: CallerNeeds }
  | ({ auth: 'caller-early'; needs?: CallerNeeds } & EarlyRead)
  | { auth: 'none'; handler: RouteHandler };

/** An early read's access, its prepared work typed as `prepare` makes it. */
export function earlyRead<P>(read: EarlyRead<P>): Access {
  return { auth: 'caller-early', ...(read as EarlyRead) };
}

/**
 * A route's access: fixed, or `'per-request'`: `choose` answers what needs no caller (an unknown
 * FHIR type's 404, an interaction the type lacks 405) by throwing, else picks the access and handler
 * of this request (the FHIR registry's entries, shared/fhir/registry.ts). It runs before anyone is
 * asked, so it reads nothing.
 */
export type RouteAccess = Access | { auth: 'per-request'; choose: (req: HttpRequest) => Access };

export type Route = RouteAccess & {
  method: Method;
  /** e.g. `/api/v1/patients/{id}`; a trailing slash is optional when matching. */
  path: string;
  /**
   * Headers every answer carries, refusals included (CORS: a browser hides an answer without them
   * from the app), those made before the route is reached too (`Router.headersFor`); a function of
   * the request's headers when they depend on them (the `Origin` an answer allows).
   */
  headers?: RouteHeaders;
  /**
   * Parameters the route's 401 adds to its `Bearer` challenge: where a client learns how to get a
   * token (RFC 9728's `resource_metadata`, and `scope`). Read per request: the site URL may load late.
   */
  challenge?: () => Readonly<Record<string, string>>;
};

export type RouteHeaders = Readonly<Record<string, string>> | ((req: Pick<HttpRequest, 'headers'>) => Readonly<Record<string, string>>);

type Segment = { literal: string } | { param: string; rest: boolean };

type CompiledRoute = Route & {
  segments: Segment[];
  specificity: number;
};

export type Match =
  | { kind: 'found'; route: Route; params: Record<string, string> }
  | { kind: 'method-not-allowed'; allowed: Method[] }
  | { kind: 'not-found' };

function splitPath(path: string): string[] {
  return path.split('/').filter((s) => s.length > 0);
}

function compile(route: Route): CompiledRoute {
  const segments: Segment[] = splitPath(route.path).map((s) => {
    const m = /^\{(\w+)(\+)?\}$/.exec(s);
    return m ? { param: m[1]!, rest: m[2] === '+' } : { literal: s };
  });
  const literals = segments.filter((s) => 'literal' in s).length;
  const greedy = segments.some((s) => 'rest' in s && s.rest);
  return { ...route, segments, specificity: literals * 100 + segments.length * 2 - (greedy ? 1 : 0) };
}

function matchSegments(segments: Segment[], parts: string[]): Record<string, string> | undefined {
  const params: Record<string, string> = {};
  for (let i = 0; i < segments.length; i++) {
    const seg = segments[i]!;
    if ('literal' in seg) {
      if (parts[i] !== seg.literal) return undefined;
      continue;
    }
    if (seg.rest) {
      if (i >= parts.length) return undefined;
      params[seg.param] = parts.slice(i).map(safeDecode).join('/');
      return params;
    }
    const part = parts[i];
    if (part === undefined) return undefined;
    params[seg.param] = safeDecode(part);
  }
  return parts.length === segments.length ? params : undefined;
}

function safeDecode(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}

export class Router {
  /** Routes grouped by path pattern, most specific pattern first. */
  private readonly groups: CompiledRoute[][];

  constructor(routes: readonly Route[]) {
    const byPattern = new Map<string, CompiledRoute[]>();
    for (const route of routes.map(compile)) {
      const key = route.segments.map((s) => ('literal' in s ? s.literal : s.rest ? '{+}' : '{}')).join('/');
      byPattern.set(key, [...(byPattern.get(key) ?? []), route]);
    }
    this.groups = [...byPattern.values()].sort((a, b) => b[0]!.specificity - a[0]!.specificity);
  }

  /** The most specific pattern that fits the path decides: its route for the method, or a 405. */
  match(method: string, path: string): Match {
    const parts = splitPath(path);
    for (const group of this.groups) {
      const params = matchSegments(group[0]!.segments, parts);
      if (!params) continue;
      const route = group.find((r) => r.method === method);
      if (route) return { kind: 'found', route, params };
      return { kind: 'method-not-allowed', allowed: group.map((r) => r.method) };
    }
    return { kind: 'not-found' };
  }

  /**
   * The headers the route of this method and path puts on its answers, for an answer made before
   * the route is reached (a body over the limit, malformed JSON, a wrong `Content-Type`); for a
   * method the path lacks (a 405), those of the path's routes. `undefined` when no route has any.
   */
  headersFor(method: string, path: string, req: Pick<HttpRequest, 'headers'>): Readonly<Record<string, string>> | undefined {
    const parts = splitPath(path);
    const group = this.groups.find((g) => matchSegments(g[0]!.segments, parts));
    const route = group && (group.find((r) => r.method === method) ?? group.find((r) => r.headers));
    return typeof route?.headers === 'function' ? route.headers(req) : route?.headers;
  }

  /** Every route, for documentation and the CapabilityStatement. */
  list(): readonly Route[] {
    return this.groups.flat();
  }
}
