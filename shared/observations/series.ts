/**
 * A patient's (or a study's) readings as typed domain functions: a typed query in (whose readings,
 * of which codes, the readings of which period, compared to which values), typed rows and an opaque
 * cursor out. The assistants' tools call these; nothing here knows a URL or a query string. Each
 * builds the same `NativeQuery` a FHIR search parses its URL into and runs it through the same
 * search, count and `$lastn` (so a tool sees exactly what the FHIR API shows that caller); the
 * period is THE readings of a period (`./period.ts`). The statistics are `$stats`' own typed
 * function (`./stats/operation.ts`, `readingStatistics`).
 *
 * Failures are the domain's (shared/failures.ts): a cursor of another query, a limit out of range.
 */
import type { Caller } from '../auth/caller';
import type { Id } from '../directory/model';
import { invalidQuery } from '../failures';
import { DEFAULT_PAGE_SIZE } from '../fhir/constants';
import { findSearchParam, type Prefix, type QuantityQuery, type TokenQuery } from '../fhir/search';
import { parseNumberValue } from '../fhir/search/values';
import { queryCursors } from '../fhir/searchset';
import { config } from '../config';
import { schemaQuantities } from '../omh/quantities';
import { lastn, MAX_LASTN } from './lastn';
import type { StoredObservation } from './model';
import type { ReadingPeriod } from './period';
import { observationPositions } from './search/cursor';
import { countByCode, searchObservations } from './search/execute';
import type { Order } from './search/order';
import { everyReading, type NativeQuery } from './search/query';
import type { ValueCriterion } from './search/values';

/** Whose readings: one patient's, or a study's patients' (and only the codes the study collects). */
export type Subject = { patientId: Id } | { studyId: Id };

/** Comparisons of a value with a number (FHIR's prefixes, as the value search applies them). */
export type Comparator = Extract<Prefix, 'gt' | 'ge' | 'lt' | 'le' | 'eq' | 'ne' | 'ap'>;

/** A reading's value compared to a number, exactly as the FHIR value search compares (docs/api.md#search-by-value). */
export interface ValueCondition {
  /** The reading's code (`omh:heart-rate:2.0`). */
  code: string;
  /** The member compared: an index into the code's schema quantities. */
  member: number;
  comparator: Comparator;
  /** `eq` and `ne` within the precision of its shortest decimal form (120: [119.5, 120.5)). */
  value: number;
  /** A UCUM code or an Open mHealth unit (kg, lb, beats/min): compared in it, converted within a dimension; absent: as uploaded. */
  unit?: string;
}

export interface SeriesQuery {
  subject: Subject;
  /** Reading codes (`omh:heart-rate:2.0`), any of them; every code when absent. */
  codes?: readonly string[];
  /** The readings of this period (`./period.ts`); the whole history, undated readings included, when absent. */
  period?: ReadingPeriod;
  /** Every condition must hold. */
  values?: readonly ValueCondition[];
}

export interface ReadingsQuery extends SeriesQuery {
  /** By effective start (undated readings last either way). */
  order: 'newest' | 'oldest';
  /** Rows at most (1 to the service's largest page). */
  limit: number;
  /** The cursor of the previous answer to this same query. */
  cursor?: string;
  /** Count every match too. */
  total?: boolean;
}

export interface FoundReadings {
  rows: StoredObservation[];
  /** Opaque; bound to the query (the same query with it continues). Absent after the last row. */
  cursor?: string;
  /** Every match, when asked for (or known without another read: a first page that holds them all). */
  total?: number;
}

const ORDERS: Readonly<Record<ReadingsQuery['order'], Order>> = { newest: { kind: 'date', descending: true }, oldest: { kind: 'date', descending: false } };

/** `combo-code-value-quantity`: a member's coding and its value, the principal value and the components alike. */
const VALUE_PARAMETER = 'combo-code-value-quantity';

