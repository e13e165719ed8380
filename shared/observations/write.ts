/**
 * Storing readings: never a second row for the same reading, never a silent loss.
 *
 * 0. A device that retries re-sends readings already stored; they are looked up first (one
 *    BatchGetItem per 100 readings, by the row key patient + `header.uuid`) and answer 'existing'
 *    without any write: no id, no pointer, no transaction. A miss (a row another request is
 *    writing right now, a read that failed) only sends the reading down the path below, whose
 *    conditional put still refuses a second row. The read is strongly consistent, like every read
 *    of this table: it adds one read unit per reading to a first upload, whose writes below take
 *    about three write units per reading (a write unit is priced as five read units), and a retry
 *    right after a lost answer finds its rows.
 * 1. Ids come from the `observation` counter in blocks of 1,000 (one counter write per block).
 * 2. The span statistics of each patient are raised first when a row needs it (`span-stats.ts`).
 * 3. A reading without identifiers is one conditional put of its row (the key patient +
 *    `header.uuid` must be free; a failed condition returns the row already there, `ALL_OLD`, so a
 *    duplicate answers with the id it already has): 1 write unit, where a transaction costs 2.
 *    A reading with identifiers goes in TransactWriteItems of up to 100 actions: its row's
 *    conditional put and each identifier a claim conditional on being free, so DynamoDB refuses a
 *    second holder of an identifier across requests and processes, and the claims commit with the
 *    row or not at all. The cancellation reasons name the actions that failed and return the
 *    existing items (`ALL_OLD`). The actions of a cancelled transaction that did not fail are
 *    retried; rows whose keys repeat within one request wait for a later round, since one
 *    transaction may not touch an item twice.
 *    Then the id pointers (read by id) of the rows stored now go in BatchWriteItem. A row lands
 *    before its pointer, so a pointer never leads nowhere; a row whose pointer did not land (the
 *    invocation stopped in between, the store stayed busy) answers 503, and the client's retry
 *    finds the row (in step 0, or by its own write's failed condition) and writes the missing
 *    pointer (every reading answered as already stored has its pointer checked).
 * 4. Throttling and transaction conflicts are retried with backoff; what still fails is reported
 *    per reading (503), never dropped silently.
 */
import { createHash } from 'node:crypto';
import { ConditionalCheckFailedException, TransactionCanceledException, type CancellationReason } from '@aws-sdk/client-dynamodb';
import { PutCommand, TransactWriteCommand, type TransactWriteCommandInput } from '@aws-sdk/lib-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import pMap from 'p-map';
import { config } from '../config';
import { rootLogger } from '../telemetry/logger';
import { batchGetAll, batchWriteAll } from '../store/batch';
import { PASSING_CANCELLATIONS } from '../store/busy';
import { dynamo } from '../store/clients';
import { idBlocks } from '../store/counters';
import { backoff, isRetryable, MAX_ATTEMPTS, retryWhileBusy } from '../store/retry';
import { fromItem, itemBytes, toItem, type ObservationItem } from './items';
import { observationKeys } from './keys';
import type { NewObservation, ObservationIdentifier, StoredObservation } from './model';
import { raiseSpans, spanOf } from './span-stats';

export type WriteOutcome =
  /** Stored now. */
  | { kind: 'created'; observation: StoredObservation }
  /** The same reading (patient + `header.uuid`) was already stored: this is that row. */
  | { kind: 'existing'; observation: StoredObservation }
  /** An identifier of the reading belongs to another observation. */
  | { kind: 'conflict'; identifier: ObservationIdentifier; heldBy: number }
  /** The store could not take it (after retries) or refused it; nothing of it is stored. */
  | { kind: 'failed'; status: 413 | 500 | 503; reason: string };

/** Ids in blocks: one counter write per 1,000 readings. */
const OBSERVATION_ID_BLOCK = 1000;

/** DynamoDB's limits: 100 actions and 4 MB a transaction, 400 KB an item (kept under with room). */
const MAX_ACTIONS = 100;
const MAX_TRANSACTION_BYTES = 3_500_000;
export const MAX_ITEM_BYTES = 380_000;

/** Transactions in flight per request. */
const TRANSACTION_CONCURRENCY = 4;
/** Conditional puts in flight per request. */
const PUT_CONCURRENCY = 16;

