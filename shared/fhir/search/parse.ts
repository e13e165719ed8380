/**
 * Parsing a search request for a resource type: each `name[:modifier]=value[,value]` becomes a
 * typed criterion (repetition = AND, comma = OR). Malformed values are a 400 (`HttpError`);
 * parameters the type does not have are reported in `unknown` and the caller decides (ignore, or
 * 400 under `Prefer: handling=strict`, see `rejectUnknown`).
 */
import { badRequest } from '../../http/errors';
import { isKnownResourceType, searchParamsOf, type SearchParamDef, type SearchParamKind } from '../definitions';
import type {
  ChainedParam,
  ComponentQuery,
  CompositeQuery,
  Criterion,
  ParsedSearch,
  QuantityQuery,
  ReferenceQuery,
  TokenQuery,
} from './criteria';
import { normaliseText } from './text';
import { parseDateQuery, parseNumberQuery, splitPrefix, parseNumberValue, splitUnescaped, unescapeValue } from './values';

/** Parameters that shape the result rather than filter it. */
export const RESULT_PARAMETERS = new Set([
  '_count',
  '_sort',
  '_summary',
  '_elements',
  '_include',
  '_revinclude',
  '_total',
  '_contained',
  '_containedType',
  '_format',
  '_pretty',
  '_page',
  '_offset',
  '_score',
  '_maxresults',
  '_graph',
]);

/** Loose spelling of a parameter name: case, `-` and `_` ignored (`clinicalStatus` = `clinical-status`). */
const loose = (name: string) => name.toLowerCase().replace(/[-_]/g, '');

const paramTables = new Map<string, { exact: Map<string, SearchParamDef>; loose: Map<string, SearchParamDef | null> }>();

function paramTable(type: string) {
  let table = paramTables.get(type);
  if (!table) {
    const params = searchParamsOf(type);
    const exact = new Map(params.map((p) => [p.code, p]));
    const byLoose = new Map<string, SearchParamDef | null>();
    for (const p of params) {
      if (p.code.startsWith('_')) continue;
      const key = loose(p.code);
      byLoose.set(key, byLoose.has(key) ? null : p); // null: ambiguous, never guessed
    }
    table = { exact, loose: byLoose };
    paramTables.set(type, table);
  }
  return table;
}

/** The type's parameter of that name (exactly, or loosely spelled when unambiguous). */
export function findSearchParam(type: string, name: string): SearchParamDef | undefined {
  const table = paramTable(type);
  return table.exact.get(name) ?? (name.startsWith('_') ? undefined : (table.loose.get(loose(name)) ?? undefined));
}

export function parseSearch(type: string, params: Iterable<readonly [string, string]>): ParsedSearch {
  const out: ParsedSearch = { criteria: [], chained: [], results: [], unknown: [] };
  for (const [rawName, rawValue] of params) {
    const name = rawName.trim();
    if (RESULT_PARAMETERS.has(name)) {
      out.results.push({ name, value: rawValue });
      continue;
    }
    const colon = name.indexOf(':');
    const dot = name.indexOf('.');
    if (name.startsWith('_has:') || (dot >= 0 && (colon < 0 || dot < colon || isTypeModifierChain(name)))) {
      const chained = parseChained(type, name, rawValue);
      if (chained) out.chained.push(chained);
      else out.unknown.push({ name, reason: `'${name.split('.')[0]}' is not a reference parameter of ${type}` });
      continue;
    }
    const base = colon < 0 ? name : name.slice(0, colon);
    const modifier = colon < 0 ? undefined : name.slice(colon + 1);
    const param = findSearchParam(type, base);
    if (!param) {
      out.unknown.push({ name, reason: `${type} has no search parameter '${base}'` });
      continue;
    }
    const unsupported = unsupportedReason(param);
    if (unsupported) {
      out.unknown.push({ name, reason: unsupported });
      continue;
    }
    const criterion = parseCriterion(param, name, modifier, rawValue);
    if (criterion) out.criteria.push(criterion);
  }
  return out;
}

/** `subject:Patient.name`: a type modifier on the first link of a chain. */
function isTypeModifierChain(name: string): boolean {
  return /^[^:.]+:[A-Z][A-Za-z]+\./.test(name);
}