/** The value search's criterion of a condition. */
function valueCriterion(condition: ValueCondition): ValueCriterion {
  const quantities = schemaQuantities(condition.code);
  const member = quantities?.members[condition.member];
  if (!member) throw invalidQuery(`${condition.code} readings have no value ${condition.member} to compare.`, 'member');
  const number = parseNumberValue(String(condition.value));
  if (!number) throw invalidQuery(`${condition.value} is not a number to compare with.`, 'value');
  // A principal value whose coding follows the reading (a blood glucose's, by unit and specimen) is named by the reading's own code, which every such reading has.
  const named: TokenQuery = member.variants.length > 0 && condition.member === quantities!.principal ? { code: condition.code } : { system: member.coding.system, code: member.coding.code };
  const quantity: QuantityQuery = { prefix: condition.comparator, ...number, ...(condition.unit === undefined ? {} : { code: condition.unit }) };
  return { kind: 'composite', name: VALUE_PARAMETER, param: findSearchParam('Observation', VALUE_PARAMETER)!, values: [[{ kind: 'token', value: named }, { kind: 'quantity', value: quantity }]] };
}

/** The search's typed query of a series query: the same values a FHIR search parses its URL into, and the period. */
function nativeQueryOf(series: SeriesQuery, count: number): NativeQuery {
  const query = everyReading(count);
  query.scope = ['patientId' in series.subject ? { patient: String(series.subject.patientId) } : { study: String(series.subject.studyId) }];
  if (series.codes) query.codes = [{ values: series.codes.map((code) => ({ code })) }];
  if (series.period) query.period = series.period;
  query.values = (series.values ?? []).map(valueCriterion);
  return query;
}

/** The query as its cursors are bound to it: every field that chooses the rows or their order, in a fixed order. */
function canonicalText(q: ReadingsQuery): string {
  const subject = 'patientId' in q.subject ? ['patient', q.subject.patientId] : ['study', q.subject.studyId];
  const values = (q.values ?? []).map((v) => [v.code, v.member, v.comparator, v.value, v.unit ?? null]);
  return JSON.stringify([subject, q.codes ?? null, q.period?.from ?? null, q.period?.to ?? null, values, q.order]);
}

/** A page of the query's readings for the caller, in its order, from its cursor; with the total when asked. */
export async function findReadings(caller: Caller, q: ReadingsQuery, now = Date.now()): Promise<FoundReadings> {
  const max = config().maxPageSize;
  if (!Number.isSafeInteger(q.limit) || q.limit < 1 || q.limit > max) throw invalidQuery(`limit is a whole number from 1 to ${max}.`, 'limit');
  const query: NativeQuery = { ...nativeQueryOf(q, q.limit), order: ORDERS[q.order], totalAccurate: q.total === true, ...(q.cursor === undefined ? {} : { cursor: q.cursor }) };
  const cursors = queryCursors('Observation', canonicalText(q), observationPositions(query.order));
  const page = await searchObservations(caller, query, cursors.read, now);
  return { rows: page.rows, ...(page.next ? { cursor: cursors.write(page.next) } : {}), ...(page.total === undefined ? {} : { total: page.total }) };
}

/**
 * How many readings the query finds of each of its codes (aligned with `query.codes`), counted by
 * the store (whole days from the day summaries), the caller's scope resolved once for them all: for
 * each, what a search for that code alone would count. A code a study does not collect counts none.
 */
export async function countReadingsByCode(caller: Caller, query: SeriesQuery & { codes: readonly string[] }, now = Date.now()): Promise<number[]> {
  const { codes, ...rest } = query;
  return countByCode(caller, nativeQueryOf(rest, DEFAULT_PAGE_SIZE), codes.map((code) => ({ code })), now);
}

export interface LatestQuery {
  patientId: Id;
  /** Reading codes, any of them; every code when absent. */
  codes?: readonly string[];
  /** An observation category (`vital-signs`, `activity`): only the codes in it. */
  category?: string;
  /** The newest of each code, 1 to `MAX_LASTN` (and the readings tied with the last one). */
  max: number;
  /** The newest readings of this period (its dated readings, `./period.ts`); of the whole history when absent. */
  period?: ReadingPeriod;
}

/** Each code's newest readings of the patient, as `$lastn` answers them (grouped by code, newest first). */
export async function latestReadings(caller: Caller, q: LatestQuery, now = Date.now()): Promise<StoredObservation[]> {
  if (!Number.isSafeInteger(q.max) || q.max < 1 || q.max > MAX_LASTN) throw invalidQuery(`max is a whole number from 1 to ${MAX_LASTN}.`, 'max');
  const query = nativeQueryOf({ subject: { patientId: q.patientId }, ...(q.codes ? { codes: q.codes } : {}), ...(q.period ? { period: q.period } : {}) }, DEFAULT_PAGE_SIZE);
  return lastn(caller, { max: q.max, categories: q.category === undefined ? [] : [[{ code: q.category }]], query }, now);
}
