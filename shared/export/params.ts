/**
 * The kick-off's parameters, parsed once into typed values: from the query string of a GET, or the
 * `Parameters` body of a POST. `_outputFormat`, `_since`, `_type`, `_typeFilter` and (POST only)
 * `patient`; any other parameter, and any value this service cannot apply, is a 400 unless the
 * request says `Prefer: handling=lenient` (then it is left out, and the manifest's `request` still
 * names it). Each `_typeFilter` query is parsed here by the same parser its type's search uses, so a
 * filter that would be refused as a search is refused before a job exists.
 */
import { AUXILIARY_TYPES, isAuxiliaryType, PROJECTION_TYPES } from '../auxiliary/accepted-types';
import { parseAuxiliarySearch } from '../auxiliary/search/params';
import { referenceId } from '../auth/scope';
import type { Id } from '../directory/model';
import { operationParameters } from '../fhir/parameters';
import { parsePrefer } from '../fhir/prefer';
import { badRequest } from '../http/errors';
import { parseNativeQuery } from '../observations/search/query';
import { parseDateTime } from '../omh/datetime';

/** Every type an export writes, in the order of its files: the projections, then the data (Device: the data sources, then those FHIR Sources sent). */
const FIRST: readonly string[] = ['Patient', 'Group', 'Device', 'Observation'];
export const EXPORT_TYPES: readonly string[] = [...FIRST, ...AUXILIARY_TYPES.filter((t) => !FIRST.includes(t))];

const EXPORTABLE: ReadonlySet<string> = new Set(EXPORT_TYPES);

/** `_typeFilter` is applied on these types (the projections' own criteria are not, Device's data sources included). */
const FILTERABLE = (type: string) => type === 'Observation' || (isAuxiliaryType(type) && !PROJECTION_TYPES.has(type));

/** The spellings of the one format written (docs/export.md). */
const OUTPUT_FORMATS: ReadonlySet<string> = new Set(['application/fhir+ndjson', 'application/ndjson', 'ndjson']);

/** At most this many values of a list parameter: far beyond a real request, and bounding its work. */
const MAX_VALUES = 1000;

export interface ExportRequest {
  /** Types to export (`_type`), or every type. */
  types: string[];
  /** The types `_type` named, when it was given (what a backend token's scopes must cover). */
  explicitTypes?: string[];
  /** `_typeFilter` queries (type, query string) that apply. */
  typeFilters: Array<[string, string]>;
  /** ISO instant (`_since`). */
  since?: string;
  /** `patient` (POST): narrow to these patients. */
  patients?: Id[];
}

const PARAMETER_NAMES: ReadonlySet<string> = new Set(['_outputFormat', '_since', '_type', '_typeFilter', 'patient']);

/** The types a kick-off parameter's value may have in a Parameters body: text, or for `patient` a reference. */
const TEXT_VALUES: ReadonlySet<string> = new Set(['query', 'valueString', 'valueInstant', 'valueCode', 'valueDateTime']);

/** The name/value pairs of a kick-off (query string or Parameters body); anything malformed is a 400. */
function rawParameters(method: string, query: URLSearchParams, body: unknown): Array<{ name: string; value: string }> {
  return operationParameters(method, query, body, 'A POST kick-off').map((p) => {
    const value = p.type === 'valueReference' ? (p.value as { reference?: unknown } | null)?.reference : TEXT_VALUES.has(p.type) ? p.value : undefined;
    if (typeof value !== 'string') throw badRequest(`Parameter ${p.name} needs a value (valueString, valueInstant or, for patient, valueReference).`, 'required').at(p.at);
    return { name: p.name, value };
  });
}

const splitList = (value: string) =>
  value
    .split(',')
    .map((v) => v.trim())
    .filter((v) => v.length > 0);

/**
 * The kick-off's parameters. `method` is GET or POST; `prefer` the `Prefer` header. A 400
 * OperationOutcome names the first problem.
 */
