/**
 * Keeping the day summaries (`day-summary.ts`) as readings are written, and rebuilding them.
 *
 * Idempotent by construction: after a batch's rows are written (`../write.ts`, after `insert`),
 * every day a reading of the batch belongs to is recomputed from the day's rows themselves (one
 * strongly consistent read of that code's rows that day, page by page) and kept under the store's
 * rule: never replace a summary computed from more readings with one computed from fewer. Rows are
 * only ever added to a day, so the count orders the summaries, and the last upload to finish
 * writing its rows reads them all: concurrent uploads to one day cannot leave a stale summary, and
 * a re-post counts once (it adds no row).
 *
 * Readings answered as already stored (a device's re-send) repair their day too: the kept count is
 * compared with a count of the day's rows, and the day recomputed only when they differ, so a
 * re-post of a complete upload writes nothing.
 *
 * A day whose summary could not be kept (the store stayed busy after its retries) answers its
 * readings of this request 503 (`storeBusy`: send again), though their rows are stored: the
 * device's re-send finds them stored and recomputes the day. `rebuildSummaries` puts every day of
 * a patient right from the rows, for the operator's repair (`npm run migrate:observations -- summaries`)
 * and the move to layout 3.
 */
import pMap from 'p-map';
import { rootLogger } from '../../telemetry/logger';
import { schemaQuantities } from '../../omh/quantities';
import { codesById } from '../code-table-cache';
import type { StoredObservation } from '../model';
import { startBoundsOf, storeTimeRange, type BoundedPeriod } from '../period';
import { observationStore } from '../store/current';
import { storeBusy, type PageStart, type ReadingsQuery, type WriteOutcome } from '../store/port';
import { summaryStore } from '../store/summary-current';
import { holdsSensorReadings } from '../cgm/readings';
import { DAY_MS, dayOf, dayStart, sameSummary, summariseDayAndHours, type DaySummary, type HourDigest } from './day-summary';

/** Rows read a page when recomputing (a day of minute readings is 1,440). */
const PAGE = 1000;
/** Days recomputed at once. */
const CONCURRENCY = 4;

export interface DayKey {
  patientId: number;
  codeId: number;
  day: string;
}

const dayKeyText = (k: DayKey) => `${k.patientId}#${k.codeId}#${k.day}`;

/** The schema code of each of these codes whose readings have values to summarise; other codes keep no summary. */
export async function summarisedCodes(codeIds: Iterable<number>): Promise<Map<number, string>> {
  const codes = await codesById(codeIds);
  return new Map([...codes].flatMap(([id, code]) => ((schemaQuantities(code.code)?.members.length ?? 0) > 0 ? [[id, code.code] as const] : [])));
}

/** A read of the code's rows a period holds (their effective start in it, `../period.ts`); undefined when no reading can start in it. */
export function rowsQuery(patientId: number, codeId: number, period: BoundedPeriod, ascending = true): ReadingsQuery | undefined {
  const time = storeTimeRange(startBoundsOf(period));
  return time && { patientId, order: 'effective', codeId, ascending, time };
}

/** The read of a day's rows (a day always holds instants a reading can have). */
const dayQuery = (key: DayKey, from: number): ReadingsQuery => rowsQuery(key.patientId, key.codeId, { from, to: from + DAY_MS })!;

/** Every row a read takes, following its pages (none without a read). */
export async function allReadings(query: ReadingsQuery | undefined): Promise<StoredObservation[]> {
  if (!query) return [];
  const rows: StoredObservation[] = [];
  let start: PageStart | undefined;
  do {
    const page = await observationStore().readings(query, PAGE, start);
    rows.push(...page.readings);
    start = page.next;
  } while (start);
  return rows;
}

/** The day's summary from its rows (all of them, strongly consistent), with its hours' digests. */
async function recomputeDay(key: DayKey, schemaCode: string): Promise<{ summary: DaySummary; hours: HourDigest[] }> {
  const from = dayStart(key.day);
  return summariseDayAndHours(key, await allReadings(dayQuery(key, from)), schemaCode);
}

/**
 * The day recomputed and kept, with the digests of the hours whose count differs from the kept
 * summary's (an upload's own hours, as a rule; every hour of a day kept before hours were).
 */
async function keepDay(key: DayKey, schemaCode: string): Promise<boolean> {
  const sensor = holdsSensorReadings(schemaCode);
  const [{ summary, hours }, kept] = await Promise.all([recomputeDay(key, schemaCode), sensor ? summaryStore().days(key.patientId, key.codeId, { from: key.day, to: key.day }, false) : []]);
  const keptCounts = kept[0]?.cgmHours;
  return summaryStore().keep(summary, 'from-more-readings', keptCounts ? hours.filter((h) => keptCounts[h.hour] !== h.digest.count) : hours);
}

/** A day's recompute running in this process, and the one queued behind it. */
interface DayWork {
  running: Promise<unknown>;
  queued: Promise<unknown> | undefined;
}
const dayWork = new Map<string, DayWork>();

/**
 * `keepDay` for a write, shared with the writes of the same day that arrive meanwhile in this
 * process (the slices of one upload run side by side and mostly fill one day): a recompute reads
 * every reading of the day stored before it starts, so a caller that arrives while one runs waits
 * for the next, and everyone who arrives meanwhile shares that one. An upload of 100 in four
 * slices recomputes its day about twice instead of four times; each caller still answers only once a
 * recompute that counted its readings was kept, and gets its failure. Other processes recompute on
 * their own: the put's condition orders them, as before.
 */
