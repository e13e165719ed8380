/**
 * Runs the route a request matched: the one place a route's `auth` is enforced, so a handler that
 * needs a caller is never reached without one (401 with its challenge, and the audit line records
 * the refusal), and the route's own headers go on every answer, refusals included.
 */
import { isHttpError } from './errors';
import { runAsCaller, type Authenticate, type HttpRequest } from './request';
import type { HttpResponse } from './response';
import type { Route } from './router';

function run(route: Route, req: HttpRequest, authenticate: Authenticate): Promise<HttpResponse> {
  return route.auth === 'caller' ? runAsCaller(authenticate, req, route.handler) : route.handler(req);
}

export async function dispatch(route: Route, req: HttpRequest, authenticate: Authenticate): Promise<HttpResponse> {
  const headers = route.headers;
  if (!headers) return run(route, req, authenticate);
  try {
    const res = await run(route, req, authenticate);
    return { ...res, headers: { ...res.headers, ...headers } };
  } catch (e) {
    if (isHttpError(e)) Object.assign(e.headers, headers);
    throw e;
  }
}
