/** Keeping lifted values on a row stored before values were lifted (the values migration). */
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { dynamo } from '../../store/clients';
import { retryWhileBusy } from '../../store/retry';
import type { KeptValue, ReadingKey } from '../model';
import { encodeValues } from './dynamo-items';
import { observationKeys } from './dynamo-keys';
import { table } from './dynamo-table';

/** Sets the row's values where it has none; false when it has some already or the row is gone. */
export async function keepValues(reading: ReadingKey, values: readonly KeptValue[]): Promise<boolean> {
  try {
    await retryWhileBusy(() =>
      dynamo().send(
        new UpdateCommand({
          TableName: table(),
          Key: observationKeys.observation(reading.patientId, reading.uuid),
          UpdateExpression: 'SET q = :q',
          // Never a row that is not there (a purge in between), never values already kept.
          ConditionExpression: 'attribute_exists(sk) AND attribute_not_exists(q)',
          ExpressionAttributeValues: { ':q': encodeValues(values) },
        }),
      ),
    );
    return true;
  } catch (e) {
    if (e instanceof ConditionalCheckFailedException) return false;
    throw e;
  }
}
