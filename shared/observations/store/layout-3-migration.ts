/**
 * Moving the readings of an earlier layout's table (2, or 1) into layout 3, while the service
 * writes layout 3 (docs/operations.md#moving-observations-to-layout-3). Every reading keeps its id,
 * uuid, time of storing, payload byte for byte, identifiers, status, device and effective time.
 *
 * 1. **Finding the patients**: a parallel Scan of the earlier table, keys only, keeping every
 *    patient with an item in their partition (a row, span statistics or a day summary).
 * 2. **Copying, patient by patient** (a few patients side by side, in lanes): their readings in
 *    order of last update, a page at a time, through the layout-3 write path (`insert`): its claims
 *    make it idempotent (a reading already claimed answers 'existing' and is left as it is), and
 *    an upload's readings, read together, keep its consecutive ids in one id range and one update
 *    log item. A reading stored before values were lifted gets them from its payload on the way.
 *    Then the patient's span statistics (raised, never lowered), their day summaries (put where
 *    absent; a day layout 3 already has a summary of, written by the service meanwhile, is
 *    recomputed from the readings now stored), the rebuild of every day summary of a patient who
 *    had readings without values, and the check: every id of the earlier table reads back in
 *    layout 3 as the same reading (patient, uuid, time of storing), and the patient's code set
 *    holds each code.
 * 3. **Identifier claims** without a reading (the readings' own claims come with them): put where
 *    absent, by a second Scan.
 *
 * Id pointers and the values migration's marker stay behind. The progress (the patients, each
 * lane's patient and index key, the counts) is handed to `save` after every page: a run stopped
 * anywhere resumes from it, and a run over a table already moved copies nothing.
 *
 * A reading the service stored again meanwhile (a device re-sending it after the move began) is in
 * layout 3 under the id that upload gave it: it keeps that id, and the check reports the earlier id
 * as `renamed`. Anything else the check finds missing or different is a mismatch, listed.
 */
import { isDeepStrictEqual } from 'node:util';
import { putIfAbsent } from '../../store/put-if-absent';
import type { Item } from '../../store/reads';
import { backoff, MAX_ATTEMPTS } from '../../store/retry';
import { freshSegments, scanInSegments, type ScanProgress } from '../../store/scan-segments';
import { sideBySide } from '../../store/side-by-side';
import type { KeptValue, StoredObservation } from '../model';
import { findReadings, patientCodes, readByIds } from './block-reads';
import { insert } from './block-write';
import { raiseSpan } from './dynamo-spans';
import { keysOf } from './dynamo-summaries';
import { table } from './dynamo-table';
import { daySummaryItems, IDENTIFIER_CLAIMS, keysByUpdate, PATIENT_ITEMS, patientOfKey, readingsByUpdate, storedSpan } from './layout-2-source';

/** What the move needs of the domain: values out of a payload, day summaries from readings. */
export interface MigrationSteps {
  /** The values a stored reading's payload holds (undefined: its code keeps none). */
  lift: (reading: StoredObservation) => KeptValue[] | undefined;
  /** Every day summary of a patient recomputed from their readings. */
  rebuild: (patientId: number) => Promise<unknown>;
  /** One day's summary recomputed from the readings stored now; whether it was written. */
  refreshDay: (patientId: number, codeId: number, day: string) => Promise<boolean>;
}

export interface MigrationCounts {
  /** Patients whose readings were copied and checked. */
  patients: number;
  /** Readings of the earlier table the check went through. */
  readings: number;
  /** Readings stored in layout 3 by this move. */
  copied: number;
  /** Readings layout 3 already held under their id (copied by an earlier run). */
  present: number;
  /** Of the readings copied, those given the values their payload holds. */
  lifted: number;
  /** Readings layout 3 holds under a newer id (stored again by the service meanwhile). */
  renamed: number;
  /** Readings (or codes) the check did not find in layout 3 as they were: each listed. */
  mismatches: number;
  /** Day summaries copied. */
  summaries: number;
  /** Days layout 3 already had a summary of (the service's, written meanwhile), recomputed and written. */
  refreshed: number;
  /** Identifier claims copied (those of readings without a row). */
  claims: number;
}

export interface Mismatch {
  patientId: number;
  id?: number;
  codeId?: number;
  reason: string;
}

/** Where one patient's move stands. */
export interface PatientStep {
  patientId: number;
  /** The index key of the last row copied (absent before the first page). */
  start?: Item;
  readingsDone: boolean;
  /** Some of the patient's readings had no values: their summaries are rebuilt. */
  liftedSome: boolean;
  /** Readings layout 3 holds under another id: [earlier id, id in layout 3]. */
  renamed: Array<[number, number]>;
  /** Why a reading was not stored: [id, reason]. */
  refused: Array<[number, string]>;
}

/** A share of the patients moved one after another: lane `i` of `n` takes patients `i`, `i + n`, ... */
export interface Lane {
  next: number;
  current?: PatientStep;
}

