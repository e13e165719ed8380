/**
 * A search request on an auxiliary type, parsed once: the scoping parameters (which patients),
 * the criteria on the stored index values (everything the R5 definitions give the type, `_id`,
 * `_lastUpdated`, `_source`), the result parameters (`_sort`, `_count`, `_summary`, `_total`,
 * `_cursor`) and what is ignored (reported back, or a 400 under `Prefer: handling=strict`).
 * Malformed values are a 400 before any store is read.
 */
import { parseIdentifierToken, type IdentifierValue, type IdValues, type ScopeFilter } from '../../auth/scope';
import type { Id } from '../../directory/model';
import { sourceUriPrefix } from '../../fhir/constants';
import { parseSearch, parseSort, type Criterion, type SortSpec, type UnknownParam } from '../../fhir/search';
import { splitUnescaped, unescapeValue } from '../../fhir/search/values';
import { CURSOR_PARAM, enforceHandling, readPageRequest } from '../../fhir/searchset';
import { badRequest } from '../../http/errors';
import { isFhirId } from '../access';

export type TotalMode = 'none' | 'estimate' | 'accurate';

export interface AuxiliarySearch {
  type: string;
  /** All must hold (a repeated scoping parameter is AND); empty: everything the caller may see. */
  scope: ScopeFilter[];
  criteria: Criterion[];
  sort: SortSpec[];
  /** FHIR Sources named exactly by `_source` (OR within, AND across); undefined: no restriction. */
  sourceIds?: Id[];
  /** Ids named by `_id` (OR within, AND across); undefined: no restriction. */
  ids?: string[];
  count: number;
  /** `_summary=count` or `_count=0`: the total only. */
  countOnly: boolean;
  total?: TotalMode;
  cursor?: string;
  /** Ignored parameters, reported in an OperationOutcome entry. */
  ignored: UnknownParam[];
}

/** Scoping parameters (docs/api.md#reading-and-searching) -> the scope filter field they fill. */
const SCOPING: ReadonlyMap<string, keyof ScopeFilter> = new Map([
  ['patient', 'patient'],
  ['patient:Patient', 'patient'],
  ['patient.organization', 'organization'],
  ['patient:Patient.organization', 'organization'],
  ['patient._has:Group:member:_id', 'study'],
  ['_has:Group:member:_id', 'study'],
  ['patient.identifier', 'identifier'],
  ['patient:Patient.identifier', 'identifier'],
]);

/** Accepted and without effect on the result (formatting of the response). */
const HARMLESS = new Set(['_format', '_pretty']);

const alternatives = (raw: string) =>
  splitUnescaped(raw, ',')
    .map(unescapeValue)
    .map((v) => v.trim())
    .filter((v) => v.length > 0);

export function parseAuxiliarySearch(type: string, params: URLSearchParams, prefer?: string): AuxiliarySearch {
  const scopeFields: Array<[keyof ScopeFilter, string[]]> = [];
  const rest: Array<[string, string]> = [];
  let cursor: string | undefined;
  for (const [name, value] of params) {
    const field = SCOPING.get(name.trim());
    if (field) scopeFields.push([field, alternatives(value)]);
    else if (name === CURSOR_PARAM) cursor = value;
    else rest.push([name, value]);
  }
  const parsed = parseSearch(type, rest);
  const ignored = [
    ...parsed.unknown,
    ...parsed.chained.map((c) => ({ name: c.name, reason: `chained parameter '${c.name}' is not supported on ${type}` })),
  ];
  const paging = readPageRequest(params);
  const search: AuxiliarySearch = {
    type,
    scope: scopeFilters(scopeFields),
    criteria: parsed.criteria,
    sort: [],
    count: paging.count,
    countOnly: paging.countOnly,
    ignored,
  };
  if (cursor !== undefined) search.cursor = cursor;
  for (const { name, value } of parsed.results) applyResultParam(search, name, value);
  const sourceIds = exactSources(parsed.criteria);
  if (sourceIds) search.sourceIds = sourceIds;
  const ids = exactIds(parsed.criteria);
  if (ids) search.ids = ids;
  search.ignored.push(...paging.ignored);
  enforceHandling(prefer, search.ignored);
  return search;
}

function applyResultParam(search: AuxiliarySearch, name: string, value: string): void {
  switch (name) {
    case '_sort':
      search.sort.push(...parseSort(search.type, value));
      return;
    case '_count':
    case '_summary':
      return; // read by the kernel (`readPageRequest`)
    case '_total':
      if (value !== 'none' && value !== 'estimate' && value !== 'accurate') {
        throw badRequest(`Invalid _total '${value}': expected none, estimate or accurate.`);
      }
      search.total = value;
      return;
    default:
      if (!HARMLESS.has(name)) search.ignored.push({ name, reason: `result parameter '${name}' is not supported by this server` });
  }
}

/** One scope filter per repetition: the first of each field together, then each further one on its own (AND). */
function scopeFilters(fields: Array<[keyof ScopeFilter, string[]]>): ScopeFilter[] {
  const filters: ScopeFilter[] = [];
  const seen = new Set<keyof ScopeFilter>();
  for (const [field, values] of fields) {
    const target = seen.has(field) || filters.length === 0 ? newFilter(filters) : filters[0]!;
    seen.add(field);
    if (field === 'identifier') target.identifier = values.map(parseIdentifierToken) as IdentifierValue[];
    else (target as Record<string, IdValues>)[field] = values;
  }
  return filters;
}

function newFilter(filters: ScopeFilter[]): ScopeFilter {
  const filter: ScopeFilter = {};
  filters.push(filter);
  return filter;
}

/** The numeric id of a FHIR Source URI (`{prefix}<id>`, at most 15 digits), if the value is one. */
export function sourceIdOfUri(uri: string): Id | undefined {
  const prefix = sourceUriPrefix();
  if (!uri.startsWith(prefix)) return undefined;
  const digits = uri.slice(prefix.length);
  return /^\d{1,15}$/.test(digits) ? Number(digits) : undefined;
}

/**
 * Sources named exactly by `_source` (no modifier). Values that are not a FHIR Source URI cannot
 * match an auxiliary row (each carries its source's URI), so they drop out; an empty list means
 * nothing can match.
 */
function exactSources(criteria: readonly Criterion[]): Id[] | undefined {
  return intersectAll(
    criteria.flatMap((c) =>
      c.kind === 'uri' && c.param.code === '_source' && c.modifier === undefined
        ? [c.values.map(sourceIdOfUri).filter((id): id is Id => id !== undefined)]
        : [],
    ),
  );
}

/**
 * Ids named by `_id` (no modifier; a value with a system cannot match an id, nor can text outside
 * FHIR's id syntax, which is never looked up: it could not even be a key).
 */
function exactIds(criteria: readonly Criterion[]): string[] | undefined {
  return intersectAll(
    criteria.flatMap((c) =>
      c.kind === 'token' && c.param.code === '_id' && c.modifier === undefined
        ? [c.values.flatMap((v) => (v.code !== undefined && (v.system === undefined || v.system === null) && isFhirId(v.code) ? [v.code] : []))]
        : [],
    ),
  );
}

function intersectAll<T>(lists: T[][]): T[] | undefined {
  if (lists.length === 0) return undefined;
  return lists.reduce((acc, list) => acc.filter((x) => list.includes(x)), [...new Set(lists[0])]);
}