type TransactItem = NonNullable<TransactWriteCommandInput['TransactItems']>[number];

interface Pending {
  index: number;
  observation: StoredObservation;
  item: ObservationItem;
  /** The row's id pointer. */
  pointer: ObservationItem;
  /** With identifiers: the row's put first, then one claim per identifier (one transaction). */
  actions: TransactItem[];
  /** Keys the row and its claims take, to keep two writes of one item out of a round. */
  keys: string[];
  bytes: number;
}

const table = () => config().observationsTable;
const keyId = (k: { pk?: unknown; sk?: unknown }) => `${String(k.pk)}\u0000${String(k.sk)}`;

/** The item that leads from an id to its row. */
const pointerItem = (o: StoredObservation): ObservationItem => ({ ...observationKeys.pointer(o.id), patientId: o.patientId, uuid: o.uuid });

function pendingOf(observation: StoredObservation, index: number): Pending {
  const item = toItem(observation);
  const claims = observation.identifiers.map((identifier) => ({
    ...observationKeys.identifier(identifier.system ?? '', identifier.value),
    id: observation.id,
    patientId: observation.patientId,
  }));
  const pointer = pointerItem(observation);
  const conditional = (Item: Record<string, unknown>): TransactItem => ({
    Put: { TableName: table(), Item, ConditionExpression: 'attribute_not_exists(pk)', ReturnValuesOnConditionCheckFailure: 'ALL_OLD' },
  });
  const actions: TransactItem[] = [conditional(item), ...claims.map(conditional)];
  const keys = [item, ...claims].map((i) => keyId(i));
  return { index, observation, item, pointer, actions, keys, bytes: itemBytes(item) + 200 * claims.length };
}

const claimsIdentifiers = (p: Pending) => p.observation.identifiers.length > 0;

/** Stores readings; one outcome per input, in input order. */
export async function storeObservations(inputs: readonly NewObservation[]): Promise<WriteOutcome[]> {
  if (inputs.length === 0) return [];
  const outcomes = new Array<WriteOutcome>(inputs.length);
  const stored = await findStored(inputs);
  const fresh: number[] = [];
  inputs.forEach((input, index) => {
    const row = stored.get(keyId(observationKeys.observation(input.patientId, input.uuid)));
    if (row) outcomes[index] = { kind: 'existing', observation: row };
    else fresh.push(index);
  });
  if (fresh.length === 0) return withPointers(outcomes);

  const ids = await idBlocks('observation', OBSERVATION_ID_BLOCK).take(fresh.length);
  const lastUpdated = new Date().toISOString();
  let pending: Pending[] = [];
  fresh.forEach((index, n) => {
    const p = pendingOf({ ...inputs[index]!, id: ids[n]!, lastUpdated }, index);
    if (p.bytes > MAX_ITEM_BYTES) outcomes[index] = failed(413, `The reading is too large to store (${p.bytes} bytes; at most ${MAX_ITEM_BYTES}).`);
    else pending.push(p);
  });

  const spans = new Map<number, number>();
  for (const p of pending) spans.set(p.observation.patientId, Math.max(spans.get(p.observation.patientId) ?? 1, spanOf(p.observation.effective)));
  await raiseSpans(spans);

  while (pending.length > 0) {
    const { round, later } = splitRound(pending);
    const groups = groupForTransactions(round.filter(claimsIdentifiers));
    await Promise.all([
      pMap(groups, (group) => runTransaction(group, outcomes), { concurrency: TRANSACTION_CONCURRENCY }),
      pMap(round.filter((p) => !claimsIdentifiers(p)), (p) => putRow(p, outcomes), { concurrency: PUT_CONCURRENCY }),
    ]);
    // The id is fresh from the counter, so its pointer needs no condition.
    await writePointers(round.filter((p) => outcomes[p.index]?.kind === 'created').map((p) => ({ index: p.index, pointer: p.pointer })), outcomes);
    pending = later;
  }
  return withPointers(outcomes);
}

/**
 * The outcomes, once every reading answered as already stored has its id pointer: its first upload
 * may have stopped between row and pointer. That row is found by the lookup of step 0, or by the
 * failed condition of this request's own write when the first upload's row landed in between.
 */