export interface MigrationProgress {
  from: string;
  to: string;
  stage: 'finding' | 'copying' | 'claims' | 'done';
  finding: ScanProgress;
  /** Every patient found, ascending. */
  patients: number[];
  lanes: Lane[];
  claims: ScanProgress;
  counts: MigrationCounts;
  /** The first mismatches and renamed readings (all are counted). */
  mismatches: Mismatch[];
  renamed: Array<{ patientId: number; from: number; to: number }>;
}

/** Details kept in the progress at most; the counts count every one. */
const MOST_LISTED = 1000;

export interface MigrationOptions {
  /** Parallel Scan segments. */
  segments?: number;
  /** Patients moved side by side. */
  lanes?: number;
}

export function freshMigration(from: string, options: MigrationOptions = {}): MigrationProgress {
  const segments = options.segments ?? 4;
  return {
    from,
    to: table(),
    stage: 'finding',
    finding: { segments: freshSegments(segments) },
    patients: [],
    lanes: Array.from({ length: Math.max(1, Math.min(64, options.lanes ?? 4)) }, (_, next) => ({ next })),
    claims: { segments: freshSegments(segments) },
    counts: { patients: 0, readings: 0, copied: 0, present: 0, lifted: 0, renamed: 0, mismatches: 0, summaries: 0, refreshed: 0, claims: 0 },
    mismatches: [],
    renamed: [],
  };
}

export interface MigrationRun {
  steps: MigrationSteps;
  progress: MigrationProgress;
  save?: (progress: MigrationProgress) => void | Promise<void>;
  /** Readings read a page (a page is one call of the write path). */
  pageSize?: number;
}

/** Readings checked a page. */
const CHECK_PAGE = 1000;

export async function migrateToLayout3(run: MigrationRun): Promise<MigrationProgress> {
  const { progress } = run;
  if (progress.to !== table()) throw new Error(`this progress belongs to a move into ${progress.to}, not ${table()}`);
  const save = async () => run.save?.(structuredClone(progress));
  if (progress.stage === 'finding') {
    await findPatients(progress, save);
    progress.stage = 'copying';
    await save();
  }
  if (progress.stage === 'copying') {
    await sideBySide(progress.lanes, (lane, _index, stopped) => copyLane(run, lane, stopped, save));
    progress.stage = 'claims';
    await save();
  }
  if (progress.stage === 'claims') {
    await scanInSegments({
      table: progress.from,
      progress: progress.claims,
      filter: IDENTIFIER_CLAIMS,
      onPage: async (items) => {
        for (const item of items) if ((await putIfAbsent(table(), item)).written) progress.counts.claims += 1;
      },
      save,
    });
    progress.stage = 'done';
    await save();
  }
  return progress;
}

async function findPatients(progress: MigrationProgress, save: () => Promise<void>): Promise<void> {
  const found = new Set(progress.patients);
  await scanInSegments({
    table: progress.from,
    progress: progress.finding,
    filter: PATIENT_ITEMS,
    attributes: ['pk'],
    pageSize: 1000,
    onPage: async (items) => {
      for (const item of items) found.add(patientOfKey(item.pk));
      progress.patients = [...found].sort((a, b) => a - b);
    },
    save,
  });
}

async function copyLane(run: MigrationRun, lane: Lane, stopped: () => boolean, save: () => Promise<void>): Promise<void> {
  const { progress } = run;
  const stride = progress.lanes.length;
  while ((lane.current || lane.next < progress.patients.length) && !stopped()) {
    const step = (lane.current ??= { patientId: progress.patients[lane.next]!, readingsDone: false, liftedSome: false, renamed: [], refused: [] });
    while (!step.readingsDone) {
      if (stopped()) return;
      const page = await readingsByUpdate(progress.from, step.patientId, run.pageSize ?? 500, step.start);
      await copyReadings(run, step, page.readings);
      if (page.next) step.start = page.next;
      else step.readingsDone = true;
      await save();
    }
    await finishPatient(run, step);
    lane.current = undefined;
    lane.next += stride;
    await save();
  }
}

/**
 * Stores a page of readings in layout 3, as they are but for the values of those that had none.
 * Those layout 3 already holds (claimed, and in the stretch the claim names) are looked up first
 * and left as they are: the write path would take a claim naming the reading's own id for its
 * own (a put whose answer was lost) and write its pointers again.
 */
