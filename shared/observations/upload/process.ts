/**
 * One path for every create: the batch upload and the single create (and the R4 import) hand their
 * entries here. Mobile-health Observations are checked and stored natively, together, in one
 * store call; everything else goes to the auxiliary store. Each entry gets its own result, in the
 * order given; a failed entry leaves nothing behind and does not stop the others.
 */
import type { Caller } from '../../auth/caller';
import pMap from 'p-map';
import { chunksOf } from '../../lists';
import type { Code } from '../../directory/model';
import { issue, operationOutcome, type OutcomeIssue } from '../../fhir/outcome';
import { shapeWrite, type WriteResult, type WriteTarget } from '../../fhir/write-response';
import type { AuxiliaryStore } from '../auxiliary';
import { codesById } from '../code-table-cache';
import { READING_VERSION, toFhirObservation } from '../fhir-observation';
import { routeObservation } from '../route';
import { isRetryable } from '../../store/retry';
import { storeObservations, type WriteOutcome } from '../write';
import type { ParsedEntry } from './bundle';
import { checkNativeObservation, uploadContext, type EntryCheck } from './native-entry';

export interface UploadRequest extends WriteTarget {
  caller: Caller;
  /** X-SVC-FHIR-Source-ID, for auxiliary creates. */
  sourceHeader?: string;
  auxiliary: AuxiliaryStore;
}

/** One entry's answer: a status, and (on success) the resource with its location and version. */
export interface EntryResult extends WriteResult {
  /** Where a stored entry went, and whose data it is (for the audit line and the metrics; never sent). */
  written?: { store: 'native' | 'auxiliary'; patientId: number };
}

/** Checks of native entries run this many at a time (they await lookups remembered per request). */
const CHECK_CONCURRENCY = 8;
const AUX_CONCURRENCY = 4;
/** Native entries checked, then stored, together. */
const PIPELINE_SLICE = 100;

export async function processEntries(entries: readonly ParsedEntry[], req: UploadRequest): Promise<EntryResult[]> {
  const results = new Array<EntryResult>(entries.length);
  const native: number[] = [];
  const auxiliary: number[] = [];
  entries.forEach((entry, i) => {
    if (!entry.ok) results[i] = { status: entry.status, outcome: operationOutcome(entry.issues) };
    else if (entry.type === 'Observation' && routeObservation(entry.resource) === 'native') native.push(i);
    else auxiliary.push(i);
  });

  // Slices are checked and stored in a pipeline: the store writes one slice while the next is checked.
  const ctx = uploadContext(req.caller);
  const stored: Array<Promise<void>> = [];
  for (const slice of chunksOf(native, PIPELINE_SLICE)) {
    const checks = await pMap(slice, (i) => checkNativeObservation((entries[i] as { resource: unknown }).resource, ctx), { concurrency: CHECK_CONCURRENCY });
    const valid: Array<{ index: number; check: Extract<EntryCheck, { ok: true }> }> = [];
    checks.forEach((check, n) => {
      const index = slice[n]!;
      if (check.ok) valid.push({ index, check });
      else results[index] = { status: check.status, outcome: operationOutcome(check.issues) };
    });
    const writing = storeObservations(valid.map((v) => v.check.observation)).catch((error) => busyOutcomes(error, valid.length)).then(async (written) => {
      const codes = await codesById(written.flatMap((w) => (w.kind === 'existing' ? [w.observation.codeId] : [])));
      written.forEach((outcome, n) => {
        const { index, check } = valid[n]!;
        results[index] = nativeResult(outcome, check.code, codes, check.warnings, req);
      });
    });
    // Observed at once, so a failing slice is not an unhandled rejection while later slices are checked.
    writing.catch(() => undefined);
    stored.push(writing);
  }
  await Promise.all(stored);

  await pMap(auxiliary, async (i) => (results[i] = await auxiliaryResult(entries[i] as { type: string; resource: unknown }, req)), { concurrency: AUX_CONCURRENCY });
  return results;
}

/**
 * A store call that failed before it wrote a row (the id counter or the span statistics stayed
 * throttled) leaves its readings unstored: each is reported as such (503), like a reading whose own
 * transaction stayed throttled, and the rest of the batch keeps its results. Other errors stay
 * unexpected.
 */
function busyOutcomes(error: unknown, count: number): WriteOutcome[] {
  if (!isRetryable(error)) throw error;
  return Array.from({ length: count }, () => ({ kind: 'failed', status: 503, reason: 'The store is busy; the reading was not stored. Please retry.' }));
}

async function auxiliaryResult(entry: { type: string; resource: unknown }, req: UploadRequest): Promise<EntryResult> {
  const created = await req.auxiliary.create({
    caller: req.caller,
    type: entry.type,
    resource: entry.resource,
    origin: req.origin,
    ...(req.sourceHeader !== undefined ? { sourceHeader: req.sourceHeader } : {}),
  });
  if (!created.ok) return { status: created.status, outcome: created.outcome };
  const { status, resource, patientId } = created;
  return { ...shapeWrite({ status, resource }, req), written: { store: 'auxiliary', patientId } };
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
        written: { store: 'native', patientId: o.patientId },
      };
    }
    case 'conflict': {
      const { system, value } = outcome.identifier;
      const named = system !== undefined ? `${system}|${value}` : value;
      const message = `The identifier ${named} is already used by another Observation.`;
      return { status: 409, outcome: operationOutcome([issue('error', 'duplicate', message, 'Observation.identifier')]) };
    }
    case 'failed':
      return { status: outcome.status, outcome: operationOutcome([issue('error', outcome.status === 413 ? 'too-long' : 'transient', outcome.reason)]) };
  }
}