function unsupportedReason(param: SearchParamDef): string | undefined {
  if (param.type === 'special' || param.processing === 'other' || !param.expression) {
    return `search parameter '${param.code}' is not supported by this server`;
  }
  return undefined;
}

function parseChained(type: string, name: string, value: string): ChainedParam | undefined {
  const values = splitUnescaped(value, ',').map(unescapeValue).filter((v) => v.length > 0);
  if (name.startsWith('_has:')) return { name, chain: name, values };
  const dot = name.indexOf('.');
  const [first, targetType] = name.slice(0, dot).split(':') as [string, string | undefined];
  const param = findSearchParam(type, first);
  if (!param || param.type !== 'reference') return undefined;
  const chained: ChainedParam = { name, param, chain: name.slice(dot + 1), values };
  if (targetType) chained.targetType = targetType;
  return chained;
}

/** Rejects the unknown parameters (for `Prefer: handling=strict`). */
export function rejectUnknown(search: ParsedSearch): void {
  if (search.unknown.length === 0) return;
  throw badRequest(`Unknown search parameter(s): ${search.unknown.map((u) => `${u.name} (${u.reason})`).join('; ')}.`);
}

const MODIFIERS: Record<SearchParamKind, readonly string[]> = {
  token: ['not', 'text'],
  string: ['exact', 'contains'],
  date: [],
  number: [],
  quantity: [],
  reference: ['identifier'],
  uri: ['below', 'above'],
  composite: [],
  special: [],
};

function parseCriterion(param: SearchParamDef, name: string, modifier: string | undefined, raw: string): Criterion | undefined {
  if (modifier === 'missing') {
    if (raw !== 'true' && raw !== 'false') throw badRequest(`Invalid value '${raw}' for '${name}': use true or false.`);
    return { kind: 'missing', name, param, missing: raw === 'true' };
  }
  const isTypeModifier = param.type === 'reference' && modifier !== undefined && /^[A-Z]/.test(modifier);
  if (modifier !== undefined && !isTypeModifier && !MODIFIERS[param.type].includes(modifier)) {
    const allowed = ['missing', ...MODIFIERS[param.type]].map((m) => `:${m}`).join(', ');
    throw badRequest(`Modifier ':${modifier}' is not supported for the ${param.type} parameter '${param.code}' (supported: ${allowed}).`);
  }
  if (isTypeModifier && (!isKnownResourceType(modifier!) || (param.targets && !param.targets.includes(modifier!)))) {
    throw badRequest(`'${modifier}' is not a resource type '${param.code}' can refer to.`);
  }
  const parts = splitUnescaped(raw, ',').filter((v) => v.length > 0);
  if (parts.length === 0) return undefined;
  const base = { name, param };
  switch (param.type) {
    case 'token':
      if (modifier === 'text') return { ...base, kind: 'token', modifier: 'text', values: parts.map((p) => ({ text: normaliseText(unescapeValue(p)) })) };
      return { ...base, kind: 'token', ...(modifier === 'not' ? { modifier: 'not' as const } : {}), values: parts.map(parseToken) };
    case 'string':
      return {
        ...base,
        kind: 'string',
        ...(modifier ? { modifier: modifier as 'exact' | 'contains' } : {}),
        values: parts.map((p) => (modifier === 'exact' ? unescapeValue(p) : normaliseText(unescapeValue(p)))),
      };
    case 'date':
      return { ...base, kind: 'date', values: parts.map((p) => parseDateQuery(unescapeValue(p), param.code)) };
    case 'number':
      return { ...base, kind: 'number', values: parts.map((p) => parseNumberQuery(unescapeValue(p), param.code)) };
    case 'quantity':
      return { ...base, kind: 'quantity', values: parts.map((p) => parseQuantity(p, param.code)) };
    case 'reference':
      if (modifier === 'identifier') return { ...base, kind: 'reference-identifier', values: parts.map(parseToken) };
      return {
        ...base,
        kind: 'reference',
        values: parts.map((p) => parseReference(unescapeValue(p), param.code, param.targets, isTypeModifier ? modifier : undefined)),
      };
    case 'uri':
      return { ...base, kind: 'uri', ...(modifier ? { modifier: modifier as 'below' | 'above' } : {}), values: parts.map(unescapeValue) };
    case 'composite':
      return { ...base, kind: 'composite', values: parts.map((p) => parseComposite(p, param)) };
    default:
      return undefined;
  }
}

