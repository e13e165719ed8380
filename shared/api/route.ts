/**
 * What every `/api/v1/` route does around its domain call: declare who may call it, audit whose
 * data it served, read ids from the path (a malformed id is a 404, as for a missing one), and parse
 * the query string.
 */
import { isPatient, type Caller, type PatientCaller, type PractitionerCaller } from '../auth/caller';
import { parseId } from '../directory/ids';
import type { Id, Page, Paging } from '../directory/model';
import { fieldErrors, notFound, type HttpError } from '../http/errors';
import type { AuthedRequest, HttpRequest } from '../http/request';
import { json, noContent, type HttpResponse } from '../http/response';
import type { Method, Route } from '../http/router';
import { fieldErrorsOf, parseBody, queryObject } from './body';
import { safeParse, type ObjectSchema, type Output } from './fields';
import { listBody, pagingOf, type PagingStyle } from './list';

/**
 * An operation only practitioners may call, written `{ forPractitioners: run }`: its route declares
 * `auth: 'practitioner'`, so a patient gets 403 `Only practitioners may do this.` where the route is
 * dispatched, before its body or the record its path names is read, and `run` receives the caller
 * typed as a practitioner.
 */
export interface ForPractitioners<F> {
  readonly forPractitioners: F;
}

/**
 * An operation only patients may call, written `{ forPatients: run, refusal }`: its route declares
 * `auth: 'patient'`, so a practitioner gets `refusal()` where the route is dispatched, before the
 * request is read, and `run` receives the caller typed as a patient.
 */
export interface ForPatients<F> {
  readonly forPatients: F;
  readonly refusal: () => HttpError;
}

/**
 * What a route runs for its caller (the caller first, as the domain's functions take it): a function
 * for any authenticated caller, or one for practitioners only (`ForPractitioners`) or patients only
 * (`ForPatients`).
 */
export type Operation<A extends unknown[], R> =
  | ((caller: Caller, ...args: A) => Promise<R>)
  | ForPractitioners<(caller: PractitionerCaller, ...args: A) => Promise<R>>
  | ForPatients<(caller: PatientCaller, ...args: A) => Promise<R>>;

const PATIENTS = '/api/v1/patients';

/**
 * The route of `op` at `path`, declared for the callers `op` is for (401 for anyone else where the
 * route is dispatched, 403 for a patient on a practitioner's, the route's refusal for a practitioner
 * on a patient's); `answer` makes the response,
 * calling `op` with the caller given. What it served is audited here: a patient's requests concern
 * their own data, and a route under `/api/v1/patients/{id}` the patient it names.
 */
function operationRoute<A extends unknown[], R>(
  method: Method,
  path: string,
  op: Operation<A, R>,
  answer: (req: HttpRequest, run: (...args: A) => Promise<R>) => Promise<HttpResponse>,
): Route {
  const namesPatient = path.startsWith(`${PATIENTS}/{id}`);
  const audited = async (req: AuthedRequest, response: Promise<HttpResponse>) => {
    const res = await response;
    if (res.status < 400) req.audit.touched([isPatient(req.caller) ? req.caller.patientId : undefined, namesPatient ? pathId(req) : undefined]);
    return res;
  };
  if (typeof op === 'function') return { method, path, auth: 'caller', handler: (req) => audited(req, answer(req, (...args) => op(req.caller, ...args))) };
  if ('forPatients' in op) {
    const run = op.forPatients;
    return { method, path, auth: 'patient', refusal: op.refusal, handler: (req) => audited(req, answer(req, (...args) => run(req.caller, ...args))) };
  }
  const run = op.forPractitioners;
  return { method, path, auth: 'practitioner', handler: (req) => audited(req, answer(req, (...args) => run(req.caller, ...args))) };
}

/** A route whose handler runs for an authenticated caller (`{ forPractitioners: handler }`: a practitioner only; `{ forPatients: handler, refusal }`: a patient only). */
export function authed(method: Method, path: string, handler: Operation<[HttpRequest], HttpResponse>): Route {
  return operationRoute(method, path, handler, (req, run) => run(req));
}


