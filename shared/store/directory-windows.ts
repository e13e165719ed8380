/**
 * Fixed-window counters on the directory table: one item per window (its key built by
 * `directory-keys.ts`), holding how many slots of the window were taken under the `expiresAt` TTL
 * attribute. A slot is taken by one conditional UpdateItem (`ADD` while the count is under the
 * limit), so racing callers on any number of instances never both take the last slot, and a
 * refused attempt writes nothing. The in-memory twin of these counters is `windowSlots` in
 * `memory.ts`.
 */
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { config } from '../config';
import { dynamo } from './clients';
import type { Key } from './directory-keys';

/**
 * Takes `slots` slots (one by default) of the window at `key` if that many are left under `limit`,
 * counted in its attribute `counted` (what the window counts: `requests`, `registrations`), and
 * keeps the window until `expiresAt` (epoch seconds); answers whether they were taken.
 */
export async function takeWindowSlot(key: Key, counted: string, limit: number, expiresAt: number, slots = 1): Promise<boolean> {
  // The condition lets a window's first slots through whatever the limit: a window that has fewer has none to take.
  if (slots < 1 || slots > limit) return false;
  try {
    await dynamo().send(
      new UpdateCommand({
        TableName: config().directoryTable,
        Key: key,
        UpdateExpression: 'ADD #count :slots SET #expiresAt = :expiresAt',
        ConditionExpression: 'attribute_not_exists(#count) OR #count <= :room',
        ExpressionAttributeNames: { '#count': counted, '#expiresAt': 'expiresAt' },
        ExpressionAttributeValues: { ':slots': slots, ':room': limit - slots, ':expiresAt': expiresAt },
      }),
    );
    return true;
  } catch (e) {
    // By name: a fault a test injects is a plain error, not the SDK's class.
    if ((e as { name?: string }).name === 'ConditionalCheckFailedException') return false;
    throw e;
  }
}
