/**
 * The exact tests a row must pass, from a parsed query: codes (resolved against the code table,
 * and per patient against a study's codes), dates with R5 range semantics, last update, status,
 * identifier, device and id. Key conditions only narrow what is read; these decide.
 *
 * An effective time is a half-open range: a `date_time` is the instant `[t, t + 1 ms)`, a period
 * `[start, end)` (part-of-day windows and durations are end-exclusive, so a day-long step count
 * from midnight to midnight lies within that day).
 */
import type { CodeRef, Code, Id } from '../../directory/model';
import type { DateQuery, TokenQuery } from '../../fhir/search';
import type { TimeRange } from '../../fhir/search/dates';
import { dateMatches, tokenMatches } from '../../fhir/search/match';
import { normaliseText } from '../../fhir/search/text';
import type { ReadingFacts } from '../model';
import { inPeriod } from '../period';
import { observationCodingOf, observationCodings, schemaQuantities, type StandardCoding } from '../../omh/quantities';
import { readingSpecimen, readingValues } from '../values';
import type { NativeQuery } from './query';

type CodeCriterion = NativeQuery['codes'][number];

/**
 * Which of a code's readings one `code` parameter (its values OR-ed, before `:not`) names: all of
 * them (its `omh:` coding, or every standard coding its readings may show), some (a blood
 * glucose's standard coding follows its unit and specimen: `http://loinc.org|99504-3` names the
 * interstitial mg/dL readings), or none.
 */
function namedReadings(c: Code, criterion: Pick<CodeCriterion, 'modifier' | 'values'>): 'all' | 'some' | 'none' {
  if (criterion.modifier === 'text') {
    const text = normaliseText(c.display);
    return criterion.values.some((q) => q.text !== undefined && (text.startsWith(q.text) || text.includes(` ${q.text}`))) ? 'all' : 'none';
  }
  if (criterion.values.some((q) => tokenMatches({ s: c.system, c: c.code }, q))) return 'all';
  const quantities = schemaQuantities(c.code);
  const codings = quantities ? observationCodings(quantities) : [];
  const named = codings.filter((coding) => codingNamed(coding, criterion));
  return named.length === 0 ? 'none' : named.length === codings.length ? 'all' : 'some';
}

const codingNamed = (coding: Pick<StandardCoding, 'system' | 'code'>, criterion: Pick<CodeCriterion, 'values'>) =>
  criterion.values.some((q) => tokenMatches({ s: coding.system, c: coding.code }, q));

/** Codes a `code` parameter selects (the readings of each are tested by `codingTests` where it names only some): its alternatives (OR), or the codes not selected whole (`:not`). */
function codesOf(criterion: CodeCriterion, table: readonly Code[]): Set<Id> {
  const wanted = criterion.modifier === 'not' ? (named: string) => named !== 'all' : (named: string) => named !== 'none';
  return new Set(table.filter((c) => wanted(namedReadings(c, criterion))).map((c) => c.id));
}

/** Whether a token of the `code` parameters names no code of the table (one added since it was loaded, perhaps). */
export function namesUnknownCode(query: NativeQuery, table: readonly Code[]): boolean {
  return query.codes.some(
    (criterion) => criterion.modifier !== 'text' && criterion.values.some((q) => !table.some((c) => namedReadings(c, { values: [q] }) !== 'none')),
  );
}

/** The codes the `code` parameters allow together (AND), or undefined when there is none. */
export function codeFilter(query: NativeQuery, table: readonly Code[]): Set<Id> | undefined {
  if (query.codes.length === 0) return undefined;
  return query.codes.map((c) => codesOf(c, table)).reduce((a, b) => new Set([...a].filter((id) => b.has(id))));
}

/**
 * The tests of a reading of each code whose readings a `code` parameter names only some of: the
 * standard coding the reading shows (its unit's and its specimen's, as rendered: the values from
 * the payload where none were kept) is named (or, under `:not`, is not). Empty when every code is
 * named whole or not at all, as for every code but a blood glucose.
 */
