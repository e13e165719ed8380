/**
 * The `/mcp` rate windows on the directory table: each a fixed-window counter of the platform
 * (`shared/store/directory-windows.ts`: a conditional UpdateItem a request, the item expiring
 * through the table's TTL), keyed by `keys.rateWindow`, whose prefix is the only key the stack lets
 * the `mcp` function write. The directory table because it already has TTL and on-demand capacity
 * and the function already reads it: a table of its own would add a resource, its alarms and
 * backups for one counter kind.
 */
import { createHash } from 'node:crypto';
import { keys } from '../../store/directory-keys';
import { takeWindowSlot } from '../../store/directory-windows';
import type { McpStore, RateWindowStore } from './port';

/** Who asks, as a fixed-length key part: client ids may be long URLs (client ID metadata documents). */
const hashed = (subject: string) => createHash('sha256').update(subject).digest('base64url');

export const dynamoRateWindows: RateWindowStore = {
  take: (subject, windowStart, limit, expiresAt, slots) => takeWindowSlot(keys.rateWindow(hashed(subject), windowStart), 'requests', limit, expiresAt, slots),
};

export const dynamoMcpStore: McpStore = { rateWindows: dynamoRateWindows };
