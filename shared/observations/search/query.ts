/**
 * A native Observation search request, parsed once into typed values: who (the scoping parameters
 * of docs/api.md#search), what (code, `_id`, status, identifier, device), when (`date`, `_lastUpdated`), the
 * order, the page size and position, and what was asked but is not applied here (reported to the
 * client in an OperationOutcome entry, or a 400 under `Prefer: handling=strict`).
 *
 * Value syntax (prefixes, partial dates as ranges, `system|code`, comma = OR, repetition = AND) is
 * parsed by the shared search primitives (`shared/fhir/search`).
 */
import { parseIdentifierToken, type IdentifierValue, type ScopeFilter } from '../../auth/scope';
import { parseSearch, type DateQuery, type TokenQuery, type UnknownParam } from '../../fhir/search';
import { CURSOR_PARAM, readPageRequest } from '../../fhir/searchset';
import { badRequest } from '../../http/errors';
import type { ReadingPeriod } from '../period';
import type { Order } from './order';
import { isValueParam, type ValueCriterion } from './values';

export interface NativeQuery {
  /** All must hold; each is one repetition of the scoping parameters (values within a field are OR). */
  scope: ScopeFilter[];
  /** `code`: each an OR of codings (with `:not` / `:text`); all must hold. */
  codes: Array<{ modifier?: 'not' | 'text'; values: TokenQuery[] }>;
  /** `date`: each an OR of date queries; all must hold (R5's range semantics). */
  dates: DateQuery[][];
  /**
   * The readings of a period (`../period.ts`: effective start within it, undated ones only in the
   * whole history), for the typed queries of `../series.ts`; a FHIR search never sets it.
   */
  period?: ReadingPeriod;
  lastUpdated: DateQuery[][];
  /** `_id`: each an OR of ids (text as sent); all must hold. */
  ids: string[][];
  statuses: Array<{ not: boolean; values: string[] }>;
  identifiers: TokenQuery[][];
  /** `device`: each an OR of data source ids (text as sent). */
  devices: string[][];
  /** `value-quantity`, `component-code`, the composites, ...: each must hold (./values.ts). */
  values: ValueCriterion[];
  order: Order;
  count: number;
  /** `_summary=count` or `_count=0`: the total only. */
  summaryCount: boolean;
  totalAccurate: boolean;
  cursor?: string;
  /** Parameters (or values) this search does not apply. */
  ignored: UnknownParam[];
}

/** Chains of `patient` -> the scope filter field they fill (client text: looked up in a Map). */
const SCOPE_CHAINS: ReadonlyMap<string, keyof ScopeFilter> = new Map([
  ['organization', 'organization'],
  ['identifier', 'identifier'],
  ['_has:Group:member:_id', 'study'],
]);

const SORTS: ReadonlyMap<string, Order> = new Map([
  ['date', { kind: 'date', descending: false }],
  ['-date', { kind: 'date', descending: true }],
  ['_lastUpdated', { kind: 'updated', descending: false }],
  ['-_lastUpdated', { kind: 'updated', descending: true }],
]);

/** Without `_sort`: patient by patient, each patient's newest readings first. */
export const DEFAULT_ORDER: Order = { kind: 'patient', descending: true };

/** A query that finds every reading in reach, in the default order, a page of `count`: what a typed query (`../series.ts`) narrows. */
export function everyReading(count: number): NativeQuery {
  return { scope: [], codes: [], dates: [], lastUpdated: [], ids: [], statuses: [], identifiers: [], devices: [], values: [], order: DEFAULT_ORDER, count, summaryCount: false, totalAccurate: false, ignored: [] };
}