export function codingTests(query: NativeQuery, table: readonly Code[]): Map<Id, (o: ReadingFacts) => boolean> {
  const tests = new Map<Id, (o: ReadingFacts) => boolean>();
  for (const c of table) {
    const partial = query.codes.filter((criterion) => criterion.modifier !== 'text' && namedReadings(c, criterion) === 'some');
    const quantities = partial.length > 0 ? schemaQuantities(c.code) : undefined;
    if (!quantities) continue;
    tests.set(c.id, (o) => {
      const coding = observationCodingOf(quantities, readingValues(o, c.code), readingSpecimen(o, quantities));
      return partial.every((criterion) => (coding !== undefined && codingNamed(coding, criterion)) !== (criterion.modifier === 'not'));
    });
  }
  return tests;
}

/** Codes allowed for one patient: the code filter and, under a study filter, the study's codes. */
export function allowedCodes(filter: Set<Id> | undefined, study: readonly Pick<CodeRef, 'id'>[] | undefined): Set<Id> | undefined {
  if (!study) return filter;
  const ids = study.map((c) => c.id);
  return new Set(filter ? ids.filter((id) => filter.has(id)) : ids);
}

/** Ids an `_id` filter allows (AND of ORs), or undefined when there is none. */
export function idFilter(query: NativeQuery): Set<number> | undefined {
  if (query.ids.length === 0) return undefined;
  const sets = query.ids.map((values) => new Set(values.filter((v) => /^[1-9][0-9]{0,15}$/.test(v)).map(Number)));
  return sets.reduce((a, b) => new Set([...a].filter((id) => b.has(id))));
}

export function effectiveRange(o: ReadingFacts): TimeRange | undefined {
  if (o.effective === undefined) return undefined;
  const { start, end } = o.effective;
  return { lo: start, hi: Math.max(start + 1, end) };
}

const allOf = <T>(criteria: readonly T[][], test: (value: T) => boolean) => criteria.every((alternatives) => alternatives.some(test));

/** True when the query tests more of a row than its code and its dates (what the day summaries can count by). */
export function testsBeyondCodeAndDates(query: NativeQuery): boolean {
  return query.ids.length + query.lastUpdated.length + query.statuses.length + query.identifiers.length + query.devices.length + query.values.length > 0;
}

/** True when the query tests more than a row's code, so counting must read the rows. */
export function testsBeyondCode(query: NativeQuery): boolean {
  return query.dates.length > 0 || testsBeyondCodeAndDates(query);
}

/**
 * The exact test of a row; `codes` gives each patient's allowed codes (absent: any code), `values`
 * the test of its values when the query has value criteria (./values.ts, made once per search).
 */
export function rowTest(query: NativeQuery, codes: ReadonlyMap<Id, Set<Id> | undefined>, now = Date.now(), values?: (o: ReadingFacts) => boolean): (o: ReadingFacts) => boolean {
  const ids = idFilter(query);
  const dates = (q: DateQuery[][], range: TimeRange | undefined) => q.length === 0 || (range !== undefined && allOf(q, (d) => dateMatches(range, d, now)));
  return (o) => {
    const allowed = codes.get(o.patientId);
    if (allowed && !allowed.has(o.codeId)) return false;
    if (ids && !ids.has(o.id)) return false;
    if (!dates(query.dates, effectiveRange(o))) return false;
    if (query.period && !inPeriod(o, query.period)) return false;
    // A criterion's work is done only when the query has it: a value search tests thousands of readings.
    if (query.lastUpdated.length > 0) {
      const updated = Date.parse(o.lastUpdated);
      if (!dates(query.lastUpdated, { lo: updated, hi: updated + 1 })) return false;
    }
    if (!query.statuses.every((s) => s.values.includes(o.status) !== s.not)) return false;
    if (query.identifiers.length > 0) {
      const identifiers = o.identifiers.map((i) => ({ ...(i.system !== undefined ? { s: i.system } : {}), c: i.value }));
      if (!allOf(query.identifiers, (q: TokenQuery) => identifiers.some((i) => tokenMatches(i, q)))) return false;
    }
    if (!allOf(query.devices, (d) => d === String(o.deviceId))) return false;
    return values === undefined || values(o);
  };
}
