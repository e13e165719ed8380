/** Sign-in sessions (consent, connected applications) on the directory table, under the SHA-256 of their id (TTL `expiresAt`). */
import { getItem, putNew, remove, transact } from '../../store/directory-table';
import { keys } from '../../store/directory-keys';
import { fieldsOf, transactUnlessRefused } from './dynamo-items';
import { sessionCollision, type SignInSession, type SignInSessionRecords } from './port';

export const sessions: SignInSessionRecords = {
  insert: (session) => transact([putNew({ ...keys.signInSession(session.sessionHash), ...session }, sessionCollision)]),
  get: async (sessionHash) => {
    const item = await getItem(keys.signInSession(sessionHash));
    return item && fieldsOf<SignInSession>(item);
  },
  take: (sessionHash) => transactUnlessRefused((gone) => [remove(keys.signInSession(sessionHash), { condition: 'attribute_exists(pk)' }, gone)]),
};
