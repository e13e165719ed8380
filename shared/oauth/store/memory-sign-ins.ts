/** The in-memory twin of failed sign-ins, per address hash. */
import { copy, holding, readCopy } from '../../store/memory';
import type { SignInAttemptRecords, SignInAttempts } from './port';

export function memorySignIns(): SignInAttemptRecords {
  const rows = new Map<string, SignInAttempts>();
  const records: SignInAttemptRecords = {
    get: readCopy(rows),
    set: async (emailHash, attempts) => void rows.set(emailHash, copy(attempts)),
    addFailure: async (emailHash, expiresAt) => {
      const row = rows.get(emailHash) ?? { failures: 0, expiresAt };
      row.failures += 1;
      row.expiresAt = expiresAt;
      rows.set(emailHash, row);
      return row.failures;
    },
    clear: async (emailHash) => void rows.delete(emailHash),
  };
  return holding(records, { signIns: () => rows });
}
