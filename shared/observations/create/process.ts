/**
 * One path for every create: the batch upload and the single create (and the R4 import) hand their
 * entries here. Mobile-health Observations are checked and stored natively, a slice at a time;
 * everything else goes to the auxiliary store, an entry at a time. Each entry gets its own result,
 * in the order given; a failed entry leaves nothing behind and does not stop the others. Entries
 * that refer to other entries of their Bundle are stored after them, their references rewritten to
 * where those were stored (`references.ts`).
 *
 * Slices and entries go through a pace (`shared/store/pace.ts`): as many at once as the store
 * answers in good time, none started that could not finish before the request's deadline. What the
 * deadline leaves undone is answered `503`, to be sent again (`unfinished.ts`), and what was done is
 * acknowledged as usual.
 */
import type { Caller } from '../../auth/caller';
import pMap from 'p-map';
import { chunksOf } from '../../lists';
import type { Code } from '../../directory/model';
import { issue, operationOutcome, type OutcomeIssue } from '../../fhir/outcome';
import { shapeWrite, type WriteResult, type WriteTarget } from '../../fhir/write-response';
import type { Deadline } from '../../http/deadline';
import { Pace, runPaced, type PacedOutcome, type StoreAnswer } from '../../store/pace';
import type { CheckedSource } from '../../auxiliary/types';
import type { AuxiliaryHandover } from '../auxiliary-handover';
import { codesById } from '../code-table-cache';
import { READING_VERSION, toFhirObservation } from '../fhir-observation';
import { routeObservation, sensorKindsOf } from '../route';
import { isRetryable } from '../../store/retry';
import { storeBusy } from '../store/port';
import { storeObservations, type WriteOutcome } from '../write';
import type { ParsedEntry } from './bundle';
import { checkNativeObservation, uploadContext, type EntryCheck, type UploadContext } from './native-entry';
import { checkSensorReading } from './sensor-reading';
import type { NewObservation, StoredObservation } from '../model';
import { planReferences, resolveReferences } from './references';
import { unfinishedEntry, type EntryNoun, type Unfinished } from './unfinished';

export interface UploadRequest extends WriteTarget {
  caller: Caller;
  /** X-SVC-FHIR-Source-ID, for auxiliary creates. */
  sourceHeader?: string;
  /** The source `sourceHeader` names, when the request has checked it once for every entry (the R4 import). */
  checkedSource?: CheckedSource;
  auxiliary: AuxiliaryHandover;
  /** When the answer must be on its way (`shared/http/deadline.ts`). */
  deadline: Deadline;
  /** What the entries are called in messages: a batch upload's are readings, an import's resources. */
  noun: EntryNoun;
}

/** One entry's answer: a status, and (on success) the resource with its location and version. */
export interface EntryResult extends WriteResult {
  /** Where a stored entry went, whose data it is and its `<Type>/<id>` (for the audit line, the metrics and references to it; never sent). */
  written?: { store: 'native' | 'auxiliary'; patientId: number; reference: string };
  /** Why an entry answered 503 was not finished (never sent). */
  unfinished?: Unfinished;
}

/** Checks of native entries run this many at a time (they await lookups remembered per request). */
const CHECK_CONCURRENCY = 8;
/** Native entries checked, then stored, together: the unit of the native write pace. */
const SLICE = 25;

/**
 * The pace of native slices and of auxiliary creates, for the whole process (every request of a
 * local gateway). A slice of 25 readings takes tens of milliseconds on DynamoDB; past 2 s its
 * readings are queuing inside the store (an auxiliary create, one resource, past 1 s).
 */
const nativeWrites = new Pace({ initial: 4, min: 1, max: 64, firstGuessMs: 1000, slowMs: 2000 });
const auxiliaryWrites = new Pace({ initial: 4, min: 1, max: 64, firstGuessMs: 500, slowMs: 1000 });

type SliceResults = Array<[index: number, result: EntryResult]>;