async function withPointers(outcomes: WriteOutcome[]): Promise<WriteOutcome[]> {
  const existing = outcomes.flatMap((o, index) => (o?.kind === 'existing' ? [{ index, pointer: pointerItem(o.observation) }] : []));
  if (existing.length === 0) return outcomes;
  try {
    const found = new Set((await batchGetAll(table(), existing.map(({ pointer }) => ({ pk: pointer.pk, sk: pointer.sk })))).map(keyId));
    await writePointers(existing.filter((e) => !found.has(keyId(e.pointer))), outcomes);
  } catch (e) {
    rootLogger().warn('checking the pointers of re-posted readings failed', e instanceof Error ? e : String(e));
  }
  return outcomes;
}

/** Rows already stored for these readings, by row key (step 0 of the header). */
async function findStored(inputs: readonly NewObservation[]): Promise<Map<string, StoredObservation>> {
  const keys = inputs.map((input) => observationKeys.observation(input.patientId, input.uuid));
  try {
    const items = await batchGetAll(table(), keys);
    return new Map(items.map((item) => [keyId(item), fromItem(item)]));
  } catch (e) {
    // Only a shortcut: without it every reading takes the write path, which settles duplicates too.
    rootLogger().warn('looking up stored readings failed; writing all of them', e instanceof Error ? e : String(e));
    return new Map();
  }
}

/** Puts the row of a reading without identifiers, conditional on its key being free (step 3 of the header). */
async function putRow(p: Pending, outcomes: WriteOutcome[]): Promise<void> {
  try {
    await retryWhileBusy(() =>
      dynamo().send(
        new PutCommand({ TableName: table(), Item: p.item, ConditionExpression: 'attribute_not_exists(pk)', ReturnValuesOnConditionCheckFailure: 'ALL_OLD' }),
      ),
    );
    outcomes[p.index] = { kind: 'created', observation: p.observation };
  } catch (e) {
    if (e instanceof ConditionalCheckFailedException) {
      const existing = e.Item ? fromItem(unmarshall(e.Item)) : undefined;
      // Our own row, whose first answer was lost and which the SDK sent again, counts as stored now.
      if (!existing || existing.id === p.observation.id) outcomes[p.index] = { kind: 'created', observation: p.observation };
      else outcomes[p.index] = { kind: 'existing', observation: existing };
    } else if (isRetryable(e)) {
      outcomes[p.index] = failed(503, BUSY);
    } else {
      rootLogger().error('observation put refused', e instanceof Error ? e : String(e));
      outcomes[p.index] = failed(500, 'The store refused the reading.');
    }
  }
}

/**
 * Writes id pointers (no condition: a pointer's content follows from its row). Entries of one
 * reading share one write. A reading whose pointer still could not be written is stored but not
 * yet readable by id: it answers 503, and the retry restores the pointer.
 */
async function writePointers(pointers: ReadonlyArray<{ index: number; pointer: ObservationItem }>, outcomes: WriteOutcome[]): Promise<void> {
  if (pointers.length === 0) return;
  const unique = new Map(pointers.map((p) => [keyId(p.pointer), p.pointer]));
  const unwritten = new Set((await batchWriteAll(table(), [...unique.values()].map((Item) => ({ PutRequest: { Item } })))).map((r) => keyId(r.PutRequest!.Item!)));
  for (const { index, pointer } of pointers) if (unwritten.has(keyId(pointer))) outcomes[index] = failed(503, BUSY);
}

/** Readings whose keys are all new to this round; the others wait for the next round. */
function splitRound(pending: Pending[]): { round: Pending[]; later: Pending[] } {
  const seen = new Set<string>();
  const round: Pending[] = [];
  const later: Pending[] = [];
  for (const p of pending) {
    if (p.keys.some((k) => seen.has(k))) later.push(p);
    else {
      p.keys.forEach((k) => seen.add(k));
      round.push(p);
    }
  }
  return { round, later };
}

function groupForTransactions(round: Pending[]): Pending[][] {
  const groups: Pending[][] = [];
  let current: Pending[] = [];
  let actions = 0;
  let bytes = 0;
  for (const p of round) {
    if (current.length > 0 && (actions + p.actions.length > MAX_ACTIONS || bytes + p.bytes > MAX_TRANSACTION_BYTES)) {
      groups.push(current);
      current = [];
      actions = 0;
      bytes = 0;
    }
    current.push(p);
    actions += p.actions.length;
    bytes += p.bytes;
  }
  if (current.length > 0) groups.push(current);
  return groups;
}

