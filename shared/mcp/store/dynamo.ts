/**
 * The `/mcp` rate windows on the directory table (keys in `shared/store/directory-keys.ts`): one
 * conditional UpdateItem a request (`ADD` while the count is under the limit, so racing instances
 * never both take the last request), the item expiring through the table's TTL after its window.
 * The directory table because it already has TTL and on-demand capacity and the function already
 * reads it: a table of its own would add a resource, its alarms and backups for one counter kind.
 */
import { createHash } from 'node:crypto';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { config } from '../../config';
import { dynamo } from '../../store/clients';
import { keys } from '../../store/directory-keys';
import type { McpStore, RateWindowStore } from './port';

/** Who asks, as a fixed-length key part: client ids may be long URLs (client ID metadata documents). */
const hashed = (subject: string) => createHash('sha256').update(subject).digest('base64url');

export const dynamoRateWindows: RateWindowStore = {
  take: async (subject, windowStart, limit, expiresAt) => {
    try {
      await dynamo().send(
        new UpdateCommand({
          TableName: config().directoryTable,
          Key: keys.rateWindow(hashed(subject), windowStart),
          UpdateExpression: 'ADD #requests :one SET #expiresAt = :expiresAt',
          ConditionExpression: 'attribute_not_exists(#requests) OR #requests < :limit',
          ExpressionAttributeNames: { '#requests': 'requests', '#expiresAt': 'expiresAt' },
          ExpressionAttributeValues: { ':one': 1, ':limit': limit, ':expiresAt': expiresAt },
        }),
      );
      return true;
    } catch (e) {
      if ((e as { name?: string }).name === 'ConditionalCheckFailedException') return false;
      throw e;
    }
  },
};

export const dynamoMcpStore: McpStore = { rateWindows: dynamoRateWindows };
