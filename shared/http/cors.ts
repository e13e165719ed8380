/**
 * CORS for the endpoints browser apps on other origins call: token, revocation, userinfo and the
 * discovery documents. No cookies are involved there, so any origin may call them. The sign-in
 * page is a navigation and gets no CORS at all. `/mcp` takes only the origins an operator lists
 * (`originCorsRoutes`).
 */
import type { HttpError } from './errors';
import type { HttpRequest } from './request';
import type { Method, Route, RouteAccess } from './router';
import { noContent } from './response';

const CORS_HEADERS = {
  'Access-Control-Allow-Origin': '*',
  'Access-Control-Allow-Headers': 'Authorization, Content-Type',
  'Access-Control-Max-Age': '600',
};

/**
 * The routes of one path with CORS on each, plus the preflight (`OPTIONS`). The headers are the
 * route's, so errors carry them too (a 401 included), or a browser hides them from the app.
 */
export function corsRoutes(path: string, handlers: Partial<Record<Exclude<Method, 'OPTIONS'>, RouteAccess>>): Route[] {
  const methods = [...Object.keys(handlers), 'OPTIONS'].join(', ');
  const headers = { ...CORS_HEADERS, 'Access-Control-Allow-Methods': methods };
  const routes: Route[] = Object.entries(handlers).map(([method, access]) => ({ ...access!, method: method as Method, path, headers }));
  routes.push({ method: 'OPTIONS', path, auth: 'none', handler: async () => noContent(), headers });
  return routes;
}

/** Who may call a path from a browser page on another origin, and what they may send and read. */
export interface OriginPolicy {
  /** The allowed origins (`scheme://host[:port]`), read per request: settings may load late. */
  origins: () => readonly string[];
  /** What a request from any other origin is answered (thrown), its preflight included. */
  refusal: () => HttpError;
  /** Request headers a page may send (the preflight's `Access-Control-Allow-Headers`). */
  allowHeaders: readonly string[];
  /** Answer headers a page may read beyond the CORS-safelisted ones. */
  exposeHeaders: readonly string[];
}

/**
 * The routes of one path callable from the policy's origins only (where credentials are bearer
 * tokens a page holds, so `*` would not do): every answer to an allowed origin names that origin,
 * and all of them `Vary: Origin` (a cache must not hand one origin's answer to another); the
 * preflight answers an allowed origin, refuses any other, and without `Origin` (no browser's) says
 * which methods the path has. The routes' own handlers refuse other origins themselves (before
 * anyone is asked), since only they know when.
 */
export function originCorsRoutes(path: string, handlers: Partial<Record<Exclude<Method, 'OPTIONS'>, RouteAccess & Pick<Route, 'challenge'>>>, policy: OriginPolicy): Route[] {
  const methods = Object.keys(handlers);
  const allowed = (origin: string | undefined): origin is string => origin !== undefined && policy.origins().includes(origin);
  const expose = policy.exposeHeaders.join(', ');
  const headers = (req: Pick<HttpRequest, 'headers'>): Record<string, string> => {
    const origin = req.headers['origin'];
    return allowed(origin) ? { 'Access-Control-Allow-Origin': origin, 'Access-Control-Expose-Headers': expose, Vary: 'Origin' } : { Vary: 'Origin' };
  };
  const preflight = async (req: HttpRequest) => {
    const origin = req.headers['origin'];
    if (origin === undefined) return noContent({ Allow: [...methods, 'OPTIONS'].join(', ') });
    if (!allowed(origin)) throw policy.refusal();
    return noContent({ 'Access-Control-Allow-Methods': methods.join(', '), 'Access-Control-Allow-Headers': policy.allowHeaders.join(', '), 'Access-Control-Max-Age': '600' });
  };
  const routes: Route[] = Object.entries(handlers).map(([method, access]) => ({ ...access!, method: method as Method, path, headers }));
  routes.push({ method: 'OPTIONS', path, auth: 'none', handler: preflight, headers });
  return routes;
}
