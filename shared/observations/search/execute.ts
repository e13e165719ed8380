/**
 * Runs a native search for a caller: the scoping module names the patients (and, under a study
 * filter, each one's codes), each patient's readings are read from the observation store in the
 * order's terms (strongly consistent), and the page is cut from the order at the cursor. Counting
 * (`_summary=count`, `_total=accurate`) makes the same reads without the cursor, counted by the
 * store (testing each reading only when something beyond the code needs testing).
 */
import { patientScope, referenceId } from '../../auth/scope';
import { isPatient, type Caller } from '../../auth/caller';
import pMap from 'p-map';
import type { Code, CodeRef, Id } from '../../directory/model';
import type { TokenQuery } from '../../fhir/search';
import { allOfBounds, anyOfBounds, startBounds, type StartBounds } from '../../fhir/search/date-bounds';
import { allCodesFor } from '../code-table-cache';
import type { KeptValue, ReadingFacts, StoredObservation } from '../model';
import { countReadings, readObservations, type ReadingFilter } from '../read';
import { knownSpan, storedSpans } from '../span-stats';
import { cutPage, type Cursor, type Page } from '../../fhir/searchset';
import { isBounded, startBoundsOf } from '../period';
import { allowedCodes, codeFilter, codingTests, idFilter, namesUnknownCode, rowTest, testsBeyondCode } from './filters';
import { compareIn, positionOf, type Position, type Traversal } from './order';
import type { NativeQuery } from './query';
import { hourTest, keptValuesTest, resolveQueryUnits, testsCodings, valueTest } from './values';
import { candidateRuns, type HourTest } from './hours';
import { clampRuns, decodeRuns, encodeRuns, runsKey, type PlannedRuns } from './runs-hint';
import { patientQueries, type PatientRead } from './segments';
import { orderedRows } from './ordered-rows';
import { ArrayStream, runsOf, type RowStream } from './streams';
import { followsSpecimen, schemaQuantities, type SchemaQuantities } from '../../omh/quantities';
import { keptUnit } from '../values';
import { summarisedCodes } from '../stats/keep';
import { summaryStore } from '../store/summary-current';
import { countableFromSummaries, summaryDays, type SummaryDays } from './summary-days';

type RowPage = Page<StoredObservation, Position>;

export interface SearchPage {
  rows: StoredObservation[];
  next?: Cursor<Position>;
  previous?: Cursor<Position>;
  /** Matches across all pages, when asked for or known without extra reads. */
  total?: number;
}

/** A patient's allowed codes are read one code at a time (one read each) up to this many. */
const MAX_INDEXED_CODES = 4;
/** Patients counted at once. */
const COUNT_CONCURRENCY = 8;
/** Codes counted at once by `countByCode`. */
const CODES_COUNTED_AT_ONCE = 4;

interface Plan {
  patients: Id[];
  /** Allowed codes per patient (absent: any). */
  codes: Map<Id, Set<Id> | undefined>;
  ids: Set<number> | undefined;
  spans: Map<Id, number>;
  /**
   * The test of what a row holds beyond the fields `rowTest` reads: its values (value criteria) and
   * the standard coding they give it (a code named for some of its readings, `codingTests`).
   */
  values: ((o: ReadingFacts) => boolean) | undefined;
  /** `values` of a reading's code and kept values alone, when it reads nothing else (a store may test it first). */
  keptValues: ((codeId: Id, values: KeptValue[] | undefined) => boolean) | undefined;
  /** Codes whose readings the `code` parameters name only some of: neither a count by key nor the day summaries count them. */
  partialCodes: ReadonlySet<Id>;
  /** Whether `values` reads a row's payload (the specimen a blood glucose's coding follows): a count then reads the payloads. */
  payload: boolean;
  /** A code's payload schema's quantities, if it has one. */
  schemaOf: (codeId: Id) => SchemaQuantities | undefined;
  /** The test of an hour of a code's readings by its values' bounds, when the value criteria can rule hours out (./hours.ts). */
  hours: ((codeId: Id) => HourTest | undefined) | undefined;
}

/**
 * The filter a store applies as it reads: `keep`, with whether it reads payloads, and (for value
 * criteria) the test of a stretch of a code's readings by its values' bounds, the hours' test.
 */
