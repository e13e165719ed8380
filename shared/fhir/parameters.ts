/**
 * An operation's input parameters as name/value pairs, from the query string of a GET or the
 * `Parameters` body of a POST: the one reading of a Parameters body every operation shares (bulk
 * export's kick-off, `Observation/$stats`). Anything malformed is a 400 naming where.
 */
import { badRequest } from '../http/errors';

/** One input parameter: a query-string value is text; a body parameter's value is its `value[x]` (or `resource`). */
export interface OperationParameter {
  name: string;
  /** `query` for a query-string value, else the body's field: `valueString`, `valueCoding`, `valuePeriod`, ... */
  type: string;
  value: unknown;
  /** Where it was given, for a 400's location. */
  at: string;
}

/** At most this many parameters: far beyond a real request, and bounding its work. */
export const MAX_PARAMETERS = 1000;

/**
 * The parameters of an operation call. `what` names the request in messages ("A POST kick-off").
 * A POST takes its parameters in the body only; a parameter without a value is a 400.
 */
export function operationParameters(method: string, query: URLSearchParams, body: unknown, what: string): OperationParameter[] {
  const fromQuery = [...query].map(([name, value]) => ({ name, type: 'query', value, at: name }));
  if (method !== 'POST') return fromQuery;
  if (fromQuery.length > 0) throw badRequest(`${what} takes its parameters in the Parameters body, not the query string.`, 'not-supported');
  if (body === undefined || body === null || body === '') return [];
  if (typeof body !== 'object' || Array.isArray(body) || (body as { resourceType?: unknown }).resourceType !== 'Parameters') {
    throw badRequest(`The body of ${what.replace(/^A /, 'a ')} must be a FHIR Parameters resource.`, 'structure');
  }
  const parameter = (body as { parameter?: unknown }).parameter;
  if (parameter === undefined) return [];
  if (!Array.isArray(parameter)) throw badRequest('Parameters.parameter must be a list.', 'structure').at('Parameters.parameter');
  if (parameter.length > MAX_PARAMETERS) throw badRequest(`At most ${MAX_PARAMETERS} parameters.`, 'too-long').at('Parameters.parameter');
  return parameter.map((p: unknown, i) => {
    const at = `Parameters.parameter[${i}]`;
    if (typeof p !== 'object' || p === null || Array.isArray(p)) throw badRequest('A parameter must be an object.', 'structure').at(at);
    const entry = p as Record<string, unknown>;
    if (typeof entry.name !== 'string') throw badRequest('A parameter needs a name.', 'required').at(`${at}.name`);
    const fields = Object.keys(entry).filter((k) => (k.startsWith('value') || k === 'resource') && entry[k] !== undefined);
    if (fields.length !== 1) throw badRequest(`Parameter ${entry.name} needs exactly one value (value[x]).`, 'required').at(at);
    return { name: entry.name, type: fields[0]!, value: entry[fields[0]!], at };
  });
}

/** Body types whose value is a search parameter's text as it stands (a POST of a search-like operation). */
const TEXT_TYPES: ReadonlySet<string> = new Set(['query', 'valueString', 'valueCode', 'valueUri', 'valueCanonical', 'valueId', 'valueDate', 'valueDateTime', 'valueInstant']);
const NUMBER_TYPES: ReadonlySet<string> = new Set(['valueInteger', 'valuePositiveInt', 'valueUnsignedInt', 'valueDecimal']);

/**
 * A parameter's value as the text of a query string, for operations whose parameters are search
 * parameters (`$lastn`): text as it is, numbers and booleans written out, a Reference as its
 * `reference`; any other type is a 400 naming where.
 */
export function parameterText(p: OperationParameter): string {
  if (TEXT_TYPES.has(p.type) && typeof p.value === 'string') return p.value;
  if (NUMBER_TYPES.has(p.type) && typeof p.value === 'number' && Number.isFinite(p.value)) return String(p.value);
  if (p.type === 'valueBoolean' && typeof p.value === 'boolean') return String(p.value);
  const reference = p.type === 'valueReference' && typeof p.value === 'object' && p.value !== null ? (p.value as { reference?: unknown }).reference : undefined;
  if (typeof reference === 'string') return reference;
  throw badRequest(`Parameter ${p.name}: a ${p.type} cannot stand for a search parameter's text here; give a valueString (or valueCode, valueInteger, valueReference).`, 'structure').at(p.at);
}
