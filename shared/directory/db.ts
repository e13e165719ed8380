/**
 * The few DynamoDB operations the directory repositories are made of: key reads (GetItem,
 * BatchGetItem, Query on a key), and all-or-nothing writes (TransactWriteItems) whose failed
 * conditions become the caller's own HttpError. Nothing here scans.
 */
import { TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import {
  BatchGetCommand,
  BatchWriteCommand,
  GetCommand,
  QueryCommand,
  TransactWriteCommand,
  type QueryCommandInput,
  type TransactWriteCommandInput,
} from '@aws-sdk/lib-dynamodb';
import { config } from '../config';
import { conflict, fieldErrors, type HttpError } from '../http/errors';
import { dynamo } from '../store/clients';
import type { Key } from './keys';

export type Item = Record<string, unknown>;

const table = () => config().directoryTable;

/** Longest free text allowed inside a key (DynamoDB allows 2048 bytes for a partition key). */
export const MAX_KEY_TEXT = 512;

/** Refuses text that cannot be part of a key (empty, or so long the store would reject it). */
export function assertKeyText(field: string, value: string): void {
  if (value.length === 0) throw fieldErrors({ [field]: ['This field may not be blank.'] });
  if (Buffer.byteLength(value, 'utf8') > MAX_KEY_TEXT) {
    throw fieldErrors({ [field]: [`Ensure this field has no more than ${MAX_KEY_TEXT} bytes.`] });
  }
}

export async function getItem(key: Key, consistent = true, tableName = table()): Promise<Item | undefined> {
  const out = await dynamo().send(new GetCommand({ TableName: tableName, Key: key, ConsistentRead: consistent }));
  return out.Item;
}

const keyString = (key: Key) => `${key.pk}\u0000${key.sk}`;

/** Items for many keys (any number), in the order of `keys`; missing items are skipped (any table, the directory by default). */
export async function batchGet(keys: readonly Key[], consistent = true, tableName = table()): Promise<Item[]> {
  const unique = [...new Map(keys.map((k) => [keyString(k), k])).values()];
  const found = new Map<string, Item>();
  for (let i = 0; i < unique.length; i += 100) {
    let pending: Record<string, unknown>[] = unique.slice(i, i + 100).map((k) => ({ pk: k.pk, sk: k.sk }));
    for (let attempt = 0; pending.length > 0; attempt += 1) {
      if (attempt > 0) await backoff(attempt);
      const out = await dynamo().send(
        new BatchGetCommand({ RequestItems: { [tableName]: { Keys: pending, ConsistentRead: consistent } } }),
      );
      for (const item of out.Responses?.[tableName] ?? []) found.set(keyString(item as Key), item);
      pending = (out.UnprocessedKeys?.[tableName]?.Keys ?? []) as Record<string, unknown>[];
      if (attempt > 8 && pending.length > 0) throw new Error('BatchGetItem kept returning unprocessed keys');
    }
  }
  return keys.map((k) => found.get(keyString(k))).filter((item): item is Item => item !== undefined);
}

/** Deletes the items of many keys (any number, any table), retrying what DynamoDB leaves unprocessed. */
export async function batchDelete(keys: readonly Key[], tableName = table()): Promise<void> {
  const unique = [...new Map(keys.map((k) => [keyString(k), k])).values()];
  for (let i = 0; i < unique.length; i += 25) {
    let pending: Record<string, unknown>[] = unique.slice(i, i + 25).map((k) => ({ DeleteRequest: { Key: { pk: k.pk, sk: k.sk } } }));
    for (let attempt = 0; pending.length > 0; attempt += 1) {
      if (attempt > 0) await backoff(attempt);
      const out = await dynamo().send(new BatchWriteCommand({ RequestItems: { [tableName]: pending } }));
      pending = (out.UnprocessedItems?.[tableName] ?? []) as Record<string, unknown>[];
      if (attempt > 8 && pending.length > 0) throw new Error('BatchWriteItem kept returning unprocessed items');
    }
  }
}

export interface QuerySpec {
  pk: string;
  /** Only sort keys starting with this. */
  skPrefix?: string;
  /** A global index (`gsi1`, `gsi2`); the base table when absent. */
  index?: string;
  /** Descending sort-key order. */
  descending?: boolean;
  /** Attributes to return (all when absent). */
  attributes?: readonly string[];
}

/** Every item of one partition (optionally one sort-key prefix), following the pages. */
export async function queryAll(spec: QuerySpec): Promise<Item[]> {
  const pkName = spec.index ? `${spec.index}pk` : 'pk';
  const skName = spec.index ? `${spec.index}sk` : 'sk';
  const names: Record<string, string> = { '#pk': pkName };
  const values: Record<string, unknown> = { ':pk': spec.pk };
  let condition = '#pk = :pk';
  if (spec.skPrefix !== undefined) {
    names['#sk'] = skName;
    values[':sk'] = spec.skPrefix;
    condition += ' AND begins_with(#sk, :sk)';
  }
  const input: QueryCommandInput = {
    TableName: table(),
    KeyConditionExpression: condition,
    ExpressionAttributeNames: names,
    ExpressionAttributeValues: values,
    ScanIndexForward: !spec.descending,
    // Global indexes are eventually consistent by nature; the base table is read strongly.
    ...(spec.index ? { IndexName: spec.index } : { ConsistentRead: true }),
  };
  if (spec.attributes) {
    spec.attributes.forEach((a, i) => (names[`#a${i}`] = a));
    input.ProjectionExpression = spec.attributes.map((_, i) => `#a${i}`).join(', ');
  }
  const items: Item[] = [];
  let start: Record<string, unknown> | undefined;
  do {
    const out = await dynamo().send(new QueryCommand({ ...input, ...(start ? { ExclusiveStartKey: start } : {}) }));
    items.push(...(out.Items ?? []));
    start = out.LastEvaluatedKey;
  } while (start);
  return items;
}

// --- transactions ------------------------------------------------------------------------------

type TransactItem = NonNullable<TransactWriteCommandInput['TransactItems']>[number];

/** One action of a transaction, and the error to raise when its condition is what failed. */
export interface Write {
  action: TransactItem;
  onConflict?: () => HttpError;
}

export interface Expression {
  condition?: string;
  names?: Record<string, string>;
  values?: Record<string, unknown>;
}

function withExpression<T extends object>(base: T, e: Expression) {
  return {
    ...base,
    ...(e.condition ? { ConditionExpression: e.condition } : {}),
    ...(e.names && Object.keys(e.names).length > 0 ? { ExpressionAttributeNames: e.names } : {}),
    ...(e.values && Object.keys(e.values).length > 0 ? { ExpressionAttributeValues: e.values } : {}),
  };
}

/**
 * Builders of transaction actions on one table. The directory's are exported below; another
 * store (the auxiliary table) makes its own, and one transaction may mix both.
 */
export function writesOn(tableOf: () => string) {
  return {
    /** Put an item that must not exist yet (a new entity, a uniqueness claim, a new relation). */
    putNew(item: Item, onConflict: () => HttpError): Write {
      return { action: { Put: { TableName: tableOf(), Item: item, ConditionExpression: 'attribute_not_exists(pk)' } }, onConflict };
    },

    put(item: Item, e: Expression = {}, onConflict?: () => HttpError): Write {
      return { action: { Put: withExpression({ TableName: tableOf(), Item: item }, e) }, ...(onConflict ? { onConflict } : {}) };
    },

    remove(key: Key, e: Expression = {}, onConflict?: () => HttpError): Write {
      return { action: { Delete: withExpression({ TableName: tableOf(), Key: key }, e) }, ...(onConflict ? { onConflict } : {}) };
    },

    update(key: Key, updateExpression: string, e: Expression = {}, onConflict?: () => HttpError): Write {
      return {
        action: { Update: withExpression({ TableName: tableOf(), Key: key, UpdateExpression: updateExpression }, e) },
        ...(onConflict ? { onConflict } : {}),
      };
    },

    /** A condition on an item the transaction does not write (e.g. "the study exists"). */
    check(key: Key, condition: string, e: Omit<Expression, 'condition'>, onConflict: () => HttpError): Write {
      return {
        action: { ConditionCheck: withExpression({ TableName: tableOf(), Key: key }, { ...e, condition }) as never },
        onConflict,
      };
    },
  };
}

export const { putNew, put, remove, update, check } = writesOn(table);

/** Condition: the item exists and its `version` is the one read. */
export function atVersion(version: number): Expression {
  return { condition: 'attribute_exists(pk) AND #version = :version', names: { '#version': 'version' }, values: { ':version': version } };
}

export const concurrentChange = () => conflict('The record was changed by another request at the same time; please retry.');

async function backoff(attempt: number): Promise<void> {
  await new Promise((r) => setTimeout(r, Math.min(1000, 20 * 2 ** attempt) * (0.5 + Math.random())));
}

/** Largest number of actions DynamoDB accepts in one transaction. */
export const MAX_TRANSACTION = 100;

/**
 * Runs the writes as one transaction. A failed condition raises the `onConflict` error of the
 * first write whose condition failed (a generic 409 when it has none); transactions that collide
 * with another in-flight transaction are retried.
 */
export async function transact(writes: readonly Write[]): Promise<void> {
  if (writes.length === 0) return;
  if (writes.length > MAX_TRANSACTION) throw new Error(`transaction of ${writes.length} actions exceeds ${MAX_TRANSACTION}`);
  for (let attempt = 0; ; attempt += 1) {
    try {
      await dynamo().send(new TransactWriteCommand({ TransactItems: writes.map((w) => w.action) }));
      return;
    } catch (e) {
      if (!(e instanceof TransactionCanceledException)) throw e;
      const reasons = e.CancellationReasons ?? [];
      const failed = reasons.findIndex((r) => r.Code === 'ConditionalCheckFailed');
      if (failed >= 0) throw (writes[failed]?.onConflict ?? concurrentChange)();
      const collided = reasons.some((r) => r.Code === 'TransactionConflict');
      if (!collided || attempt >= 6) throw e;
      await backoff(attempt);
    }
  }
}

/** Current time as the directory stores it. */
export function now(): string {
  return new Date().toISOString();
}

/** Removes the key and index attributes from an item, leaving the entity's own fields. */
export function withoutKeys(item: Item): Item {
  const { pk: _pk, sk: _sk, gsi1pk: _a, gsi1sk: _b, gsi2pk: _c, gsi2sk: _d, version: _v, ...rest } = item;
  return rest;
}

/** A DynamoDB number set as a sorted array (an absent set is empty). */
export function idList(value: unknown): number[] {
  if (value instanceof Set) return [...(value as Set<number>)].map(Number).sort((a, b) => a - b);
  return [];
}