/** `system|code`, `code`, `system|`, `|code`. */
export function parseToken(raw: string): TokenQuery {
  const pieces = splitUnescaped(raw, '|');
  if (pieces.length === 1) return { code: unescapeValue(raw) };
  const system = unescapeValue(pieces[0]!);
  const code = unescapeValue(pieces.slice(1).join('|'));
  const query: TokenQuery = { system: system.length > 0 ? system : null };
  if (code.length > 0) query.code = code;
  if (query.system === null && query.code === undefined) {
    throw badRequest(`Invalid token '${raw}': expected code, system|code, system| or |code.`);
  }
  return query;
}

/** `[prefix]number`, `[prefix]number|system|code`, `[prefix]number||unit`. */
function parseQuantity(raw: string, paramName: string): QuantityQuery {
  const pieces = splitUnescaped(raw, '|').map(unescapeValue);
  if (pieces.length !== 1 && pieces.length !== 3) {
    throw badRequest(`Invalid quantity '${raw}' for parameter '${paramName}': expected [prefix]number or [prefix]number|system|code.`);
  }
  const { prefix, rest } = splitPrefix(pieces[0]!, paramName);
  const number = parseNumberValue(rest);
  if (!number) throw badRequest(`Invalid quantity '${raw}' for parameter '${paramName}': '${rest}' is not a number.`);
  const query: QuantityQuery = { prefix, ...number };
  if (pieces.length === 3) {
    if (pieces[1]) query.system = pieces[1];
    if (pieces[2]) query.code = pieces[2];
  }
  return query;
}

const TYPED_ID = /^([A-Z][A-Za-z]+)\/([A-Za-z0-9\-.]{1,64})(?:\/_history\/[A-Za-z0-9\-.]{1,64})?$/;
const BARE_ID = /^[A-Za-z0-9\-.]{1,64}$/;

function parseReference(raw: string, paramName: string, targets?: readonly string[], typeModifier?: string): ReferenceQuery {
  const typed = TYPED_ID.exec(raw);
  if (typed) {
    if (!isKnownResourceType(typed[1]!)) throw badRequest(`Invalid reference '${raw}' for '${paramName}': ${typed[1]} is not a resource type.`);
    if (typeModifier && typed[1] !== typeModifier) throw badRequest(`Reference '${raw}' contradicts the modifier :${typeModifier}.`);
    return { type: typed[1]!, id: typed[2]! };
  }
  if (BARE_ID.test(raw)) {
    const only = targets?.length === 1 ? targets[0] : undefined;
    const type = typeModifier ?? only;
    return type ? { type, id: raw } : { id: raw };
  }
  if (/^[a-z][a-z0-9+.-]*:/i.test(raw)) {
    const bar = raw.indexOf('|');
    return bar < 0 ? { url: raw } : { url: raw.slice(0, bar), version: raw.slice(bar + 1) };
  }
  throw badRequest(`Invalid reference '${raw}' for '${paramName}': expected Type/id, an id, or an absolute URL.`);
}

function parseComposite(raw: string, param: SearchParamDef): CompositeQuery {
  const components = param.components ?? [];
  const pieces = splitUnescaped(raw, '$');
  if (pieces.length !== components.length) {
    throw badRequest(
      `Invalid value '${raw}' for composite parameter '${param.code}': expected ${components.length} parts separated by $ (${components.map((c) => c.code).join('$')}).`,
    );
  }
  return components.map((component, i): ComponentQuery => {
    const piece = pieces[i]!;
    const label = `${param.code} (${component.code})`;
    switch (component.type) {
      case 'token':
        return { kind: 'token', value: parseToken(piece) };
      case 'string':
        return { kind: 'string', value: normaliseText(unescapeValue(piece)) };
      case 'date':
        return { kind: 'date', value: parseDateQuery(unescapeValue(piece), label) };
      case 'number':
        return { kind: 'number', value: parseNumberQuery(unescapeValue(piece), label) };
      case 'quantity':
        return { kind: 'quantity', value: parseQuantity(piece, label) };
      case 'reference':
        return { kind: 'reference', value: parseReference(unescapeValue(piece), label) };
      case 'uri':
        return { kind: 'uri', value: unescapeValue(piece) };
      default:
        throw badRequest(`Composite parameter '${param.code}' has a component of type ${component.type}, which cannot be searched.`);
    }
  });
}
