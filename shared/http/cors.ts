/**
 * CORS for the endpoints browser apps on other origins call: token, revocation, userinfo and the
 * discovery documents. No cookies are involved there, so any origin may call them. The sign-in
 * page is a navigation and gets no CORS at all.
 */
import { isHttpError } from './errors';
import type { Method, Route, RouteHandler } from './router';
import { noContent } from './response';

const CORS_HEADERS = {
  'Access-Control-Allow-Origin': '*',
  'Access-Control-Allow-Headers': 'Authorization, Content-Type',
  'Access-Control-Max-Age': '600',
};

function withCors(handler: RouteHandler, methods: string): RouteHandler {
  const headers = { ...CORS_HEADERS, 'Access-Control-Allow-Methods': methods };
  return async (req) => {
    try {
      const res = await handler(req);
      return { ...res, headers: { ...res.headers, ...headers } };
    } catch (e) {
      // Errors must carry the headers too, or a browser hides them from the app.
      if (isHttpError(e)) Object.assign(e.headers, headers);
      throw e;
    }
  };
}

/** The routes of one path with CORS on each, plus the preflight (`OPTIONS`). */
export function corsRoutes(path: string, handlers: Partial<Record<Exclude<Method, 'OPTIONS'>, RouteHandler>>): Route[] {
  const methods = [...Object.keys(handlers), 'OPTIONS'].join(', ');
  const routes: Route[] = Object.entries(handlers).map(([method, handler]) => ({ method: method as Method, path, handler: withCors(handler!, methods) }));
  routes.push({ method: 'OPTIONS', path, handler: withCors(async () => noContent(), methods) });
  return routes;
}
