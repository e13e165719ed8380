/**
 * What every `/api/v1/` route does around its domain call: audit whose data it served, read ids
 * from the path (a malformed id is a 404, as for a missing one), and parse the query string.
 */
import { isPatient, type Caller } from '../auth/caller';
import { parseId } from '../directory/ids';
import type { Id, Page, Paging } from '../directory/model';
import { fieldErrors, notFound } from '../http/errors';
import type { HttpRequest } from '../http/request';
import { json, noContent, type HttpResponse } from '../http/response';
import type { Method, Route } from '../http/router';
import { fieldErrorsOf, parseBody, queryObject } from './body';
import { safeParse, type ObjectSchema, type Output } from './fields';
import { listBody, pagingOf, type PagingStyle } from './list';

export type CallerHandler = (req: HttpRequest, caller: Caller) => Promise<HttpResponse>;

/**
 * A route whose handler runs only for an authenticated caller (401 otherwise, where the route is
 * dispatched). What it served is audited here: a patient's requests concern their own data, and
 * a route under `/api/v1/patients/{id}` the patient it names.
 */
export function authed(method: Method, path: string, handler: CallerHandler): Route {
  const namesPatient = path.startsWith(`${PATIENTS}/{id}`);
  return {
    method,
    path,
    auth: 'caller',
    handler: async (req) => {
      const { caller } = req;
      const response = await handler(req, caller);
      if (response.status < 400) req.audit.touched([isPatient(caller) ? caller.patientId : undefined, namesPatient ? pathId(req) : undefined]);
      return response;
    },
  };
}

const PATIENTS = '/api/v1/patients';

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
  read: (caller: Caller, id: Id) => Promise<unknown>;
  /** PUT's body (the required fields of a new one); absent: no PUT. */
  replace?: R;
  /** PATCH's body (every field optional). */
  change: C;
  update: (caller: Caller, id: Id, body: Output<R> | Output<C>) => Promise<unknown>;
  remove: (caller: Caller, id: Id) => Promise<void>;
}

/** GET, PUT, PATCH and DELETE of one record at `path` (which ends in `{id}`); DELETE answers 204. */
export function itemRoutes<R extends ObjectSchema, C extends ObjectSchema>(path: string, item: ItemRoutes<R, C>): Route[] {
  const replace = item.replace;
  return [
    authed('GET', path, async (req, caller) => json(200, await item.read(caller, pathId(req)))),
    ...(replace ? [authed('PUT', path, async (req, caller) => json(200, await item.update(caller, pathId(req), parseBody(replace, req.body))))] : []),
    authed('PATCH', path, async (req, caller) => json(200, await item.update(caller, pathId(req), parseBody(item.change, req.body)))),
    authed('DELETE', path, async (req, caller) => {
      await item.remove(caller, pathId(req));
      return noContent();
    }),
  ];
}

export interface LinkRoutes<S extends ObjectSchema> {
  /** The body naming the linked record, e.g. `{scope_code_id}`. */
  link: S;
  list: (caller: Caller, id: Id) => Promise<unknown>;
  add: (caller: Caller, id: Id, link: Output<S>) => Promise<unknown>;
  remove: (caller: Caller, id: Id, link: Output<S>) => Promise<void>;
}

/**
 * A record's links at `path` (under `{id}`): GET lists them, POST adds one (201), DELETE removes one
 * (204), named in the body or the query string.
 */
export function linkRoutes<S extends ObjectSchema>(path: string, links: LinkRoutes<S>): Route[] {
  return [
    authed('GET', path, async (req, caller) => json(200, await links.list(caller, pathId(req)))),
    authed('POST', path, async (req, caller) => json(201, (await links.add(caller, pathId(req), parseBody(links.link, req.body))) ?? {})),
    authed('DELETE', path, async (req, caller) => {
      await links.remove(caller, pathId(req), parseBodyOrQuery(links.link, req));
      return noContent();
    }),
  ];
}

/** A paged list at `path`: `{count, next, previous, results}` of the page `list` returns. */
export function listRoute(path: string, style: PagingStyle, list: (req: HttpRequest, caller: Caller, paging: Paging) => Promise<Page<unknown>>): Route {
  return authed('GET', path, async (req, caller) => {
    const paging = pagingOf(req.query, style);
    return json(200, listBody(req, await list(req, caller, paging), paging));
  });
}
