/**
 * Runs the route a request matched: the one place a route's access is decided and a caller
 * authenticated (once a request), so a handler that needs a caller is never reached without one
 * (401 with its challenge, and the audit line records the refusal) and never looks for one itself;
 * the route's own headers go on every answer, refusals included, and its challenge parameters on
 * its 401 (where a client learns how to get a token).
 */
import { asHttpError, challengedWith, forbidden, isHttpError } from './errors';
import type { Authenticator, CallerNeeds, HttpRequest } from './request';
import type { HttpResponse } from './response';
import type { Access, Route } from './router';

/** Who asks, and what every caller of the family's routes must hold (`createHandler`). */
export interface Callers {
  authenticator: Authenticator;
  needs?: CallerNeeds;
}

/** What a route for practitioners answers a patient (a route for patients names its own refusal). */
const onlyPractitioners = () => forbidden('Only practitioners may do this.');

/** The route's answer; a domain failure it throws becomes its HttpError here, before the route's headers go on it. */
async function run(route: Route, req: HttpRequest, callers: Callers): Promise<HttpResponse> {
  try {
    return await answer(route, req, callers);
  } catch (e) {
    throw asHttpError(e);
  }
}

async function answer(route: Route, req: HttpRequest, callers: Callers): Promise<HttpResponse> {
  // A per-request route answers what needs no caller (404, 405) here, before anyone is asked.
  const access: Access = route.auth === 'per-request' ? route.choose(req) : route;
  if (access.auth === 'none') return access.handler(req);
  const { authenticator } = callers;
  const needs = { ...callers.needs, ...access.needs };
  if (access.auth === 'caller-early') return authenticator.authorizedRead(req, needs, (caller, prepared) => access.handler({ ...req, caller }, prepared), access.prepare);
  const caller = await authenticator.authenticate(req, needs);
  // A route for one kind of caller refuses the other kind here, before its handler runs.
  if (access.auth === 'practitioner') {
    if (caller.kind !== 'practitioner') throw onlyPractitioners();
    return access.handler({ ...req, caller });
  }
  if (access.auth === 'patient') {
    if (caller.kind !== 'patient') throw access.refusal();
    return access.handler({ ...req, caller });
  }
  return access.handler({ ...req, caller });
}

export async function dispatch(route: Route, req: HttpRequest, callers: Callers): Promise<HttpResponse> {
  const { challenge } = route;
  const headers = typeof route.headers === 'function' ? route.headers(req) : route.headers;
  if (!headers && !challenge) return run(route, req, callers);
  try {
    const res = await run(route, req, callers);
    return headers ? { ...res, headers: { ...res.headers, ...headers } } : res;
  } catch (e) {
    if (isHttpError(e)) {
      if (headers) Object.assign(e.headers, headers);
      if (challenge && e.status === 401) challengedWith(e, challenge());
    }
    throw e;
  }
}
