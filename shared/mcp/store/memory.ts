/** The in-memory twin of the `/mcp` rate windows: counts by subject and window, swept of expired windows as it grows. */
import { holding } from '../../store/memory';
import type { McpStore, RateWindowStore } from './port';

/** Windows beyond this many are swept of the expired ones (as the table's TTL would). */
const SWEEP_AT = 10_000;

export function memoryRateWindows(now: () => number = () => Date.now()): RateWindowStore {
  const rows = new Map<string, { requests: number; expiresAt: number }>();
  const records: RateWindowStore = {
    take: async (subject, windowStart, limit, expiresAt) => {
      const key = JSON.stringify([subject, windowStart]);
      const row = rows.get(key) ?? { requests: 0, expiresAt };
      if (row.requests >= limit) return false;
      row.requests += 1;
      row.expiresAt = expiresAt;
      rows.set(key, row);
      if (rows.size > SWEEP_AT) for (const [k, r] of rows) if (r.expiresAt * 1000 < now()) rows.delete(k);
      return true;
    },
  };
  return holding(records, { rateWindows: () => rows });
}

export function memoryMcpStore(): McpStore {
  return { rateWindows: memoryRateWindows() };
}