export function parseNativeQuery(params: URLSearchParams): NativeQuery {
  const entries = [...params].filter(([name]) => name !== CURSOR_PARAM && name !== '_source');
  const parsed = parseSearch('Observation', entries);
  const paging = readPageRequest(params);
  const q: NativeQuery = { ...everyReading(paging.count), summaryCount: paging.countOnly, ignored: [...parsed.unknown] };
  const cursor = params.getAll(CURSOR_PARAM);
  if (cursor.length > 1) throw badRequest(`Give ${CURSOR_PARAM} once.`);
  if (cursor[0]) q.cursor = cursor[0];

  for (const c of parsed.criteria) {
    const code = c.param.code;
    if (c.kind === 'missing') {
      q.ignored.push({ name: c.name, reason: 'the :missing modifier is not supported on mobile-health Observations' });
    } else if ((code === 'patient' || code === 'subject') && c.kind === 'reference') {
      const ids = c.values.filter((v) => v.type === undefined || v.type === 'Patient').map((v) => v.id ?? v.url ?? '');
      // Only Patient subjects exist here: another type (or a URL) names no patient.
      q.scope.push({ patient: ids.length > 0 ? ids : [''] });
    } else if (code === 'code' && c.kind === 'token') {
      q.codes.push({ ...(c.modifier ? { modifier: c.modifier } : {}), values: c.values });
    } else if (code === 'date' && c.kind === 'date') {
      q.dates.push(c.values);
    } else if (code === '_lastUpdated' && c.kind === 'date') {
      q.lastUpdated.push(c.values);
    } else if (code === '_id' && c.kind === 'token' && !c.modifier) {
      q.ids.push(c.values.map((v) => v.code ?? ''));
    } else if (code === 'status' && c.kind === 'token' && c.modifier !== 'text') {
      q.statuses.push({ not: c.modifier === 'not', values: c.values.map((v) => v.code ?? '') });
    } else if (code === 'identifier' && c.kind === 'token' && !c.modifier) {
      q.identifiers.push(c.values);
    } else if (isValueParam(code) && (c.kind === 'quantity' || c.kind === 'composite' || (c.kind === 'token' && c.modifier !== 'text'))) {
      q.values.push(c);
    } else if (code === 'device' && c.kind === 'reference') {
      q.devices.push(c.values.filter((v) => v.type === undefined || v.type === 'Device').map((v) => v.id ?? ''));
    } else {
      q.ignored.push({ name: c.name, reason: `'${c.name}' is not supported on mobile-health Observations` });
    }
  }

  for (const chained of parsed.chained) {
    const field = chained.param === undefined || chained.param.code === 'patient' ? SCOPE_CHAINS.get(chained.chain) : undefined;
    const values = chained.values.length > 0 ? chained.values : [''];
    if (!field) q.ignored.push({ name: chained.name, reason: `the chain '${chained.name}' is not supported on mobile-health Observations` });
    else if (field === 'identifier') q.scope.push({ identifier: values.map((v): IdentifierValue => parseIdentifierToken(v)) });
    else q.scope.push({ [field]: values });
  }

  for (const { name, value } of parsed.results) {
    if (name === '_count' || name === '_summary') continue; // read by the kernel (`paging`)
    else if (name === '_sort') q.order = parseOrder(value, q.ignored);
    else if (name === '_total') q.totalAccurate = value === 'accurate';
    else q.ignored.push({ name, reason: `${name} is not supported on mobile-health Observations` });
  }
  q.ignored.push(...paging.ignored);
  return q;
}

function parseOrder(value: string, ignored: UnknownParam[]): Order {
  const keys = value.split(',').map((s) => s.trim()).filter(Boolean);
  const [first, ...rest] = keys;
  if (rest.length > 0) ignored.push({ name: '_sort', reason: `only one sort key is applied; ${rest.join(', ')} ignored` });
  if (first === undefined) return DEFAULT_ORDER;
  const order = SORTS.get(first);
  if (!order) ignored.push({ name: '_sort', reason: `cannot sort by '${first}' (use date, -date, _lastUpdated or -_lastUpdated)` });
  return order ?? DEFAULT_ORDER;
}
