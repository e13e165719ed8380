/**
 * What every `/api/v1/` route does before its domain call: authenticate the caller, read ids from
 * the path (a malformed id is a 404, as for a missing one), and parse the query string.
 */
import type { z } from 'zod';
import { authenticate } from '../auth/authenticate';
import type { Caller } from '../auth/caller';
import { parseId } from '../directory/ids';
import type { Id } from '../directory/model';
import { fieldErrors, notFound } from '../http/errors';
import type { HttpRequest } from '../http/request';
import type { HttpResponse } from '../http/response';
import type { Method, Route } from '../http/router';
import { fieldErrorsOf, parseBody, queryObject } from './body';

export type CallerHandler = (req: HttpRequest, caller: Caller) => Promise<HttpResponse>;

/** A route whose handler runs only for an authenticated caller (401 otherwise). */
export function authed(method: Method, path: string, handler: CallerHandler): Route {
  return { method, path, handler: async (req) => handler(req, await authenticate(req)) };
}

/** The id in a path segment; anything that is not an id is a 404. */
export function pathId(req: HttpRequest, name = 'id'): Id {
  const id = parseId(req.params[name]);
  if (id === undefined) throw notFound('Not found.');
  return id;
}

/** The query parameters named in the schema's shape (snake_case or camelCase), parsed by it. */
export function parseQuery<S extends z.ZodObject>(schema: S, query: URLSearchParams): z.output<S> {
  const input = queryObject(query, Object.keys(schema.shape));
  const result = schema.safeParse(input);
  if (!result.success) throw fieldErrors(fieldErrorsOf(result.error.issues, input));
  return result.data;
}

/**
 * Parameters of a removal: from the body when one was sent (`DELETE` with a JSON body), else from
 * the query string (clients that cannot send a body with `DELETE`).
 */
export function parseBodyOrQuery<S extends z.ZodObject>(schema: S, req: HttpRequest): z.output<S> {
  return req.rawBody !== undefined ? parseBody(schema, req.body) : parseQuery(schema, req.query);
}
