/**
 * All-or-nothing writes (TransactWriteItems) on any table, one transaction possibly spanning
 * several: builders of its actions, the optimistic version condition, and the run that turns the
 * first failed condition into that action's own HttpError.
 */
import { TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import { TransactWriteCommand, type TransactWriteCommandInput } from '@aws-sdk/lib-dynamodb';
import { conflict, type HttpError } from '../http/errors';
import { chunksOf } from '../lists';
import { dynamo } from './clients';
import type { Item, Key } from './reads';
import { backoff, MAX_ATTEMPTS } from './retry';

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

/** Builders of transaction actions on one table; one transaction may mix several tables' actions. */
export function writesOn(tableOf: () => string) {
  const conflictOf = (onConflict?: () => HttpError) => (onConflict ? { onConflict } : {});
  return {
    /** Put an item that must not exist yet (a new entity, a uniqueness claim, a new relation). */
    putNew(item: Item, onConflict: () => HttpError): Write {
      return { action: { Put: { TableName: tableOf(), Item: item, ConditionExpression: 'attribute_not_exists(pk)' } }, onConflict };
    },

    put(item: Item, e: Expression = {}, onConflict?: () => HttpError): Write {
      return { action: { Put: withExpression({ TableName: tableOf(), Item: item }, e) }, ...conflictOf(onConflict) };
    },

    remove(key: Key, e: Expression = {}, onConflict?: () => HttpError): Write {
      return { action: { Delete: withExpression({ TableName: tableOf(), Key: key as Item }, e) }, ...conflictOf(onConflict) };
    },

    update(key: Key, updateExpression: string, e: Expression = {}, onConflict?: () => HttpError): Write {
      return { action: { Update: withExpression({ TableName: tableOf(), Key: key as Item, UpdateExpression: updateExpression }, e) }, ...conflictOf(onConflict) };
    },

    /** A condition on an item the transaction does not write (e.g. "the study exists"). */
    check(key: Key, condition: string, e: Omit<Expression, 'condition'>, onConflict: () => HttpError): Write {
      return { action: { ConditionCheck: withExpression({ TableName: tableOf(), Key: key as Item }, { ...e, condition }) as never }, onConflict };
    },
  };
}

/** Condition: the item exists and its `version` is the one read. */
export function atVersion(version: number): Expression {
  return { condition: 'attribute_exists(pk) AND #version = :version', names: { '#version': 'version' }, values: { ':version': version } };
}

export const concurrentChange = () => conflict('The record was changed by another request at the same time; please retry.');

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
  for (let attempt = 1; ; attempt += 1) {
    try {
      await dynamo().send(new TransactWriteCommand({ TransactItems: writes.map((w) => w.action) }));
      return;
    } catch (e) {
      if (!(e instanceof TransactionCanceledException)) throw e;
      const reasons = e.CancellationReasons ?? [];
      const failed = reasons.findIndex((r) => r.Code === 'ConditionalCheckFailed');
      if (failed >= 0) throw (writes[failed]?.onConflict ?? concurrentChange)();
      const collided = reasons.some((r) => r.Code === 'TransactionConflict');
      if (!collided || attempt >= MAX_ATTEMPTS) throw e;
      await backoff(attempt);
    }
  }
}

/**
 * Runs any number of writes as consecutive transactions of at most MAX_TRANSACTION actions: each
 * is all-or-nothing, the whole is not (for deletions a retry simply finishes).
 */
export async function transactInChunks(writes: readonly Write[]): Promise<void> {
  for (const chunk of chunksOf(writes, MAX_TRANSACTION)) await transact(chunk);
}
