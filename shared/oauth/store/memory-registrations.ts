/** The in-memory twin of the client registrations counted per scope and window: the platform's window counters (`windowSlots`). */
import { holding, windowSlots } from '../../store/memory';
import type { RegistrationCountRecords } from './port';

export function memoryRegistrations(): RegistrationCountRecords {
  const slots = windowSlots();
  const records: RegistrationCountRecords = {
    take: async (scope, windowStart, limit, expiresAt) => slots.take(scope, windowStart, limit, expiresAt),
  };
  return holding(records, { registrations: () => slots.rows });
}