function filterOf(p: Plan, keep: (o: ReadingFacts) => boolean): ReadingFilter {
  const hours = p.hours;
  const first = p.keptValues ? { keepValues: p.keptValues } : {};
  if (!hours) return { keep, needsPayload: p.payload, ...first };
  return {
    keep,
    needsPayload: p.payload,
    ...first,
    mayHold: (codeId, bounds) => {
      const test = hours(codeId);
      if (!test) return true;
      const quantities = p.schemaOf(codeId);
      return test(bounds.map(({ member, unit, min, max }) => ({ member, unit: keptUnit(quantities, member, unit), min, max })));
    },
  };
}

type ReadingTests = Pick<Plan, 'values' | 'keptValues' | 'partialCodes' | 'payload' | 'hours' | 'schemaOf'>;

/**
 * The tests of what a row holds, from the query's value criteria (their units resolved once) and
 * its code criteria that name some of a code's readings: of a row, and of an hour by the day
 * summaries. A test reads the payload only for a code whose codings follow the specimen.
 */
async function readingTestsOf(query: NativeQuery, table: readonly Code[]): Promise<ReadingTests> {
  const byCoding = codingTests(query, table);
  const specimenCodes = table.filter((c) => {
    const quantities = schemaQuantities(c.code);
    return quantities !== undefined && followsSpecimen(quantities);
  });
  const payload = specimenCodes.some((c) => byCoding.has(c.id)) || (query.values.some(testsCodings) && specimenCodes.length > 0);
  const codings = byCoding.size === 0 ? undefined : (o: ReadingFacts) => byCoding.get(o.codeId)?.(o) ?? true;
  const codes = new Map(table.map((c) => [c.id, c]));
  const schemaOf = (codeId: Id) => {
    const code = codes.get(codeId);
    return code && schemaQuantities(code.code);
  };
  const base = { partialCodes: new Set(byCoding.keys()), payload, schemaOf };
  if (query.values.length === 0) return { ...base, values: codings, keptValues: undefined, hours: undefined };
  const units = await resolveQueryUnits(query.values);
  const hours = new Map<Id, HourTest | undefined>();
  const values = valueTest(query.values, codes, units)!;
  return {
    ...base,
    values: codings ? (o) => codings(o) && values(o) : values,
    keptValues: keptValuesTest(query.values, codes, units),
    hours: (codeId) => {
      if (!hours.has(codeId)) {
        const code = codes.get(codeId);
        hours.set(codeId, code && hourTest(query.values, code, units));
      }
      return hours.get(codeId);
    },
  };
}

/** The patients in reach under every scoping filter (AND), and the study codes each may show. */
async function scopeOf(caller: Caller, query: NativeQuery): Promise<{ patients: Id[]; studyCodes: Map<Id, readonly CodeRef[]> | undefined }> {
  if (isPatient(caller) && query.scope.every((f) => Object.keys(f).every((k) => k === 'patient'))) {
    // A patient sees only themselves (their account names them; deleting the patient deletes it),
    // and `patient=` can only narrow that: decided without reading the directory.
    const self = query.scope.every((f) => list(f.patient).some((v) => referenceId(v, 'Patient') === caller.patientId));
    return { patients: self ? [caller.patientId] : [], studyCodes: undefined };
  }
  const scopes = await Promise.all((query.scope.length > 0 ? query.scope : [{}]).map((filter) => patientScope(caller, filter)));
  let patients = scopes[0]!.patientIds;
  let studyCodes: Map<Id, readonly CodeRef[]> | undefined;
  for (const scope of scopes) {
    const inScope = new Set(scope.patientIds);
    patients = patients.filter((p) => inScope.has(p));
    if (!scope.codesByPatient) continue;
    const previous = studyCodes;
    studyCodes = new Map(
      patients.map((p) => {
        const codes = scope.codesByPatient!.get(p) ?? [];
        const before = previous?.get(p);
        return [p, before ? codes.filter((c) => before.some((b) => b.id === c.id)) : codes];
      }),
    );
  }
  return { patients, studyCodes };
}

const spansFor = (query: NativeQuery, ids: Id[]) => (needsSpans(query) && ids.length > 0 ? storedSpans(ids) : Promise.resolve(new Map<Id, number>()));

