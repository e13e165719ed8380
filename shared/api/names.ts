/**
 * `/api/v1/` speaks snake_case in requests (camelCase accepted too) and camelCase in responses and
 * error bodies. These are the two spellings of a key, and the deep rewrite of a request body.
 */
import { fieldErrors } from '../http/errors';

/** `dataSource` -> `data_source` (a snake_case key is returned unchanged). */
export function snakeCase(key: string): string {
  return key.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
}

/** OAuth's own parameter names keep their spelling everywhere, as OAuth clients expect them. */
const OAUTH_NAMES = new Set(['client_id', 'redirect_uri', 'grant_type', 'token_endpoint']);

/** `data_source` -> `dataSource` (OAuth's `client_id` and its kin stay as they are). */
export function camelCase(key: string): string {
  if (OAUTH_NAMES.has(key)) return key;
  return key.replace(/_([a-z0-9])/g, (_, c: string) => c.toUpperCase());
}

const isPlainObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v) && Object.getPrototypeOf(v) === Object.prototype;

/**
 * The body with every object key in snake_case. A key given in both spellings (`dataSource` and
 * `data_source`) is ambiguous: 400 rather than a silent pick.
 */
export function snakeCaseKeys(value: unknown, path = ''): unknown {
  if (Array.isArray(value)) return value.map((v, i) => snakeCaseKeys(v, `${path}${path ? '.' : ''}${i}`));
  if (!isPlainObject(value)) return value;
  const out: Record<string, unknown> = Object.create(null);
  for (const [key, v] of Object.entries(value)) {
    const snake = snakeCase(key);
    const where = `${path}${path ? '.' : ''}${camelCase(snake)}`;
    if (Object.hasOwn(out, snake)) throw fieldErrors({ [where]: ['This field was given twice (snake_case and camelCase).'] });
    out[snake] = snakeCaseKeys(v, where);
  }
  return { ...out };
}

/** A path of a body (`['study_scope_consents', 0, 'study_id']`) as the error key `studyScopeConsents.0.studyId`. */
export function errorKey(path: readonly PropertyKey[]): string {
  return path.map((p) => (typeof p === 'string' ? camelCase(p) : String(p))).join('.') || 'nonFieldErrors';
}

type CamelCase<S extends string> = S extends `${infer Head}_${infer Tail}` ? `${Head}${Capitalize<CamelCase<Tail>>}` : S;

/** An object type with its snake_case keys in camelCase. */
export type Camel<T> = { [K in keyof T as K extends string ? CamelCase<K> : K]: T[K] };

/** A parsed snake_case body as the camelCase input the domain takes; absent fields stay absent. */
export function camelFields<T extends Record<string, unknown>>(body: T): Camel<T> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(body)) if (value !== undefined) out[camelCase(key)] = value;
  return out as Camel<T>;
}
