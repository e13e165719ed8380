/** Authorization codes on the directory table, under the SHA-256 of the code (TTL `expiresAt`). */
import { getItem, transact, update } from '../../store/directory-table';
import { keys } from '../../store/directory-keys';
import { fieldsOf, newCodeWrite, newGrantWrites, transactUnlessRefused } from './dynamo-items';
import type { AuthorizationCodeRecords, StoredCode } from './port';

export const codes: AuthorizationCodeRecords = {
  insert: (code) => transact([newCodeWrite(code)]),
  get: async (codeHash) => {
    const item = await getItem(keys.authorizationCode(codeHash));
    return item && fieldsOf<StoredCode>(item);
  },
  // Only the code's own condition means a replay; a collision of the grant stays a 409.
  consume: (codeHash, usedAt, grant) =>
    transactUnlessRefused((used) => [
      update(
        keys.authorizationCode(codeHash),
        'SET #usedAt = :at',
        { condition: 'attribute_exists(pk) AND attribute_not_exists(#usedAt)', names: { '#usedAt': 'usedAt' }, values: { ':at': usedAt } },
        used,
      ),
      ...newGrantWrites(grant),
    ]),
};
