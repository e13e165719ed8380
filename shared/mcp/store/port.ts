/**
 * What the `/mcp` endpoint keeps: the count of requests each (client, user) made in each fixed
 * window of its rate limit (`../rate-limit.ts`), shared by every instance of the function.
 */
export interface RateWindowStore {
  /**
   * Counts `slots` requests (one by default) of `subject` in the window that starts at
   * `windowStart` (epoch seconds) if that many are left under `limit`, and answers whether it did:
   * racing requests never both take the last ones. The window may be forgotten after `expiresAt`
   * (epoch seconds).
   */
  take(subject: string, windowStart: number, limit: number, expiresAt: number, slots?: number): Promise<boolean>;
}

/** The stores of the `mcp` family. */
export interface McpStore {
  rateWindows: RateWindowStore;
}
