/**
 * Parsing an `/api/v1/` request body into typed input, once, at the edge. Schemas are zod strict
 * objects written in snake_case; a body in camelCase is rewritten first. Every problem becomes a
 * 400 `{field: [messages]}` (camelCase field names, nested ones dotted: `studyScopeConsents.0.studyId`);
 * unknown fields and wrong types included, so no input can reach the store unchecked.
 */
import { fieldErrors, type FieldErrors } from '../http/errors';
import { safeParse, type Issue, type Output, type Schema } from './fields';
import { errorKey, snakeCase, snakeCaseKeys } from './names';

function valueAt(root: unknown, path: readonly PropertyKey[]): unknown {
  let node = root;
  for (const step of path) {
    if (node === null || typeof node !== 'object') return undefined;
    node = (node as Record<PropertyKey, unknown>)[step as string];
  }
  return node;
}

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'list';
  if (typeof value === 'object') return 'dict';
  return typeof value;
}

const TYPE_MESSAGES: Record<string, string> = {
  string: 'Not a valid string.',
  number: 'A valid number is required.',
  int: 'A valid integer is required.',
  boolean: 'Must be a valid boolean.',
};

/** Messages in the wording `/api/v1/` clients know (one per issue). */
function messageOf(issue: Issue, input: unknown): string {
  const value = valueAt(input, issue.path);
  if (value === undefined) return 'This field is required.';
  switch (issue.code) {
    case 'invalid_type':
      if (value === null) return 'This field may not be null.';
      if (issue.expected === 'array') return `Expected a list of items but got type "${describe(value)}".`;
      if (issue.expected === 'object') return `Invalid data. Expected a dictionary, but got ${describe(value)}.`;
      return TYPE_MESSAGES[issue.expected] ?? `Expected ${issue.expected}, got ${describe(value)}.`;
    case 'too_big':
      if (issue.origin === 'string') return `Ensure this field has no more than ${issue.maximum} characters.`;
      if (issue.origin === 'array') return `Ensure this field has no more than ${issue.maximum} elements.`;
      return `Ensure this value is less than or equal to ${issue.maximum}.`;
    case 'too_small':
      if (issue.origin === 'string') return issue.minimum === 1 ? 'This field may not be blank.' : `Ensure this field has at least ${issue.minimum} characters.`;
      if (issue.origin === 'array') return 'This list may not be empty.';
      return `Ensure this value is greater than or equal to ${issue.minimum}.`;
    case 'invalid_value':
      return `"${String(value)}" is not a valid choice.`;
    case 'invalid_format':
      return issue.format === 'email' ? 'Enter a valid email address.' : 'Enter a valid value.';
    default:
      return issue.message;
  }
}

/** Field errors of a failed parse; unknown keys become one `Unknown field.` entry each. */
export function fieldErrorsOf(issues: readonly Issue[], input: unknown): FieldErrors {
  // Keys are client text (`constructor`, `__proto__`): collected in a Map, copied out as own properties.
  const fields = new Map<string, string[]>();
  const add = (key: string, message: string) => {
    const list = fields.get(key) ?? [];
    fields.set(key, list);
    if (!list.includes(message)) list.push(message);
  };
  for (const issue of issues) {
    if (issue.code === 'unrecognized_keys') {
      for (const key of issue.keys) add(errorKey([...issue.path, key]), 'Unknown field.');
    } else {
      add(errorKey(issue.path), messageOf(issue, input));
    }
  }
  return Object.fromEntries(fields);
}

/** The request body parsed by `schema` (an absent body is `{}`); 400 with field errors otherwise. */
export function parseBody<S extends Schema>(schema: S, body: unknown): Output<S> {
  const raw = body === undefined || body === '' ? {} : body;
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
    throw fieldErrors({ nonFieldErrors: [`Invalid data. Expected a dictionary, but got ${describe(raw)}.`] });
  }
  const input = snakeCaseKeys(raw);
  const result = safeParse(schema, input);
  if (!result.success) throw fieldErrors(fieldErrorsOf(result.issues, input));
  return result.data;
}

/**
 * Query parameters as a plain object for a schema: snake_case or camelCase names, each given at
 * most once (a repeated parameter is a 400, never a silent pick).
 */
export function queryObject(query: URLSearchParams, names: readonly string[]): Record<string, string> {
  const wanted = new Set(names);
  const out: Record<string, string> = {};
  for (const [name, value] of query) {
    const snake = snakeCase(name);
    if (!wanted.has(snake)) continue;
    if (Object.hasOwn(out, snake)) throw fieldErrors({ [errorKey([snake])]: ['This parameter was given more than once.'] });
    out[snake] = value;
  }
  return out;
}
