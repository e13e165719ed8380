/**
 * CORS for the endpoints browser apps on other origins call: token, revocation, userinfo and the
 * discovery documents. No cookies are involved there, so any origin may call them. The sign-in
 * page is a navigation and gets no CORS at all.
 */
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