/**
 * What a query reaches for a caller, for the operations that read readings their own way
 * (`$lastn`): the patients in scope, each one's allowed codes (undefined: any), and the exact
 * test of a row (the query's filters, values included).
 */
export async function reachOf(caller: Caller, query: NativeQuery, now = Date.now()): Promise<{ patients: Id[]; codes: Map<Id, Set<Id> | undefined>; test: (o: ReadingFacts) => boolean }> {
  const p = await plan(caller, query, await allCodesFor((codes) => namesUnknownCode(query, codes)));
  return { patients: p.patients, codes: p.codes, test: rowTest(query, p.codes, now, p.values) };
}

/** The patients to read and how; the spans of a likely patient are read while the scope is resolved. */
async function plan(caller: Caller, query: NativeQuery, table: readonly Code[], likely?: Id): Promise<Plan> {
  const early = likely === undefined ? undefined : spansFor(query, [likely]);
  early?.catch(() => undefined);
  const { patients, studyCodes } = await scopeOf(caller, query);
  return planOf(query, table, patients, studyCodes, (reachable) => (early && reachable.length === 1 && reachable[0] === likely ? early : spansFor(query, reachable)));
}

/** The plan over patients already in scope (and, under a study, each one's codes). */
async function planOf(
  query: NativeQuery,
  table: readonly Code[],
  patients: readonly Id[],
  studyCodes: ReadonlyMap<Id, readonly Pick<CodeRef, 'id'>[]> | undefined,
  spansOf: (reachable: Id[]) => Promise<Map<Id, number>>,
): Promise<Plan> {
  const filter = codeFilter(query, table);
  const codes = new Map(patients.map((p) => [p, allowedCodes(filter, studyCodes?.get(p))]));
  const reachable = patients.filter((p) => codes.get(p)?.size !== 0);
  const [spans, tests] = await Promise.all([spansOf(reachable), readingTestsOf(query, table)]);
  return { patients: reachable, codes, ids: idFilter(query), spans, ...tests };
}

/**
 * Every row of these patients (already in the caller's scope) that any of the queries matches, run
 * by run, read as a search reads them (the same Queries, key bounds and tests) without cutting
 * pages: a bulk export's read. A row several queries match comes once (with the first that does).
 * Patient by patient unless a query sorts; `studyCodes` as a study filter.
 */
export async function* matchingRows(queries: readonly NativeQuery[], patients: readonly Id[], studyCodes?: readonly Pick<CodeRef, 'id'>[], now = Date.now()): AsyncGenerator<StoredObservation[]> {
  const table = await allCodesFor((codes) => queries.some((query) => namesUnknownCode(query, codes)));
  const studyMap = studyCodes && new Map(patients.map((id) => [id, studyCodes]));
  const earlier: Array<(o: ReadingFacts) => boolean> = [];
  for (const query of queries) {
    const p = await planOf(query, table, patients, studyMap, (reachable) => spansFor(query, reachable));
    const test = rowTest(query, p.codes, now, p.values);
    const before = [...earlier];
    const keep = (o: ReadingFacts) => test(o) && !before.some((matched) => matched(o));
    earlier.push(test);
    const t: Traversal = { order: query.order, backward: false };
    const byOrder = (a: StoredObservation, b: StoredObservation) => compareIn(t, positionOf(t.order, a), positionOf(t.order, b));
    const stream = p.ids ? await byIdStream(p, keep, byOrder) : orderedRows(p.patients, (patientId) => readsOf(patientId, query, p, now, true), t, undefined, filterOf(p, keep), Number.MAX_SAFE_INTEGER, true);
    for await (const run of runsOf(stream)) yield run;
  }
}

/** Whether the date filter's key bounds depend on how long rows may last (`ge`, `gt`, `ap` do; `eq`, `lt`, `le`, `sa`, `eb` do not). */
function needsSpans(query: NativeQuery, now = Date.now()): boolean {
  if (query.dates.length === 0) return false;
  const short = boundsOf(query.dates, 1, now);
  const long = boundsOf(query.dates, 2 ** 52, now);
  return short.lo !== long.lo || short.hi !== long.hi;
}

function boundsOf(criteria: NativeQuery['dates'], width: number, now: number): StartBounds {
  return allOfBounds(criteria.map((alternatives) => anyOfBounds(alternatives.map((d) => startBounds(d, width, now)))));
}

