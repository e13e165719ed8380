/** The in-memory twin of what the OAuth store counts per scope and window (registrations, password page attempts): the platform's window counters (`windowSlots`). */
import { holding, windowSlots } from '../../store/memory';
import type { WindowCountRecords } from './port';

export function memoryWindowCounts(name: string): WindowCountRecords {
  const slots = windowSlots();
  const records: WindowCountRecords = {
    take: async (scope, windowStart, limit, expiresAt) => slots.take(scope, windowStart, limit, expiresAt),
  };
  return holding(records, { [name]: () => slots.rows });
}