/**
 * Same actions, same token: a transaction the SDK resends after a lost answer is applied once.
 * Tokens are remembered per account and region, so the table is part of it (ids repeat across
 * deployments that share an account).
 */
function requestToken(group: readonly Pending[]): string {
  const actions = group.map((p) => `${p.observation.id}:${p.observation.patientId}:${p.observation.uuid}`).join(',');
  return createHash('sha256').update(`${table()}|${actions}`).digest('base64url').slice(0, 36);
}

async function runTransaction(group: Pending[], outcomes: WriteOutcome[]): Promise<void> {
  let remaining = group;
  let fruitless = 0;
  while (remaining.length > 0) {
    if (fruitless >= MAX_ATTEMPTS) {
      for (const p of remaining) outcomes[p.index] = failed(503, BUSY);
      return;
    }
    if (fruitless > 0) await backoff(fruitless);
    try {
      await dynamo().send(
        new TransactWriteCommand({ TransactItems: remaining.flatMap((p) => p.actions), ClientRequestToken: requestToken(remaining) }),
      );
      for (const p of remaining) outcomes[p.index] = { kind: 'created', observation: p.observation };
      return;
    } catch (e) {
      if (e instanceof TransactionCanceledException && e.CancellationReasons) {
        const retry = settleCancelled(remaining, e.CancellationReasons, outcomes);
        // Settling some readings is progress; only a round that settled none counts towards giving up.
        fruitless = retry.length === remaining.length ? fruitless + 1 : 0;
        remaining = retry;
      } else if (isRetryable(e)) {
        fruitless += 1;
      } else {
        rootLogger().error('observation transaction refused', e instanceof Error ? e : String(e));
        for (const p of remaining) outcomes[p.index] = failed(500, 'The store refused the reading.');
        return;
      }
    }
  }
}

/** Where a reading's identifier claims start among its actions (after the row's put). */
const FIRST_CLAIM = 1;

const BUSY = 'The store is busy; the reading was not stored. Please retry.';

const failed = (status: 413 | 500 | 503, reason: string): WriteOutcome => ({ kind: 'failed', status, reason });

/**
 * Settles the readings whose own conditions failed (duplicates, identifier conflicts) and returns
 * the ones to try again (cancelled only because of others, or by a conflict or throttling).
 */
function settleCancelled(group: Pending[], reasons: CancellationReason[], outcomes: WriteOutcome[]): Pending[] {
  const retry: Pending[] = [];
  let at = 0;
  for (const p of group) {
    const own = reasons.slice(at, at + p.actions.length);
    at += p.actions.length;
    const failedCondition = (r: CancellationReason | undefined) => r?.Code === 'ConditionalCheckFailed';
    if (failedCondition(own[0])) {
      const existing = own[0]!.Item ? fromItem(unmarshall(own[0]!.Item)) : undefined;
      if (existing && existing.id === p.observation.id) outcomes[p.index] = { kind: 'created', observation: p.observation };
      else if (existing) outcomes[p.index] = { kind: 'existing', observation: existing };
      else retry.push(p);
      continue;
    }
    // The row's put comes first; the identifier claims follow.
    const claim = own.findIndex((r, i) => i >= FIRST_CLAIM && failedCondition(r));
    if (claim >= FIRST_CLAIM) {
      const holder = own[claim]!.Item ? Number(unmarshall(own[claim]!.Item).id) : 0;
      outcomes[p.index] = { kind: 'conflict', identifier: p.observation.identifiers[claim - FIRST_CLAIM]!, heldBy: holder };
      continue;
    }
    // Anything but "not now" (a validation error, say) will not change on a retry.
    const refusal = own.find((r) => r.Code !== 'ConditionalCheckFailed' && !PASSING_CANCELLATIONS.has(r.Code ?? 'None'));
    if (refusal) {
      rootLogger().error('observation transaction refused', { reason: refusal.Code, message: refusal.Message });
      outcomes[p.index] = failed(500, 'The store refused the reading.');
      continue;
    }
    retry.push(p);
  }
  return retry;
}