/** The start bounds of the query's dates (for readings at most `width` long) and its period together. */
function startBoundsOfQuery(query: NativeQuery, width: number, now: number): StartBounds {
  const dates = boundsOf(query.dates, width, now);
  return query.period ? allOfBounds([dates, startBoundsOf(query.period)]) : dates;
}

/**
 * The reads of one patient: one per allowed code when few, else one of every code. A code's read
 * of a value search takes only the runs of hours its day summaries leave (./hours.ts).
 */
async function readsOf(patientId: Id, query: NativeQuery, p: Plan, now: number, anyOrder = false, planned?: PageRuns): Promise<PatientRead[]> {
  const base = {
    patientId,
    dates: startBoundsOfQuery(query, p.spans.get(patientId) ?? 1, now),
    updated: boundsOf(query.lastUpdated, 1, now),
    withUndated: query.dates.length === 0 && !(query.period && isBounded(query.period)),
    ...(anyOrder ? { anyOrder } : {}),
  };
  const codes = p.codes.get(patientId);
  if (codes && codes.size <= MAX_INDEXED_CODES && query.order.kind !== 'updated') {
    return Promise.all(
      [...codes].map(async (codeId): Promise<PatientRead> => {
        const hours = p.hours?.(codeId);
        if (!hours) return { ...base, codeId };
        const key = runsKey(patientId, codeId);
        const known = planned?.known?.get(key);
        const runs = known ? clampRuns(known, base.dates) : await candidateRuns(patientId, codeId, base.dates, hours);
        planned?.used.set(key, runs);
        return { ...base, codeId, runs };
      }),
    );
  }
  return [base];
}

/**
 * How a search reads its cursor text back: the FHIR search from its links' `_cursor` (a 400 for one
 * that is not its own), a typed query from its opaque cursor (`../series.ts`).
 */
export type CursorReader = (text: string | undefined) => Cursor<Position> | undefined;

/** What a search can do before its caller is known: decode the cursor, load the code table, read early. */
export interface PreparedSearch {
  cursor: Cursor<Position> | undefined;
  t: Traversal;
  table: readonly Code[];
  guess: Plan | undefined;
  early: Promise<RowPage> | undefined;
}

/**
 * The caller-free part of a search, started as soon as the token's signature holds and before the
 * account is read. `likelyPatient` is the patient the page probably belongs to: the one the query
 * names, or the one a patient token names. Its early page is only a guess, used or dropped later.
 */
export async function prepareSearch(query: NativeQuery, readCursor: CursorReader, likelyPatient: Id | undefined, now = Date.now()): Promise<PreparedSearch> {
  const cursor = readCursor(query.cursor);
  const t: Traversal = { order: query.order, backward: cursor?.direction === 'previous' };
  const table = await allCodesFor((codes) => namesUnknownCode(query, codes));
  const tests = await readingTestsOf(query, table);
  const guess = query.summaryCount || query.ids.length > 0 ? undefined : likelyPlan(likelyPatient, query, table, tests);
  const early = guess && pageOf(query, guess, t, cursor, now);
  early?.catch(() => undefined); // settled below, or abandoned when the scope refuses
  return { cursor, t, table, guess, early };
}

export async function searchObservations(
  caller: Caller,
  query: NativeQuery,
  readCursor: CursorReader,
  now = Date.now(),
  prepared?: Promise<PreparedSearch>,
): Promise<SearchPage> {
  const { cursor, t, table, guess, early } = await (prepared ?? prepareSearch(query, readCursor, likelyPatientOf(query, caller), now));
  const p = await plan(caller, query, table, guess?.patients[0]);
  const page = (early && sameReads(guess!, p) ? await early.catch(() => undefined) : undefined) ?? (await pageOf(query, p, t, cursor, now));

  const result: SearchPage = { rows: page.rows };
  if (page.next) result.next = page.next;
  if (page.previous) result.previous = page.previous;
  if (query.summaryCount || query.totalAccurate) result.total = await countMatches(query, p, rowTest(query, p.codes, now, p.values), now);
  else if (!cursor && !page.more) result.total = page.rows.length;
  return result;
}

