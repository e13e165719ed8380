/**
 * Matching criteria against extracted index values, with R5 semantics. Ordered values are ranges:
 * `eq` means the search range contains the value's range, `gt` that the value reaches above the
 * search range, `sa` that it starts after it, `ap` that the two overlap within a tolerance (10% of
 * the distance from now for dates, 10% of the value for numbers), and so on for each prefix.
 * A resource matches a criterion when any of its values matches any of the criterion's values;
 * `:not` matches resources with no matching value (including those with no value at all).
 */
import type { ComponentQuery, Criterion, DateQuery, NumberQuery, Prefix, QuantityQuery, ReferenceQuery, TokenQuery } from './criteria';
import type { TimeRange } from './dates';
import type {
  CompositeValue,
  DateValue,
  IndexValue,
  NumberValue,
  QuantityValue,
  ReferenceValue,
  SearchIndex,
  StringValue,
  TokenValue,
} from './index-values';

/** Every criterion holds (AND). `now` anchors `ap` on dates. */
export function matchesAll(index: SearchIndex, criteria: readonly Criterion[], now = Date.now()): boolean {
  return criteria.every((c) => matchesCriterion(index, c, now));
}

export function matchesCriterion(index: SearchIndex, criterion: Criterion, now = Date.now()): boolean {
  const values = index[criterion.param.code] ?? [];
  switch (criterion.kind) {
    case 'missing':
      return (values.length === 0) === criterion.missing;
    case 'token': {
      const tokens = values as TokenValue[];
      if (criterion.modifier === 'text') return tokens.some((t) => criterion.values.some((q) => textMatches(t.t, q.text!)));
      const any = tokens.some((t) => criterion.values.some((q) => tokenMatches(t, q)));
      return criterion.modifier === 'not' ? !any : any;
    }
    case 'string':
      return (values as StringValue[]).some((v) => criterion.values.some((q) => stringMatches(v, q, criterion.modifier)));
    case 'date':
      return (values as DateValue[]).some((v) => criterion.values.some((q) => dateMatches(v, q, now)));
    case 'number':
      return (values as NumberValue[]).some((v) => criterion.values.some((q) => numberMatches(v, q)));
    case 'quantity':
      return (values as QuantityValue[]).some((v) => criterion.values.some((q) => quantityMatches(v, q)));
    case 'reference':
      return (values as ReferenceValue[]).some((v) => criterion.values.some((q) => referenceMatches(v, q)));
    case 'reference-identifier':
      return (values as ReferenceValue[]).some((v) => v.k !== undefined && criterion.values.some((q) => tokenMatches(v.k!, q)));
    case 'uri':
      return (values as string[]).some((v) => criterion.values.some((q) => uriMatches(v, q, criterion.modifier)));
    case 'composite':
      return (values as CompositeValue[]).some((v) =>
        criterion.values.some((q) => q.every((part, i) => componentMatches(v[criterion.param.components![i]!.code] ?? [], part, now))),
      );
  }
}

export function tokenMatches(value: TokenValue, query: TokenQuery): boolean {
  if (query.code !== undefined && value.c !== query.code) return false;
  if (query.system === null) return value.s === undefined;
  if (query.system !== undefined && value.s !== query.system) return false;
  return query.code !== undefined || query.system !== undefined;
}

/** `:text`: the query starts a word of the text (both normalised). */
function textMatches(text: string | undefined, query: string): boolean {
  if (!text) return false;
  return text.startsWith(query) || text.includes(` ${query}`);
}

function stringMatches(value: StringValue, query: string, modifier: 'exact' | 'contains' | undefined): boolean {
  if (modifier === 'exact') return value.v === query;
  if (modifier === 'contains') return value.n.includes(query);
  return value.n.startsWith(query);
}