export function parseExportRequest(method: string, query: URLSearchParams, body: unknown, prefer: string | undefined): ExportRequest {
  const lenient = parsePrefer(prefer).handling === 'lenient';
  /** A value this service cannot apply: a 400, or left out under lenient handling. */
  const refuse = (message: string, at: string) => {
    if (!lenient) throw badRequest(message, 'not-supported').at(at);
  };
  const raw = rawParameters(method, query, body);
  const byName = new Map<string, string[]>();
  for (const { name, value } of raw) {
    if (!PARAMETER_NAMES.has(name)) {
      refuse(`The parameter ${name} is not supported by this export (supported: ${[...PARAMETER_NAMES].join(', ')}).`, name);
      continue;
    }
    byName.set(name, [...(byName.get(name) ?? []), value]);
  }
  const once = (name: string): string | undefined => {
    const values = byName.get(name) ?? [];
    if (values.length > 1) throw badRequest(`Give ${name} once.`).at(name);
    return values[0];
  };

  const format = once('_outputFormat');
  if (format !== undefined && !OUTPUT_FORMATS.has(format.trim())) {
    throw badRequest(`_outputFormat ${format} is not supported: use application/fhir+ndjson (or application/ndjson, ndjson).`, 'not-supported').at('_outputFormat');
  }

  const request: ExportRequest = { types: [...EXPORT_TYPES], typeFilters: [] };
  const since = once('_since');
  if (since !== undefined) {
    const parsed = parseDateTime(since.trim());
    if (typeof parsed === 'string') throw badRequest(`_since must be an instant with a time zone, such as 2025-01-31T12:00:00Z: ${since} ${parsed}.`).at('_since');
    request.since = new Date(parsed.ms).toISOString();
  }

  const typeValues = (byName.get('_type') ?? []).flatMap(splitList);
  if (typeValues.length > MAX_VALUES) throw badRequest(`At most ${MAX_VALUES} types.`, 'too-long').at('_type');
  if (byName.has('_type')) {
    const wanted = new Set<string>();
    for (const type of typeValues) {
      if (EXPORTABLE.has(type)) wanted.add(type);
      else refuse(`_type ${type} is not exported here (exported: ${EXPORT_TYPES.join(', ')}).`, '_type');
    }
    if (typeValues.length === 0) throw badRequest('_type names no type.').at('_type');
    request.types = EXPORT_TYPES.filter((t) => wanted.has(t));
    request.explicitTypes = [...request.types];
  }

  const filters = byName.get('_typeFilter') ?? [];
  if (filters.length > MAX_VALUES) throw badRequest(`At most ${MAX_VALUES} _typeFilter values.`, 'too-long').at('_typeFilter');
  for (const filter of filters) {
    const mark = filter.indexOf('?');
    const type = (mark < 0 ? filter : filter.slice(0, mark)).trim();
    const queryText = mark < 0 ? '' : filter.slice(mark + 1);
    if (!EXPORTABLE.has(type)) {
      refuse(`_typeFilter ${filter}: ${type} is not an exported type.`, '_typeFilter');
      continue;
    }
    if (!FILTERABLE(type)) {
      refuse(`_typeFilter on ${type} is not supported (only on Observation and the auxiliary types).`, '_typeFilter');
      continue;
    }
    if (!request.types.includes(type)) {
      refuse(`_typeFilter ${filter} filters a type that _type leaves out.`, '_typeFilter');
      continue;
    }
    const problem = filterProblem(type, new URLSearchParams(queryText));
    if (problem) refuse(`_typeFilter ${filter}: ${problem}`, '_typeFilter');
    else request.typeFilters.push([type, queryText]);
  }

  const patients = byName.get('patient');
  if (patients) {
    if (method !== 'POST') throw badRequest('patient is accepted only in the Parameters body of a POST kick-off.', 'not-supported').at('patient');
    if (patients.length > MAX_VALUES) throw badRequest(`At most ${MAX_VALUES} patients.`, 'too-long').at('patient');
    request.patients = patients.map((reference) => {
      const id = referenceId(reference, 'Patient');
      if (id === undefined || !/^(Patient\/)?\d+$/.test(reference.trim())) throw badRequest(`patient ${reference} is not a reference to a Patient (Patient/<id>).`).at('patient');
      return id;
    });
  }
  return request;
}

/** Parameters a filter may not carry: the export chooses the patients, the order and the files. */
const NOT_IN_A_FILTER = new Set(['_sort', '_count', '_total', '_summary', '_cursor', '_source', '_include', '_revinclude', '_elements']);

/**
 * Why a `_typeFilter` query cannot be applied as given; undefined when it can. An Observation filter
 * applies to the mobile-health readings and to the auxiliary Observations alike, so both searches'
 * parsers must take it.
 */
function filterProblem(type: string, params: URLSearchParams): string | undefined {
  const outOfPlace = [...new Set([...params.keys()].filter((k) => NOT_IN_A_FILTER.has(k.split(':')[0]!)))];
  if (outOfPlace.length > 0) return `${outOfPlace.join(', ')} cannot be part of a filter.`;
  try {
    const native = type === 'Observation' ? parseNativeQuery(params) : undefined;
    const auxiliary = parseAuxiliarySearch(type, params);
    if (native?.scope.length || auxiliary.scope.length > 0) return 'patients are chosen by the export (a Group export, or patient in a POST), not by a filter.';
    const unsupported = [...(native?.ignored ?? []), ...auxiliary.ignored].map((u) => `${u.name} (${u.reason})`);
    return unsupported.length > 0 ? `cannot apply ${[...new Set(unsupported)].join(', ')}.` : undefined;
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  }
}
