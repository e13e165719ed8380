/**
 * Runs a native search for a caller: the scoping module names the patients (and, under a study
 * filter, each one's codes), each patient's rows are read by key-condition Queries on its own
 * partition (strongly consistent), and the page is cut from the order at the cursor. Counting
 * (`_summary=count`, `_total=accurate`) reads the same keys without the cursor, with Select COUNT
 * when nothing beyond the code needs testing.
 */
import { patientScope } from '../../auth/scope';
import type { Caller } from '../../auth/caller';
import { mapWithLimit } from '../../concurrency';
import type { Code, CodeRef, Id } from '../../directory/model';
import { allOfBounds, anyOfBounds, startBounds, type StartBounds } from '../../fhir/search/date-bounds';
import { allCodes } from '../code-table-cache';
import { fromItem, toItem, type ObservationItem } from '../items';
import type { StoredObservation } from '../model';
import { queryPartition, readObservations, type PartitionQuery } from '../read';
import { storedSpans } from '../span-stats';
import { decodeCursor, type Cursor } from './cursor';
import { allowedCodes, codeFilter, idFilter, rowTest, testsBeyondCode } from './filters';
import { compareIn, positionOf, type Traversal } from './order';
import type { NativeQuery } from './query';
import { patientQueries, type PatientRead } from './segments';
import { ArrayStream, orderedRows, readPage, type RowStream } from './streams';

export interface SearchPage {
  rows: StoredObservation[];
  next?: Cursor;
  previous?: Cursor;
  /** Matches across all pages, when asked for or known without extra reads. */
  total?: number;
}

/** A patient's allowed codes are read through the code index (one Query each) up to this many. */
const MAX_INDEXED_CODES = 4;
/** Patients counted at once. */
const COUNT_CONCURRENCY = 8;

interface Plan {
  patients: Id[];
  /** Allowed codes per patient (absent: any). */
  codes: Map<Id, Set<Id> | undefined>;
  ids: Set<number> | undefined;
  spans: Map<Id, number>;
}

/** The patients in reach under every scoping filter (AND), and the study codes each may show. */
async function scopeOf(caller: Caller, query: NativeQuery): Promise<{ patients: Id[]; studyCodes: Map<Id, readonly CodeRef[]> | undefined }> {
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

async function plan(caller: Caller, query: NativeQuery, table: readonly Code[]): Promise<Plan> {
  const { patients, studyCodes } = await scopeOf(caller, query);
  const filter = codeFilter(query, table);
  const codes = new Map(patients.map((p) => [p, allowedCodes(filter, studyCodes?.get(p))]));
  const reachable = patients.filter((p) => codes.get(p)?.size !== 0);
  const spans = query.dates.length > 0 ? await storedSpans(reachable) : new Map<Id, number>();
  return { patients: reachable, codes, ids: idFilter(query), spans };
}

function boundsOf(criteria: NativeQuery['dates'], width: number, now: number): StartBounds {
  return allOfBounds(criteria.map((alternatives) => anyOfBounds(alternatives.map((d) => startBounds(d, width, now)))));
}

/** The reads of one patient: one per allowed code through the code index when few, else one. */
function readsOf(patientId: Id, query: NativeQuery, p: Plan, now: number): PatientRead[] {
  const base = {
    patientId,
    dates: boundsOf(query.dates, p.spans.get(patientId) ?? 1, now),
    updated: boundsOf(query.lastUpdated, 1, now),
    withUndated: query.dates.length === 0,
  };
  const codes = p.codes.get(patientId);
  if (codes && codes.size <= MAX_INDEXED_CODES && query.order.kind !== 'updated') return [...codes].map((codeId) => ({ ...base, codeId }));
  return [base];
}

export async function searchObservations(caller: Caller, query: NativeQuery, fingerprint: string, now = Date.now()): Promise<SearchPage> {
  const cursor = query.cursor === undefined ? undefined : decodeCursor(query.cursor, query.order, fingerprint);
  const t: Traversal = { order: query.order, backward: cursor?.backward ?? false };
  const p = await plan(caller, query, await allCodes());
  const test = rowTest(query, p.codes, now);
  const byOrder = (a: ObservationItem, b: ObservationItem) => compareIn(t, positionOf(t.order, a), positionOf(t.order, b));
  const follows = (item: ObservationItem) => !cursor || compareIn(t, positionOf(t.order, item), cursor.at) > 0;
  const keep = (item: ObservationItem) => test(item) && follows(item);

  const stream = p.ids ? await byIdStream(p, keep, byOrder) : orderedRows(p.patients, (patientId) => readsOf(patientId, query, p, now), t, cursor?.at, keep, query.count + 1);
  const page = query.summaryCount ? { items: [], more: false } : await readPage(stream, query.count, t, cursor?.at);
  const result: SearchPage = { rows: page.items.map(fromItem) };
  if (page.next) result.next = page.next;
  if (page.previous) result.previous = page.previous;
  if (query.summaryCount || query.totalAccurate) result.total = await countMatches(query, p, test, now);
  else if (!cursor && !page.more) result.total = page.items.length;
  return result;
}

/** `_id` searches: the named rows, read by id, in the order. */
async function byIdStream(p: Plan, keep: (i: ObservationItem) => boolean, byOrder: (a: ObservationItem, b: ObservationItem) => number): Promise<RowStream> {
  const inScope = new Set(p.patients);
  const rows = (await readObservations([...p.ids!])).filter((o) => inScope.has(o.patientId));
  return new ArrayStream(rows.map(toItem).filter(keep).sort(byOrder));
}

/** Matches across all pages. */
async function countMatches(query: NativeQuery, p: Plan, test: (i: ObservationItem) => boolean, now: number): Promise<number> {
  if (p.ids) {
    const inScope = new Set(p.patients);
      return (await readObservations([...p.ids])).filter((o) => inScope.has(o.patientId)).map(toItem).filter(test).length;
  }
  const traversal: Traversal = { order: query.order, backward: false };
  const counts = await mapWithLimit(p.patients, COUNT_CONCURRENCY, async (patientId) => {
    let n = 0;
    for (const read of readsOf(patientId, query, p, now)) {
      const exact = !testsBeyondCode(query) && (read.codeId !== undefined || p.codes.get(patientId) === undefined);
      for (const q of patientQueries(read, traversal)) n += await countQuery(q, exact ? undefined : test);
    }
    return n;
  });
  return counts.reduce((a, b) => a + b, 0);
}

const COUNT_ATTRIBUTES = ['id', 'patientId', 'codeId', 'deviceId', 'status', 'identifiers', 'effStart', 'effEnd', 'lastUpdated'];

async function countQuery(q: PartitionQuery, test: ((i: ObservationItem) => boolean) | undefined): Promise<number> {
  let n = 0;
  let start: Record<string, unknown> | undefined;
  do {
    const page = await queryPartition(test ? { ...q, attributes: COUNT_ATTRIBUTES } : { ...q, countOnly: true }, undefined, start);
    n += test ? page.items.filter(test).length : page.count;
    start = page.next;
  } while (start);
  return n;
}