export async function processEntries(entries: readonly ParsedEntry[], req: UploadRequest): Promise<EntryResult[]> {
  const results = new Array<EntryResult>(entries.length);
  const ctx = uploadContext(req.caller);
  const plan = planReferences(entries);
  // Where each stored entry is, for the references of the waves after it (`references.ts`).
  const stored = new Map<number, string>();
  for (const wave of plan.waves) {
    const notes = new Map<number, OutcomeIssue[]>();
    const resolved = wave.map((i) => {
      const sites = plan.references.get(i);
      if (!sites) return entries[i]!;
      const { entry, notes: unresolved } = resolveReferences(entries[i]!, sites, stored);
      if (unresolved.length > 0) notes.set(i, unresolved);
      return entry;
    });
    const done = await processWave(resolved, req, ctx);
    done.forEach((result, n) => {
      const index = wave[n]!;
      if (result.written) stored.set(index, result.written.reference);
      results[index] = withNotes(result, notes.get(index));
    });
  }
  return results;
}

/** A stored entry's answer with what its references came to (a refused entry's answer is its refusal). */
function withNotes(result: EntryResult, notes: readonly OutcomeIssue[] | undefined): EntryResult {
  if (!notes || result.status >= 300) return result;
  return { ...result, outcome: operationOutcome([...(result.outcome?.issue ?? []), ...notes]) };
}

/** One wave of entries (`references.ts`): native slices and auxiliary creates side by side, each through its pace. */
async function processWave(entries: readonly ParsedEntry[], req: UploadRequest, ctx: UploadContext): Promise<EntryResult[]> {
  const results = new Array<EntryResult>(entries.length);
  const native: number[] = [];
  const auxiliary: number[] = [];
  entries.forEach((entry, i) => {
    if (!entry.ok) results[i] = { status: entry.status, outcome: operationOutcome(entry.issues) };
    else if (entry.type === 'Observation' && routeObservation(entry.resource) === 'native') native.push(i);
    else auxiliary.push(i);
  });

  const resourceOf = (i: number) => (entries[i] as { resource: unknown }).resource;
  const slices = chunksOf(native, SLICE);
  const [sliceOutcomes, auxiliaryOutcomes] = await Promise.all([
    runPaced(slices, nativeWrites, req.deadline, (slice) => storeSlice(slice, resourceOf, ctx, req), (done) => storeAnswerOf(done.map(([, result]) => result))),
    runPaced(auxiliary, auxiliaryWrites, req.deadline, (i) => auxiliaryResult(entries[i] as { type: string; resource: unknown }, req), (result) => storeAnswerOf([result])),
  ]);
  sliceOutcomes.forEach((outcome, n) => {
    if (outcome.kind === 'done') for (const [index, result] of outcome.value) results[index] = result;
    else for (const index of slices[n]!) results[index] = unfinished(outcome.kind, req.noun);
  });
  auxiliaryOutcomes.forEach((outcome, n) => {
    const index = auxiliary[n]!;
    results[index] = outcome.kind === 'done' ? outcome.value : unfinished(outcome.kind, req.noun, hasId(resourceOf(index)));
  });
  return results;
}

/**
 * How the store answered a slice (or one auxiliary entry): busy when any entry was refused busy,
 * unused when every entry was refused before it reached the store (a 4xx), else answered.
 */
function storeAnswerOf(results: readonly EntryResult[]): StoreAnswer {
  if (results.some((r) => r.unfinished === 'busy')) return 'busy';
  return results.every((r) => r.status >= 400 && r.status < 500) ? 'unused' : 'answered';
}

const hasId = (resource: unknown) => typeof (resource as { id?: unknown }).id === 'string';

function unfinished(why: Exclude<PacedOutcome<unknown>['kind'], 'done'> | 'busy', noun: EntryNoun, withId = true): EntryResult {
  return { ...unfinishedEntry(why, noun, withId), unfinished: why };
}

/** Checks a slice of native entries and stores the valid ones together; every entry's result. */
async function storeSlice(slice: readonly number[], resourceOf: (i: number) => unknown, ctx: UploadContext, req: UploadRequest): Promise<SliceResults> {
  const checks = await pMap(slice, (i) => checkReading(resourceOf(i), ctx, req), { concurrency: CHECK_CONCURRENCY });
  const out: SliceResults = [];
  const valid: Array<{ index: number; check: Extract<EntryCheck, { ok: true }> }> = [];
  checks.forEach((check, n) => {
    const index = slice[n]!;
    if (check.ok) valid.push({ index, check });
    else out.push([index, { status: check.status, outcome: operationOutcome(check.issues) }]);
  });
  const written = await storeObservations(valid.map((v) => v.check.observation)).catch((error) => busyOutcomes(error, valid.length));
  const codes = await codesById(written.flatMap((w) => (w.kind === 'existing' ? [w.observation.codeId] : [])));
  written.forEach((outcome, n) => {
    const { index, check } = valid[n]!;
    const changed = check.derived && outcome.kind === 'existing' && !sameReading(outcome.observation, check.observation);
    out.push([index, changed ? changedReading(outcome.observation) : nativeResult(outcome, check.code, codes, check.warnings, req)]);
  });
  return out;
}