/** Range comparison of a target `[lo, hi)` with a search range, per prefix. */
export function rangeMatches(prefix: Prefix, search: TimeRange, target: TimeRange, tolerance: number): boolean {
  const contains = target.lo >= search.lo && target.hi <= search.hi;
  switch (prefix) {
    case 'eq':
      return contains;
    case 'ne':
      return !contains;
    case 'gt':
      return target.hi > search.hi;
    case 'lt':
      return target.lo < search.lo;
    case 'ge':
      return target.hi > search.hi || contains;
    case 'le':
      return target.lo < search.lo || contains;
    case 'sa':
      return target.lo >= search.hi;
    case 'eb':
      return target.hi <= search.lo;
    case 'ap':
      return target.lo < search.hi + tolerance && target.hi > search.lo - tolerance;
  }
}

export function dateMatches(value: DateValue, query: DateQuery, now: number): boolean {
  const tolerance = query.prefix === 'ap' ? 0.1 * Math.abs(now - (query.range.lo + query.range.hi) / 2) : 0;
  return rangeMatches(query.prefix, query.range, value, tolerance);
}

/**
 * Numbers: the target is a closed range `[lo, hi]` (a plain value has lo = hi). `eq` and `ne` use
 * the precision the search value was written with; the other prefixes compare with the value.
 */
export function numberMatches(value: NumberValue, query: NumberQuery): boolean {
  const v = query.value;
  switch (query.prefix) {
    case 'eq':
      return value.lo >= query.lo && value.hi < query.hi;
    case 'ne':
      return !(value.lo >= query.lo && value.hi < query.hi);
    case 'gt':
      return value.hi > v;
    case 'lt':
      return value.lo < v;
    case 'ge':
      return value.hi >= v;
    case 'le':
      return value.lo <= v;
    case 'sa':
      return value.lo > v;
    case 'eb':
      return value.hi < v;
    case 'ap': {
      const tolerance = Math.abs(v) * 0.1;
      return value.lo <= v + tolerance && value.hi >= v - tolerance;
    }
  }
}

function quantityMatches(value: QuantityValue, query: QuantityQuery): boolean {
  if (query.system !== undefined && value.s !== query.system) return false;
  if (query.code !== undefined) {
    const sameCode = value.c === query.code || (query.system === undefined && value.u === query.code);
    if (!sameCode) return false;
  }
  return numberMatches(value, query);
}

function referenceMatches(value: ReferenceValue, query: ReferenceQuery): boolean {
  if (query.url !== undefined) return value.u === query.url && (query.version === undefined || value.v === query.version);
  if (value.r === undefined || value.i !== query.id) return false;
  return query.type === undefined || value.t === query.type;
}

function uriMatches(value: string, query: string, modifier: 'below' | 'above' | undefined): boolean {
  if (modifier === 'below') return isBelow(value, query);
  if (modifier === 'above') return isBelow(query, value);
  return value === query;
}

/** `uri` is `base` or lies under it (path-segment boundary; a trailing slash on base optional). */
function isBelow(uri: string, base: string): boolean {
  if (uri === base) return true;
  const prefix = base.endsWith('/') ? base : `${base}/`;
  return uri.startsWith(prefix);
}

function componentMatches(values: IndexValue[], part: ComponentQuery, now: number): boolean {
  switch (part.kind) {
    case 'token':
      return (values as TokenValue[]).some((v) => tokenMatches(v, part.value));
    case 'string':
      return (values as StringValue[]).some((v) => v.n.startsWith(part.value));
    case 'date':
      return (values as DateValue[]).some((v) => dateMatches(v, part.value, now));
    case 'number':
      return (values as NumberValue[]).some((v) => numberMatches(v, part.value));
    case 'quantity':
      return (values as QuantityValue[]).some((v) => quantityMatches(v, part.value));
    case 'reference':
      return (values as ReferenceValue[]).some((v) => referenceMatches(v, part.value));
    case 'uri':
      return (values as string[]).some((v) => v === part.value);
  }
}