/** The id in a path segment; anything that is not an id is a 404. */
export function pathId(req: HttpRequest, name = 'id'): Id {
  const id = parseId(req.params[name]);
  if (id === undefined) throw notFound('Not found.');
  return id;
}

/** The query parameters named in the schema's shape (snake_case or camelCase), parsed by it. */
export function parseQuery<S extends ObjectSchema>(schema: S, query: URLSearchParams): Output<S> {
  const input = queryObject(query, Object.keys(schema.shape));
  const result = safeParse(schema, input);
  if (!result.success) throw fieldErrors(fieldErrorsOf(result.issues, input));
  return result.data;
}

/**
 * Parameters of a removal: from the body when one was sent (`DELETE` with a JSON body), else from
 * the query string (clients that cannot send a body with `DELETE`).
 */
export function parseBodyOrQuery<S extends ObjectSchema>(schema: S, req: HttpRequest): Output<S> {
  return req.rawBody !== undefined ? parseBody(schema, req.body) : parseQuery(schema, req.query);
}

export interface ItemRoutes<R extends ObjectSchema, C extends ObjectSchema> {
  read: Operation<[Id], unknown>;
  /** PUT's body (the required fields of a new one); absent: no PUT. */
  replace?: R;
  /** PATCH's body (every field optional). */
  change: C;
  update: Operation<[Id, Output<R> | Output<C>], unknown>;
  remove: Operation<[Id], void>;
}

/**
 * GET, PUT, PATCH and DELETE of one record at `path` (which ends in `{id}`); DELETE answers 204.
 * Each operation declares its own callers (a record anyone may read that only practitioners change).
 */
export function itemRoutes<R extends ObjectSchema, C extends ObjectSchema>(path: string, item: ItemRoutes<R, C>): Route[] {
  const replace = item.replace;
  return [
    operationRoute('GET', path, item.read, async (req, read) => json(200, await read(pathId(req)))),
    ...(replace ? [operationRoute('PUT', path, item.update, async (req, update) => json(200, await update(pathId(req), parseBody(replace, req.body))))] : []),
    operationRoute('PATCH', path, item.update, async (req, update) => json(200, await update(pathId(req), parseBody(item.change, req.body)))),
    operationRoute('DELETE', path, item.remove, async (req, remove) => {
      await remove(pathId(req));
      return noContent();
    }),
  ];
}

export interface LinkRoutes<S extends ObjectSchema> {
  /** The body naming the linked record, e.g. `{scope_code_id}`. */
  link: S;
  list: Operation<[Id], unknown>;
  add: Operation<[Id, Output<S>], unknown>;
  remove: Operation<[Id, Output<S>], void>;
}

/**
 * A record's links at `path` (under `{id}`): GET lists them, POST adds one (201), DELETE removes one
 * (204), named in the body or the query string. Each operation declares its own callers.
 */
export function linkRoutes<S extends ObjectSchema>(path: string, links: LinkRoutes<S>): Route[] {
  return [
    operationRoute('GET', path, links.list, async (req, list) => json(200, await list(pathId(req)))),
    operationRoute('POST', path, links.add, async (req, add) => json(201, (await add(pathId(req), parseBody(links.link, req.body))) ?? {})),
    operationRoute('DELETE', path, links.remove, async (req, remove) => {
      await remove(pathId(req), parseBodyOrQuery(links.link, req));
      return noContent();
    }),
  ];
}

/** A paged list at `path`: `{count, next, previous, results}` of the page `list` returns. */
export function listRoute(path: string, style: PagingStyle, list: Operation<[Paging, HttpRequest], Page<unknown>>): Route {
  return operationRoute('GET', path, list, async (req, page) => {
    const paging = pagingOf(req.query, style);
    return json(200, listBody(req, await page(paging, req), paging));
  });
}
