/** The in-memory twin of the client registrations counted per scope and window. */
import { holding } from '../../store/memory';
import type { RegistrationCountRecords } from './port';

export function memoryRegistrations(): RegistrationCountRecords {
  /** `<scope> <window start>` -> the count. */
  const rows = new Map<string, { registrations: number; expiresAt: number }>();
  const records: RegistrationCountRecords = {
    add: async (scope, windowStart, expiresAt) => {
      const key = `${scope} ${windowStart}`;
      const row = rows.get(key) ?? { registrations: 0, expiresAt };
      row.registrations += 1;
      row.expiresAt = expiresAt;
      rows.set(key, row);
      return row.registrations;
    },
  };
  return holding(records, { registrations: () => rows });
}
