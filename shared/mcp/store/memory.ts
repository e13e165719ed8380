/** The in-memory twin of the `/mcp` rate windows: the platform's window counters (`windowSlots`), by subject. */
import { holding, windowSlots } from '../../store/memory';
import type { McpStore, RateWindowStore } from './port';

export function memoryRateWindows(now: () => number = () => Date.now()): RateWindowStore {
  const slots = windowSlots(now);
  const records: RateWindowStore = {
    take: async (subject, windowStart, limit, expiresAt, n) => slots.take(subject, windowStart, limit, expiresAt, n),
  };
  return holding(records, { rateWindows: () => slots.rows });
}

export function memoryMcpStore(): McpStore {
  return { rateWindows: memoryRateWindows() };
}