function keepDayShared(key: DayKey, schemaCode: string): Promise<unknown> {
  const text = dayKeyText(key);
  const work = dayWork.get(text);
  if (!work) return startDay(text, key, schemaCode);
  return (work.queued ??= work.running.catch(() => undefined).then(() => startDay(text, key, schemaCode)));
}

function startDay(text: string, key: DayKey, schemaCode: string): Promise<unknown> {
  const work: DayWork = { running: keepDay(key, schemaCode), queued: undefined };
  dayWork.set(text, work);
  void work.running
    .catch(() => undefined)
    .then(() => {
      if (dayWork.get(text) === work && work.queued === undefined) dayWork.delete(text);
    });
  return work.running;
}

/** One day's summary recomputed from its rows and kept (a code without values keeps none); whether it was written. */
export async function refreshDay(key: DayKey): Promise<boolean> {
  const schemaCode = (await summarisedCodes([key.codeId])).get(key.codeId);
  return schemaCode !== undefined && keepDay(key, schemaCode);
}

/** Whether the kept summary already counts every row of the day (a re-post's check: a count, no rows read). */
async function keptIsComplete(key: DayKey): Promise<boolean> {
  const from = dayStart(key.day);
  const [kept, rows] = await Promise.all([summaryStore().day(key.patientId, key.codeId, key.day), observationStore().countReadings(dayQuery(key, from))]);
  return kept !== undefined && kept.readings >= rows;
}

/**
 * After a batch's rows are written: the summaries of every day its stored readings (created now,
 * or answered as already stored) belong to. Returns the outcomes, those of a day whose summary
 * could not be kept turned into 503s.
 */
export async function keepDaySummaries(outcomes: readonly WriteOutcome[]): Promise<WriteOutcome[]> {
  const result = [...outcomes];
  const stored = outcomes.flatMap((o, index) => ((o?.kind === 'created' || o?.kind === 'existing') && o.observation.effective ? [{ index, outcome: o }] : []));
  if (stored.length === 0) return result;
  let codes: Map<number, string>;
  try {
    codes = await summarisedCodes(stored.map((s) => s.outcome.observation.codeId));
  } catch (e) {
    rootLogger().warn('reading the code table for the day summaries failed', e instanceof Error ? e : String(e));
    for (const { index } of stored) result[index] = storeBusy();
    return result;
  }
  const days = new Map<string, { key: DayKey; schemaCode: string; created: boolean; indexes: number[] }>();
  for (const { index, outcome } of stored) {
    const { patientId, codeId, effective } = outcome.observation;
    const schemaCode = codes.get(codeId);
    if (schemaCode === undefined) continue;
    const key = { patientId, codeId, day: dayOf(effective!.start) };
    const text = dayKeyText(key);
    const day = days.get(text) ?? { key, schemaCode, created: false, indexes: [] };
    day.created ||= outcome.kind === 'created';
    day.indexes.push(index);
    days.set(text, day);
  }
  await pMap(
    days.values(),
    async ({ key, schemaCode, created, indexes }) => {
      try {
        if (!created && (await keptIsComplete(key))) return;
        await keepDayShared(key, schemaCode);
      } catch (e) {
        rootLogger().warn('keeping a day summary failed; its readings answer 503', { ...key, error: e instanceof Error ? e.message : String(e) });
        for (const index of indexes) result[index] = storeBusy();
      }
    },
    { concurrency: CONCURRENCY },
  );
  return result;
}

/** What a rebuild did. */
export interface Rebuilt {
  /** Days (of a code) with readings. */
  days: number;
  /** Of those, the summaries written because the kept one was missing or said something else. */
  repaired: number;
}

/**
 * Every day summary of the patient recomputed from the rows (every code, every day), and written
 * where the kept one is missing or differs (a rebuild never replaces a summary of more readings
 * than the day has now, which only a concurrent upload can have written). Reads the patient's rows
 * once, a day at a time.
 */
export async function rebuildSummaries(patientId: number): Promise<Rebuilt> {
  const rebuilt: Rebuilt = { days: 0, repaired: 0 };
  let pending: StoredObservation[] = [];
  const codes = new Map<number, string>();
  const looked = new Set<number>();
  const flush = async () => {
    const byCode = new Map<number, StoredObservation[]>();
    for (const row of pending) byCode.set(row.codeId, [...(byCode.get(row.codeId) ?? []), row]);
    const unknown = [...byCode.keys()].filter((c) => !looked.has(c));
    for (const [codeId, schemaCode] of unknown.length > 0 ? await summarisedCodes(unknown) : []) codes.set(codeId, schemaCode);
    for (const codeId of unknown) looked.add(codeId);
    for (const [codeId, rows] of byCode) {
      const schemaCode = codes.get(codeId);
      if (schemaCode === undefined) continue;
      const { summary, hours } = summariseDayAndHours({ patientId, codeId, day: dayOf(rows[0]!.effective!.start) }, rows, schemaCode);
      rebuilt.days += 1;
      const kept = await summaryStore().day(patientId, codeId, summary.day);
      if (kept && sameSummary(kept, summary)) continue;
      if (await summaryStore().keep(summary, 'repair', hours)) rebuilt.repaired += 1;
    }
    pending = [];
  };
  let start: PageStart | undefined;
  do {
    const page = await observationStore().readings({ patientId, order: 'effective', ascending: true, time: {} }, PAGE, start);
    for (const row of page.readings) {
      if (pending.length > 0 && dayOf(row.effective!.start) !== dayOf(pending[0]!.effective!.start)) await flush();
      pending.push(row);
    }
    start = page.next;
  } while (start);
  if (pending.length > 0) await flush();
  return rebuilt;
}
