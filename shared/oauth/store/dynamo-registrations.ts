/** Client registrations counted on the directory table, one item per scope and window (TTL `expiresAt`). */
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { config } from '../../config';
import { keys } from '../../store/directory-keys';
import { dynamo } from '../../store/clients';
import type { RegistrationCountRecords } from './port';

export const registrations: RegistrationCountRecords = {
  // One UpdateItem adds and answers the sum, so registrations racing each other all count.
  add: async (scope, windowStart, expiresAt) => {
    const out = await dynamo().send(
      new UpdateCommand({
        TableName: config().directoryTable,
        Key: keys.registrations(scope, windowStart),
        UpdateExpression: 'ADD #count :one SET #expiresAt = :expiresAt',
        ExpressionAttributeNames: { '#count': 'registrations', '#expiresAt': 'expiresAt' },
        ExpressionAttributeValues: { ':one': 1, ':expiresAt': expiresAt },
        ReturnValues: 'UPDATED_NEW',
      }),
    );
    return (out.Attributes?.registrations as number) ?? 0;
  },
};
