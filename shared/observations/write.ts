/**
 * Storing readings: never a second row for the same reading, never a silent loss. The steps
 * decided here, in front of either store (how the DynamoDB adapter writes is told in
 * `store/block-write.ts`):
 *
 * 0. A device that retries re-sends readings already stored; they are looked up first (on
 *    DynamoDB one BatchGetItem per 100 readings, by the row key patient + `header.uuid`) and answer
 *    'existing' without any write: no id, no pointer, no transaction. A miss (a row another
 *    request is writing right now, a read that failed) only sends the reading down the path
 *    below, whose conditional write still refuses a second row. The read is strongly consistent,
 *    like every read of this table: it adds one read unit per reading to a first upload, whose
 *    writes take about three write units per reading (a write unit is priced as five read units),
 *    and a retry right after a lost answer finds its rows.
 * 1. Ids come from the store (on DynamoDB the `observation` counter, in blocks of 1,000).
 * 2. A reading too large for the store (as the store measures it) answers 413 before anything is written.
 * 3. The span statistics of each patient are raised first when a row needs it (`span-stats.ts`).
 * 4. The store writes the rows with their identifier claims and id pointers, one outcome each.
 * 5. Every reading answered as already stored is made readable by id: its first upload may have
 *    stopped between row and pointer. That row is found by the lookup of step 0, or by the failed
 *    condition of this request's own write when the first upload's row landed in between.
 * 6. The day summaries of every day a stored reading of the batch belongs to are recomputed from
 *    the rows and kept (`stats/keep.ts`); a day whose summary could not be kept answers its
 *    readings 503, so the device's re-send puts it right.
 */
import { rootLogger } from '../telemetry/logger';
import { readingKeyText, type NewObservation, type StoredObservation } from './model';
import { raiseSpans, spanOf } from './span-stats';
import { keepDaySummaries } from './stats/keep';
import { observationStore } from './store/current';
import { failed, storeBusy, type WriteOutcome } from './store/port';

export type { WriteOutcome } from './store/port';

/** Stores readings; one outcome per input, in input order. */
export async function storeObservations(inputs: readonly NewObservation[]): Promise<WriteOutcome[]> {
  if (inputs.length === 0) return [];
  const outcomes = new Array<WriteOutcome>(inputs.length);
  const stored = await findStored(inputs);
  const fresh: number[] = [];
  inputs.forEach((input, index) => {
    const row = stored.get(readingKeyText(input));
    if (row) outcomes[index] = { kind: 'existing', observation: row };
    else fresh.push(index);
  });
  if (fresh.length === 0) return keepDaySummaries(await readableById(outcomes));

  const ids = await observationStore().newIds(fresh.length);
  const lastUpdated = new Date().toISOString();
  const pending: Array<{ index: number; observation: StoredObservation }> = [];
  fresh.forEach((index, n) => {
    const observation: StoredObservation = { ...inputs[index]!, id: ids[n]!, lastUpdated };
    const refusal = observationStore().tooLarge(observation);
    if (refusal) outcomes[index] = failed(413, refusal);
    else pending.push({ index, observation });
  });

  const spans = new Map<number, number>();
  for (const { observation: o } of pending) spans.set(o.patientId, Math.max(spans.get(o.patientId) ?? 1, spanOf(o.effective)));
  await raiseSpans(spans);

  const written = await observationStore().insert(pending.map((p) => p.observation));
  pending.forEach((p, n) => (outcomes[p.index] = written[n]!));
  return keepDaySummaries(await readableById(outcomes));
}

/** Step 5 of the header: the outcomes, once every reading answered as already stored is readable by id. */
async function readableById(outcomes: WriteOutcome[]): Promise<WriteOutcome[]> {
  const existing = outcomes.flatMap((o, index) => (o?.kind === 'existing' ? [{ index, observation: o.observation }] : []));
  if (existing.length === 0) return outcomes;
  try {
    const unreadable = new Set(await observationStore().makeReadableById(existing.map((e) => e.observation)));
    for (const { index, observation } of existing) if (unreadable.has(observation.id)) outcomes[index] = storeBusy();
  } catch (e) {
    rootLogger().warn('checking the pointers of re-posted readings failed', e instanceof Error ? e : String(e));
  }
  return outcomes;
}

/** Rows already stored for these readings, by reading (step 0 of the header). */
async function findStored(inputs: readonly NewObservation[]): Promise<Map<string, StoredObservation>> {
  try {
    const rows = await observationStore().findReadings(inputs);
    return new Map(rows.map((row) => [readingKeyText(row), row]));
  } catch (e) {
    // Only a shortcut: without it every reading takes the write path, which settles duplicates too.
    rootLogger().warn('looking up stored readings failed; writing all of them', e instanceof Error ? e : String(e));
    return new Map();
  }
}
