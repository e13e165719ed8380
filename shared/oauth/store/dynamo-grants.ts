/**
 * Grants on the directory table: `GRANT#<id>` (user, client, scope, the live token's hash,
 * `revokedAt`) and one `REFRESH#<sha256>` record per refresh token issued, so a retired token still
 * finds its grant. Both carry `expiresAt` (TTL).
 */
import { getItem, update } from '../../store/directory-table';
import { keys } from '../../store/directory-keys';
import { fieldsOf, newTokenWrite, transactUnlessRefused } from './dynamo-items';
import type { Grant, GrantRecords } from './port';

export const grants: GrantRecords = {
  get: async (grantId) => {
    const item = await getItem(keys.grant(grantId));
    return item && fieldsOf<Grant>(item);
  },
  token: async (tokenHash) => {
    const item = await getItem(keys.refreshToken(tokenHash));
    return item && { grantId: item.grantId as string, issuedAt: item.issuedAt as number, expiresAt: item.expiresAt as number };
  },
  // A grant that is gone is refused by the condition, which is no failure of a revocation.
  revoke: async (grantId, at) =>
    void (await transactUnlessRefused((gone) => [
      update(
        keys.grant(grantId),
        'SET #revokedAt = if_not_exists(#revokedAt, :at)',
        { condition: 'attribute_exists(pk)', names: { '#revokedAt': 'revokedAt' }, values: { ':at': at } },
        gone,
      ),
    ])),
  rotate: (grantId, presentedHash, next) =>
    transactUnlessRefused((replay) => [
      update(
        keys.grant(grantId),
        'SET #current = :next, #expiresAt = :expiresAt',
        {
          condition: '#current = :presented AND attribute_not_exists(#revokedAt)',
          names: { '#current': 'currentHash', '#expiresAt': 'expiresAt', '#revokedAt': 'revokedAt' },
          values: { ':next': next.hash, ':presented': presentedHash, ':expiresAt': next.expiresAt },
        },
        replay,
      ),
      newTokenWrite(next.hash, next),
    ]),
};
