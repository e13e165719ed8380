/** The in-memory twin of client assertions' `jti`s, per client and `jti` hash. */
import { holding } from '../../store/memory';
import type { ClientAssertionRecords } from './port';

export function memoryClientAssertions(): ClientAssertionRecords {
  /** `<client id> <jti hash>` -> when the record may be forgotten (epoch seconds). */
  const rows = new Map<string, { expiresAt: number }>();
  const records: ClientAssertionRecords = {
    use: async (clientId, jtiHash, expiresAt, now) => {
      const key = `${clientId} ${jtiHash}`;
      const held = rows.get(key);
      if (held && held.expiresAt > now) return false;
      rows.set(key, { expiresAt });
      return true;
    },
  };
  return holding(records, { clientAssertions: () => rows });
}
