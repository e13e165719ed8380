/**
 * A put only where the key is free (`attribute_not_exists`): what copies an item into a table the
 * service is already writing, never overwriting what it wrote. Throttling is retried with backoff.
 */
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import { dynamo } from './clients';
import { retryWhileBusy } from './retry';
import type { Item } from './reads';

/** Written, or the item the key already holds. */
export type PutIfAbsent = { written: true } | { written: false; held: Item };

export async function putIfAbsent(table: string, item: Item): Promise<PutIfAbsent> {
  try {
    await retryWhileBusy(() => dynamo().send(new PutCommand({ TableName: table, Item: item, ConditionExpression: 'attribute_not_exists(pk)', ReturnValuesOnConditionCheckFailure: 'ALL_OLD' })));
    return { written: true };
  } catch (e) {
    if (e instanceof ConditionalCheckFailedException) return { written: false, held: e.Item ? unmarshall(e.Item) : {} };
    throw e;
  }
}