/** A reading's checks: a FHIR sensor reading's payload is derived first (`sensor-reading.ts`). */
function checkReading(resource: unknown, ctx: UploadContext, req: UploadRequest): Promise<EntryCheck> {
  if (sensorKindsOf(resource).length > 0) return checkSensorReading(resource, ctx, req);
  return checkNativeObservation(resource, ctx);
}

/** Whether a stored reading says what a derived one sent again says: the same time, status and values. */
function sameReading(stored: StoredObservation, sent: NewObservation): boolean {
  const values = (o: NewObservation) => JSON.stringify(o.values ?? []);
  return stored.effective?.start === sent.effective?.start && stored.status === sent.status && values(stored) === values(sent);
}

/**
 * A derived reading whose identity (its identifier, or its source and id) is stored already with
 * another value, time or status: a stored reading is never changed, and taking the new one as the
 * old would lose it without a word.
 */
function changedReading(stored: StoredObservation): EntryResult {
  const message = `This reading's identity is already stored as Observation/${stored.id} with another value, time or status; a stored reading is never changed (give a corrected reading an identity of its own).`;
  return { status: 409, outcome: operationOutcome([issue('error', 'conflict', message, 'Observation')]) };
}

/**
 * A store call that failed before it wrote a row (the id counter or the span statistics stayed
 * throttled) leaves its readings unstored: each is reported as such (503), like a reading whose own
 * transaction stayed throttled, and the rest of the batch keeps its results. Other errors stay
 * unexpected.
 */
function busyOutcomes(error: unknown, count: number): WriteOutcome[] {
  if (!isRetryable(error)) throw error;
  return Array.from({ length: count }, storeBusy);
}

async function auxiliaryResult(entry: { type: string; resource: unknown }, req: UploadRequest): Promise<EntryResult> {
  const created = await req.auxiliary.create({
    caller: req.caller,
    type: entry.type,
    resource: entry.resource,
    origin: req.origin,
    ...(req.sourceHeader !== undefined ? { sourceHeader: req.sourceHeader } : {}),
    ...(req.checkedSource ? { checkedSource: req.checkedSource } : {}),
  });
  // A 503 is the store's (busy, or a write whose end is unknown): the entry may be sent again, and the pace learns of it.
  if (!created.ok) return { status: created.status, outcome: created.outcome, ...(created.status === 503 ? { unfinished: 'busy' as const } : {}) };
  const { status, resource, patientId } = created;
  return { ...shapeWrite({ status, resource }, req), written: { store: 'auxiliary', patientId, reference: `${resource.resourceType}/${resource.id}` } };
}

function nativeResult(outcome: WriteOutcome, code: Code, codes: Map<number, Code>, warnings: OutcomeIssue[], req: UploadRequest): EntryResult {
  switch (outcome.kind) {
    case 'created':
    case 'existing': {
      const o = outcome.observation;
      const existing = outcome.kind === 'existing';
      const notes = existing
        ? [issue('information', 'duplicate', `This reading (header.uuid ${o.uuid}) is already stored as Observation/${o.id}; nothing was added.`)]
        : [];
      const resource = toFhirObservation(o, existing ? (codes.get(o.codeId) ?? code) : code);
      return {
        ...shapeWrite({ status: existing ? 200 : 201, resource, versionId: READING_VERSION, notes: [...notes, ...warnings] }, req),
        written: { store: 'native', patientId: o.patientId, reference: `Observation/${o.id}` },
      };
    }
    case 'conflict': {
      const { system, value } = outcome.identifier;
      const named = system !== undefined ? `${system}|${value}` : value;
      const message = `The identifier ${named} is already used by another Observation.`;
      return { status: 409, outcome: operationOutcome([issue('error', 'duplicate', message, 'Observation.identifier')]) };
    }
    case 'failed':
      if (outcome.status === 503) return unfinished('busy', req.noun);
      return { status: outcome.status, outcome: operationOutcome([issue('error', outcome.status === 413 ? 'too-long' : 'exception', outcome.reason)]) };
  }
}