async function pageOf(query: NativeQuery, p: Plan, t: Traversal, cursor: Cursor<Position> | undefined, now: number): Promise<RowPage> {
  if (query.summaryCount) return { rows: [], more: false };
  const test = rowTest(query, p.codes, now, p.values);
  const byOrder = (a: StoredObservation, b: StoredObservation) => compareIn(t, positionOf(t.order, a), positionOf(t.order, b));
  const follows = (o: ReadingFacts) => !cursor || compareIn(t, positionOf(t.order, o), cursor.at) > 0;
  const keep = (o: ReadingFacts) => test(o) && follows(o);
  // The page, the row that tells whether another follows, and (after a cursor) the cursor's own
  // row, which the key bounds read again: with it the page's first Query is also its last.
  const want = query.count + 1 + (cursor ? 1 : 0);
  const planned: PageRuns = { known: decodeRuns(cursor?.hint), used: new Map() };
  const stream = p.ids ? await byIdStream(p, keep, byOrder) : orderedRows(p.patients, (patientId) => readsOf(patientId, query, p, now, false, planned), t, cursor?.at, filterOf(p, keep), want);
  const page = await cutPage(runsOf(stream), query.count, cursor, (item) => positionOf(t.order, item));
  // The runs this page planned (and those it was handed) go on to the pages it links to.
  const hint = encodeRuns(new Map([...(planned.known ?? []), ...planned.used])) ?? encodeRuns(planned.used);
  if (hint) for (const link of [page.next, page.previous]) if (link) link.hint = hint;
  return page;
}

/** A page's value-search runs: those its cursor's hint brought (./runs-hint.ts), and those it read by (for its links). */
interface PageRuns {
  known: PlannedRuns | undefined;
  used: PlannedRuns;
}

/**
 * Most searches are about one patient known before the scope is resolved: a patient reading their
 * own data, or `patient=<id>`. Their page is read while the caller and the scope are being
 * resolved, with the span this process last knew (an instant otherwise), and used only if the
 * resolved plan reads exactly the same keys; otherwise it is dropped and the page read again.
 * Nothing read this way reaches the caller unless the scope allows it.
 */
export function likelyPatientOf(query: NativeQuery, caller: Pick<Caller, 'kind'> & { patientId?: Id } | undefined): Id | undefined {
  if (query.scope.some((f) => f.study !== undefined || f.identifier !== undefined || f.organization !== undefined)) return undefined;
  const named = query.scope.map((f) => f.patient);
  if (named.length === 0) return caller?.kind === 'patient' ? caller.patientId : undefined;
  if (named.length === 1 && list(named[0]).length === 1) return referenceId(list(named[0])[0]!, 'Patient');
  return undefined;
}

function likelyPlan(patientId: Id | undefined, query: NativeQuery, table: readonly Code[], tests: ReadingTests): Plan | undefined {
  if (patientId === undefined) return undefined;
  return { patients: [patientId], codes: new Map([[patientId, codeFilter(query, table)]]), ids: undefined, spans: new Map([[patientId, knownSpan(patientId)]]), ...tests };
}

const list = <T>(v: T | readonly T[] | undefined): T[] => (v === undefined ? [] : Array.isArray(v) ? [...(v as readonly T[])] : [v as T]);

/** The early plan read the keys the resolved plan reads (same patient, codes, and a span at least as long). */
function sameReads(early: Plan, p: Plan): boolean {
  const [patientId] = early.patients;
  if (p.patients.length !== 1 || p.patients[0] !== patientId || p.ids) return false;
  const a = early.codes.get(patientId!);
  const b = p.codes.get(patientId!);
  const sameCodes = a === b || (a !== undefined && b !== undefined && a.size === b.size && [...a].every((c) => b.has(c)));
  return sameCodes && (p.spans.get(patientId!) ?? 1) <= (early.spans.get(patientId!) ?? 1);
}

/** `_id` searches: the named rows, read by id, in the order. */
async function byIdStream(p: Plan, keep: (o: StoredObservation) => boolean, byOrder: (a: StoredObservation, b: StoredObservation) => number): Promise<RowStream> {
  const inScope = new Set(p.patients);
  const rows = (await readObservations([...p.ids!])).filter((o) => inScope.has(o.patientId));
  return new ArrayStream(rows.filter(keep).sort(byOrder));
}

