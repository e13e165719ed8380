/**
 * Storing readings in the observations table: never a second row for the same reading, never a
 * silent loss.
 *
 * - A reading without identifiers is one conditional put of its row (the key patient +
 *   `header.uuid` must be free; a failed condition returns the row already there, `ALL_OLD`, so a
 *   duplicate answers with the id it already has): 1 write unit, where a transaction costs 2.
 *   A reading with identifiers goes in a transaction with its claims (`dynamo-transactions.ts`).
 *   Rows whose keys repeat within one call wait for a later round (`rounds.ts`).
 * - Then the id pointers (read by id) of the rows stored now go in BatchWriteItem. A row lands
 *   before its pointer, so a pointer never leads nowhere; a row whose pointer did not land (the
 *   invocation stopped in between, the store stayed busy) answers 503, and the client's retry
 *   finds the row and writes the missing pointer (`makeReadableById`).
 * - Throttling and transaction conflicts are retried with backoff; what still fails is reported
 *   per reading (503), never dropped silently.
 */
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import pMap from 'p-map';
import { batchGetAll, batchWriteAll } from '../../store/batch';
import { dynamo } from '../../store/clients';
import { idBlocks } from '../../store/counters';
import { isRetryable, retryWhileBusy } from '../../store/retry';
import { rootLogger } from '../../telemetry/logger';
import { fromItem, type ObservationItem } from './dynamo-items';
import type { StoredObservation } from '../model';
import { claimsIdentifiers, pendingOf, pointerItem, type Pending } from './dynamo-pending';
import { table } from './dynamo-table';
import { groupForTransactions, runTransaction } from './dynamo-transactions';
import { storeBusy, storeRefused, type ObservationStore, type WriteOutcome } from './port';
import { inRounds, keyId } from './rounds';

/** Ids in blocks: one counter write per 1,000 readings. */
const OBSERVATION_ID_BLOCK = 1000;

/** Transactions in flight per request. */
const TRANSACTION_CONCURRENCY = 4;
/** Conditional puts in flight per request. */
const PUT_CONCURRENCY = 16;

export const newIds: ObservationStore['newIds'] = (count) => idBlocks('observation', OBSERVATION_ID_BLOCK).take(count);

export async function insert(readings: readonly StoredObservation[]): Promise<WriteOutcome[]> {
  const outcomes = new Array<WriteOutcome>(readings.length);
  await inRounds(readings.map(pendingOf), (p) => p.keys, async (round) => {
    const groups = groupForTransactions(round.filter(claimsIdentifiers));
    await Promise.all([
      pMap(groups, (group) => runTransaction(group, outcomes), { concurrency: TRANSACTION_CONCURRENCY }),
      pMap(round.filter((p) => !claimsIdentifiers(p)), (p) => putRow(p, outcomes), { concurrency: PUT_CONCURRENCY }),
    ]);
    // The id is fresh from the counter, so its pointer needs no condition.
    const stored = round.filter((p) => outcomes[p.index]?.kind === 'created');
    const unwritten = await writePointers(stored.map((p) => p.pointer));
    for (const p of stored) if (unwritten.has(keyId(p.pointer))) outcomes[p.index] = storeBusy();
  });
  return outcomes;
}

export async function makeReadableById(readings: readonly StoredObservation[]): Promise<number[]> {
  if (readings.length === 0) return [];
  const pointers = readings.map(pointerItem);
  const found = new Set((await batchGetAll(table(), pointers.map(({ pk, sk }) => ({ pk, sk })))).map(keyId));
  const unwritten = await writePointers(pointers.filter((p) => !found.has(keyId(p))));
  return pointers.filter((p) => unwritten.has(keyId(p))).map((p) => p.id as number);
}

/** Puts the row of a reading without identifiers, conditional on its key being free. */
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
      outcomes[p.index] = storeBusy();
    } else {
      rootLogger().error('observation put refused', e instanceof Error ? e : String(e));
      outcomes[p.index] = storeRefused();
    }
  }
}

/**
 * Writes id pointers (no condition: a pointer's content follows from its row), each once however
 * often it is named; returns the keys of those that still could not be written (their readings
 * are stored but not yet readable by id).
 */
async function writePointers(pointers: readonly ObservationItem[]): Promise<Set<string>> {
  if (pointers.length === 0) return new Set();
  const unique = new Map(pointers.map((p) => [keyId(p), p]));
  return new Set((await batchWriteAll(table(), [...unique.values()].map((Item) => ({ PutRequest: { Item } })))).map((r) => keyId(r.PutRequest!.Item!)));
}
