/** Failed sign-ins on the directory table, one item per address hash (TTL `expiresAt`). */
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { config } from '../../config';
import { getItem, put, remove, transact } from '../../store/directory-table';
import { keys } from '../../store/directory-keys';
import { dynamo } from '../../store/clients';
import { fieldsOf } from './dynamo-items';
import type { SignInAttemptRecords, SignInAttempts } from './port';

export const signIns: SignInAttemptRecords = {
  get: async (emailHash) => {
    const item = await getItem(keys.loginThrottle(emailHash));
    return item && fieldsOf<SignInAttempts>(item);
  },
  set: (emailHash, attempts) => transact([put({ ...keys.loginThrottle(emailHash), ...attempts })]),
  // One UpdateItem adds and answers the sum, so failures racing each other all count.
  addFailure: async (emailHash, expiresAt) => {
    const out = await dynamo().send(
      new UpdateCommand({
        TableName: config().directoryTable,
        Key: keys.loginThrottle(emailHash),
        UpdateExpression: 'ADD #failures :one SET #expiresAt = :expiresAt',
        ExpressionAttributeNames: { '#failures': 'failures', '#expiresAt': 'expiresAt' },
        ExpressionAttributeValues: { ':one': 1, ':expiresAt': expiresAt },
        ReturnValues: 'ALL_NEW',
      }),
    );
    return (out.Attributes?.failures as number) ?? 0;
  },
  clear: (emailHash) => transact([remove(keys.loginThrottle(emailHash))]),
};
