/** Client assertions' `jti`s on the directory table, one item per client and `jti` hash (TTL `expiresAt`). */
import { put } from '../../store/directory-table';
import { keys } from '../../store/directory-keys';
import { transactUnlessRefused } from './dynamo-items';
import type { ClientAssertionRecords } from './port';

export const clientAssertions: ClientAssertionRecords = {
  // The condition admits an expired record DynamoDB has not removed yet: TTL deletes late.
  use: (clientId, jtiHash, expiresAt, now) =>
    transactUnlessRefused((replay) => [
      put(
        { ...keys.clientAssertion(clientId, jtiHash), expiresAt },
        { condition: 'attribute_not_exists(pk) OR #expiresAt <= :now', names: { '#expiresAt': 'expiresAt' }, values: { ':now': now } },
        replay,
      ),
    ]),
};