/**
 * How many readings the query finds of each of these codes: for each, what its `_summary=count`
 * with that code added would answer, the caller's scope resolved once for them all (a count of a
 * patient's or a study's readings by type). A code outside a patient's allowed ones (a study's
 * consented codes) counts none of theirs, as the search's.
 */
export async function countByCode(caller: Caller, query: NativeQuery, codes: readonly TokenQuery[], now = Date.now()): Promise<number[]> {
  const table = await allCodesFor((known) => namesUnknownCode(query, known));
  const { patients, studyCodes } = await scopeOf(caller, query);
  let spans: Promise<Map<Id, number>> | undefined;
  const spansOf = (reachable: Id[]) => (needsSpans(query, now) ? (spans ??= storedSpans(patients)) : Promise.resolve(new Map<Id, number>())).then((all) => new Map(reachable.flatMap((id) => (all.has(id) ? [[id, all.get(id)!] as const] : []))));
  return pMap(
    codes,
    async (code) => {
      const coded: NativeQuery = { ...query, codes: [...query.codes, { values: [code] }] };
      const p = await planOf(coded, table, patients, studyCodes, spansOf);
      return countMatches(coded, p, rowTest(coded, p.codes, now, p.values), now);
    },
    { concurrency: CODES_COUNTED_AT_ONCE },
  );
}

/** Matches across all pages. */
async function countMatches(query: NativeQuery, p: Plan, test: (o: ReadingFacts) => boolean, now: number): Promise<number> {
  if (p.ids) {
    const inScope = new Set(p.patients);
    return (await readObservations([...p.ids])).filter((o) => inScope.has(o.patientId)).filter(test).length;
  }
  const counts = await pMap(p.patients, (patientId) => countPatient(patientId, query, p, test, now), { concurrency: COUNT_CONCURRENCY });
  return counts.reduce((a, b) => a + b, 0);
}

async function countPatient(patientId: Id, query: NativeQuery, p: Plan, test: (o: ReadingFacts) => boolean, now: number): Promise<number> {
  const reads = await readsOf(patientId, query, p, now);
  const summarised = countableFromSummaries(query) ? await summarisedCodes(reads.flatMap((r) => (r.codeId === undefined ? [] : [r.codeId]))) : new Map<Id, string>();
  // The patient's span bounds every reading's length when the plan read it (a date filter that needs it); else no bound is known.
  const span = needsSpans(query, now) ? (p.spans.get(patientId) ?? 1) : Number.POSITIVE_INFINITY;
  const days = summarised.size > 0 ? summaryDays(query, startBoundsOfQuery(query, 1, now), span, now) : undefined;
  const counts = await Promise.all(
    reads.map(async (read) => {
      // A code named for some of its readings is counted reading by reading, never by key or summary.
      const exact = !testsBeyondCode(query) && (read.codeId !== undefined ? !p.partialCodes.has(read.codeId) : p.codes.get(patientId) === undefined);
      // The whole days from the code's day summaries; rows only around them (and the undated).
      const fromSummaries = days && read.codeId !== undefined && summarised.has(read.codeId) && !read.runs && !p.partialCodes.has(read.codeId);
      const rowsRead: PatientRead = fromSummaries ? { ...read, runs: [{ ...startOf(read.dates), hi: days.start }, { ...endOf(read.dates), lo: days.end }] } : read;
      const [kept, rows] = await Promise.all([
        fromSummaries ? summaryReadings(patientId, read.codeId!, days) : 0,
        Promise.all(patientQueries(rowsRead, { order: query.order, backward: false }).map((q) => countReadings(q, exact ? undefined : test, p.payload))),
      ]);
      return kept + rows.reduce((a, b) => a + b, 0);
    }),
  );
  return counts.reduce((a, b) => a + b, 0);
}

const startOf = (b: StartBounds): StartBounds => (b.lo === undefined ? {} : { lo: b.lo });
const endOf = (b: StartBounds): StartBounds => (b.hi === undefined ? {} : { hi: b.hi });

/** The readings the code's day summaries count on the days. */
async function summaryReadings(patientId: Id, codeId: Id, days: SummaryDays): Promise<number> {
  const kept = await summaryStore().days(patientId, codeId, { from: days.from, to: days.to }, false);
  return kept.reduce((n, day) => n + day.readings, 0);
}