async function copyReadings(run: MigrationRun, step: PatientStep, readings: readonly StoredObservation[]): Promise<void> {
  const { counts } = run.progress;
  const prepared = readings.map((reading) => {
    const values = reading.values === undefined ? run.steps.lift(reading) : undefined;
    return values === undefined ? { reading, lifted: false } : { reading: { ...reading, values }, lifted: true };
  });
  // Also when they turn out stored already: a run stopped before saving this page may have stored them.
  if (prepared.some((p) => p.lifted)) step.liftedSome = true;
  const held = new Map((await findReadings(readings)).map((r) => [r.uuid, r.id]));
  for (const reading of readings) {
    const id = held.get(reading.uuid);
    if (id === reading.id) counts.present += 1;
    else if (id !== undefined) step.renamed.push([reading.id, id]);
  }
  let pending = prepared.filter((p) => !held.has(p.reading.uuid));
  for (let attempt = 1; pending.length > 0; attempt += 1) {
    if (attempt > MAX_ATTEMPTS) throw new Error(`the store stayed busy storing ${pending.length} readings of patient ${step.patientId}: run the move again to resume`);
    if (attempt > 1) await backoff(attempt - 1);
    const outcomes = await insert(pending.map((p) => p.reading));
    const busy: typeof pending = [];
    outcomes.forEach((outcome, i) => {
      const { reading, lifted } = pending[i]!;
      if (outcome.kind === 'created') {
        counts.copied += 1;
        if (lifted) counts.lifted += 1;
      } else if (outcome.kind === 'existing') {
        if (outcome.observation.id === reading.id) counts.present += 1;
        else step.renamed.push([reading.id, outcome.observation.id]);
      } else if (outcome.kind === 'conflict') {
        step.refused.push([reading.id, `its identifier ${outcome.identifier.system ?? ''}|${outcome.identifier.value} is held by observation ${outcome.heldBy}`]);
      } else if (outcome.status === 503) {
        busy.push(pending[i]!);
      } else {
        step.refused.push([reading.id, outcome.reason]);
      }
    });
    pending = busy;
  }
}

/** The patient's span, day summaries and (when some readings had no values) rebuilt summaries; then the check. */
async function finishPatient(run: MigrationRun, step: PatientStep): Promise<void> {
  const { progress, steps } = run;
  const { patientId } = step;
  const span = await storedSpan(progress.from, patientId);
  if (span !== undefined) await raiseSpan(patientId, span);
  let summaries = 0;
  let refreshed = 0;
  for (const item of await daySummaryItems(progress.from, patientId)) {
    const put = await putIfAbsent(table(), item);
    if (put.written) summaries += 1;
    else if (!isDeepStrictEqual(put.held, item)) {
      const { codeId, day } = keysOf(item);
      if (await steps.refreshDay(patientId, codeId, day)) refreshed += 1;
    }
  }
  if (step.liftedSome) await steps.rebuild(patientId);
  const checked = await checkPatient(progress.from, step);
  const { counts } = progress;
  counts.patients += 1;
  counts.summaries += summaries;
  counts.refreshed += refreshed;
  counts.readings += checked.readings;
  counts.renamed += checked.renamed.length;
  counts.mismatches += checked.mismatches.length;
  progress.renamed.push(...checked.renamed.slice(0, MOST_LISTED - progress.renamed.length));
  progress.mismatches.push(...checked.mismatches.slice(0, MOST_LISTED - progress.mismatches.length));
}

/**
 * Every id of the patient's rows in the earlier table, read back in layout 3: the same patient,
 * uuid and time of storing, or known to be held under a newer id; and each code of theirs in
 * their code set (reads over every code go through it).
 */
async function checkPatient(from: string, step: PatientStep) {
  const { patientId } = step;
  const renamedTo = new Map(step.renamed);
  const refused = new Map(step.refused);
  const mismatches: Mismatch[] = [];
  const renamed: Array<{ patientId: number; from: number; to: number }> = [];
  const codes = new Set<number>();
  let readings = 0;
  let start: Item | undefined;
  do {
    const page = await keysByUpdate(from, patientId, CHECK_PAGE, start);
    const found = new Map((await readByIds(page.rows.map((r) => r.id))).map((r) => [r.id, r]));
    for (const row of page.rows) {
      readings += 1;
      const stored = found.get(row.id);
      if (stored && stored.patientId === patientId && stored.uuid === row.uuid && stored.lastUpdated === row.lastUpdated) codes.add(stored.codeId);
      else if (stored) mismatches.push({ patientId, id: row.id, reason: 'layout 3 holds another reading under this id' });
      else if (renamedTo.has(row.id)) renamed.push({ patientId, from: row.id, to: renamedTo.get(row.id)! });
      else mismatches.push({ patientId, id: row.id, reason: refused.get(row.id) ?? 'not readable in layout 3' });
    }
    start = page.next;
  } while (start);
  const held = new Set(await patientCodes(patientId));
  for (const codeId of codes) if (!held.has(codeId)) mismatches.push({ patientId, codeId, reason: "the code is missing from the patient's code set" });
  return { readings, renamed, mismatches };
}

/** The counts as lines for the operator. */
export function migrationReport(progress: MigrationProgress): string[] {
  const c = progress.counts;
  return [
    `${c.patients} patients, ${c.readings} readings checked: ${c.copied} copied (${c.lifted} given their values), ${c.present} already in ${progress.to}`,
    `${c.renamed} held under a newer id (stored again meanwhile), ${c.mismatches} mismatches`,
    `${c.summaries} day summaries copied, ${c.refreshed} recomputed, ${c.claims} identifier claims copied`,
    ...progress.renamed.map((r) => `  renamed: patient ${r.patientId}, observation ${r.from} is now ${r.to}`),
    ...progress.mismatches.map((m) => `  mismatch: patient ${m.patientId}${m.id !== undefined ? `, observation ${m.id}` : ''}${m.codeId !== undefined ? `, code ${m.codeId}` : ''}: ${m.reason}`),
  ];
}
