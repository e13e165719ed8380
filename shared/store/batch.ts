/**
 * BatchWriteItem and BatchGetItem over any number of items, for any table: split into calls of
 * the API's size, a few in flight, unprocessed items retried with backoff. Writes report what
 * still failed (the caller reports it per entry) or throw (deletes); reads throw.
 */
import { BatchGetCommand, BatchWriteCommand, type BatchWriteCommandInput } from '@aws-sdk/lib-dynamodb';
import pMap from 'p-map';
import { chunksOf } from '../lists';
import { dynamo } from './clients';
import { backoff, isRetryable, MAX_ATTEMPTS } from './retry';

export type WriteRequest = NonNullable<BatchWriteCommandInput['RequestItems']>[string][number];

/** Largest number of requests BatchWriteItem takes. */
export const BATCH_WRITE_LIMIT = 25;

/**
 * Writes every request through BatchWriteItem (25 a call, `concurrency` calls in flight), retrying
 * unprocessed items and retryable errors with backoff. Returns the requests that still failed.
 */
export async function batchWriteAll(table: string, requests: readonly WriteRequest[], concurrency = 4): Promise<WriteRequest[]> {
  const failed = await pMap(chunksOf(requests, BATCH_WRITE_LIMIT), (chunk) => writeChunk(table, chunk), { concurrency });
  return failed.flat();
}

async function writeChunk(table: string, chunk: WriteRequest[]): Promise<WriteRequest[]> {
  let pending = chunk;
  for (let attempt = 1; pending.length > 0; attempt += 1) {
    if (attempt > 1) await backoff(attempt - 1);
    try {
      const out = await dynamo().send(new BatchWriteCommand({ RequestItems: { [table]: pending } }));
      pending = (out.UnprocessedItems?.[table] ?? []) as WriteRequest[];
    } catch (e) {
      if (!isRetryable(e)) throw e;
    }
    if (attempt >= MAX_ATTEMPTS) return pending;
  }
  return [];
}

/** Largest number of keys BatchGetItem takes. */
export const BATCH_GET_LIMIT = 100;

type Key = object;

/** The same key named twice makes a batch call refuse the whole call; each is sent once. */
const keyText = (key: Key) => JSON.stringify(Object.entries(key).sort(([a], [b]) => (a < b ? -1 : 1)));

const distinctKeys = (keys: readonly Key[]) => [...new Map(keys.map((k) => [keyText(k), k])).values()] as Record<string, unknown>[];

/** Deletes the items of `keys` (any number); throws when some are still not deleted after the retries. */
export async function batchDeleteAll(table: string, keys: readonly Key[]): Promise<void> {
  const failed = await batchWriteAll(table, distinctKeys(keys).map((Key) => ({ DeleteRequest: { Key } })));
  if (failed.length > 0) throw new Error(`BatchWriteItem left ${failed.length} deletions unprocessed after ${MAX_ATTEMPTS} attempts`);
}

/** The items for `keys` (strongly consistent; missing ones absent; a key named twice answered once), in no particular order. */
export async function batchGetAll(table: string, keys: readonly Key[], concurrency = 4): Promise<Record<string, unknown>[]> {
  const distinct = distinctKeys(keys);
  const found = await pMap(chunksOf(distinct, BATCH_GET_LIMIT), (chunk) => getChunk(table, chunk), { concurrency });
  return found.flat();
}

async function getChunk(table: string, chunk: Record<string, unknown>[]): Promise<Record<string, unknown>[]> {
  const items: Record<string, unknown>[] = [];
  let pending = chunk;
  for (let attempt = 1; pending.length > 0; attempt += 1) {
    if (attempt > MAX_ATTEMPTS) throw new Error(`BatchGetItem left ${pending.length} keys unprocessed after ${MAX_ATTEMPTS} attempts`);
    if (attempt > 1) await backoff(attempt - 1);
    try {
      const out = await dynamo().send(new BatchGetCommand({ RequestItems: { [table]: { Keys: pending, ConsistentRead: true } } }));
      items.push(...((out.Responses?.[table] ?? []) as Record<string, unknown>[]));
      pending = (out.UnprocessedKeys?.[table]?.Keys ?? []) as Record<string, unknown>[];
    } catch (e) {
      if (!isRetryable(e) || attempt >= MAX_ATTEMPTS) throw e;
    }
  }
  return items;
}

/** The items for `keys` in the order of `keys` (missing ones skipped, a key named twice answered twice). */
export async function batchGetInOrder(table: string, keys: readonly Key[]): Promise<Record<string, unknown>[]> {
  if (keys.length === 0) return [];
  const names = Object.keys(keys[0]!);
  const keyOf = (item: Record<string, unknown>) => keyText(Object.fromEntries(names.map((n) => [n, item[n]])));
  const found = new Map((await batchGetAll(table, keys)).map((item) => [keyOf(item), item]));
  return keys.map((k) => found.get(keyText(k))).filter((item) => item !== undefined);
}
