/**
 * Request parsing for the OAuth server's `/api/v1/` endpoints (invitations, API keys): strict
 * bodies (unknown fields and wrong types are 400 field errors) and the `/api/v1/` list shape.
 * Deliberately small; once the shared `/api/v1/` helpers exist these are their natural home.
 */
import * as z from 'zod/mini';
import { pageOf, DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE } from '../../shared/directory/paging';
import { fieldErrors, type FieldErrors } from '../../shared/http/errors';
import type { HttpRequest } from '../../shared/http/request';

/** OAuth's own parameter names keep their spelling in `/api/v1/` bodies and errors. */
const OAUTH_NAMES = new Set(['client_id', 'redirect_uri', 'grant_type', 'token_endpoint']);
const camel = (key: string) => (OAUTH_NAMES.has(key) ? key : key.replace(/_([a-z0-9])/g, (_, c: string) => c.toUpperCase()));
const snake = (key: string) => key.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);

function messageOf(issue: z.core.$ZodIssue, input: Record<string, unknown>): string {
  const value = input[String(issue.path[0])];
  if (issue.code === 'invalid_type') {
    if (value === undefined) return 'This field is required.';
    if (value === null) return 'This field may not be null.';
    return issue.expected === 'boolean' ? 'Must be a valid boolean.' : issue.expected === 'int' || issue.expected === 'number' ? 'A valid integer is required.' : 'Not a valid string.';
  }
  if (issue.code === 'too_big' && issue.origin === 'string') return `Ensure this field has no more than ${issue.maximum} characters.`;
  if (issue.code === 'too_small' && issue.origin === 'string') return 'This field may not be blank.';
  return issue.message;
}

/** The JSON body parsed by a strict snake_case schema (camelCase keys accepted); 400 `{field: [messages]}` otherwise. */
export function parseApiBody<S extends z.ZodMiniType>(schema: S, body: unknown): z.output<S> {
  const raw = body === undefined ? {} : body;
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) throw fieldErrors({ nonFieldErrors: ['Invalid data. Expected a dictionary.'] });
  const input: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(raw)) {
    if (Object.hasOwn(input, snake(key))) throw fieldErrors({ [camel(snake(key))]: ['This field was given twice.'] });
    input[snake(key)] = value;
  }
  const result = schema.safeParse(input);
  if (result.success) return result.data;
  const fields: FieldErrors = {};
  for (const issue of result.error.issues) {
    const names = issue.code === 'unrecognized_keys' ? issue.keys : [String(issue.path[0] ?? 'nonFieldErrors')];
    for (const name of names) (fields[camel(name)] ??= []).push(issue.code === 'unrecognized_keys' ? 'Unknown field.' : messageOf(issue, input));
  }
  throw fieldErrors(fields);
}

/** A positive directory id in a body. */
export const bodyId = z.int().check(z.positive(), z.maximum(Number.MAX_SAFE_INTEGER));

function pageNumber(query: URLSearchParams, name: string, fallback: number): number {
  const raw = query.get(name);
  if (raw === null) return fallback;
  const n = Number(raw);
  if (!/^[0-9]{1,9}$/.test(raw) || n < 1) throw fieldErrors({ [camel(name)]: ['A valid integer is required.'] });
  return n;
}

/** One page of a list in the `/api/v1/` shape `{count, next, previous, results}` (`page`, `page_size`). */
export function listBody<T>(req: Pick<HttpRequest, 'query' | 'origin' | 'path'>, all: readonly T[]): Record<string, unknown> {
  const page = pageNumber(req.query, 'page', 1);
  const pageSize = Math.min(pageNumber(req.query, 'page_size', DEFAULT_PAGE_SIZE), MAX_PAGE_SIZE);
  const { count, items } = pageOf(all, { page, pageSize });
  const link = (p: number) => {
    const query = new URLSearchParams(req.query);
    query.set('page', String(p));
    return `${req.origin}${req.path}?${query.toString()}`;
  };
  return {
    count,
    next: page * pageSize < count ? link(page + 1) : null,
    previous: page > 1 ? link(page - 1) : null,
    results: items,
  };
}
