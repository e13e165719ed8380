/** When a running job's status says to poll again (shared/export/status.ts): soon for a young job, less often as it runs on. */
import { afterEach, describe, expect, it } from 'vitest';
import { resetConfig } from '../../../shared/config';
import { retryAfterOf } from '../../../shared/export/status';

const STARTED = Date.parse('2026-03-01T10:00:00.000Z');
const job = { createdAt: new Date(STARTED).toISOString() };
const after = (seconds: number) => retryAfterOf(job, STARTED + seconds * 1000);

afterEach(() => {
  delete process.env.EXPORT_RETRY_AFTER_SECONDS;
  resetConfig();
});

describe('Retry-After of a running export', () => {
  it('is a second while the job is young, then half its age, up to the setting (5 s by default)', () => {
    expect([0, 0.5, 2, 3, 5, 7, 9, 60, 3600].map(after)).toEqual([1, 1, 1, 2, 3, 4, 5, 5, 5]);
  });

  it('never exceeds a lower setting, and is never under a second (a clock behind the job)', () => {
    process.env.EXPORT_RETRY_AFTER_SECONDS = '2';
    resetConfig();
    expect([-10, 0, 4, 600].map(after)).toEqual([1, 1, 2, 2]);
  });

  it('a client that waits as told is never refused for polling early (the next interval is at most twice the last)', () => {
    // The status refuses a poll within half the current Retry-After of the one before.
    let at = 0;
    for (let poll = 0; poll < 30; poll++) {
      const told = after(at);
      const next = at + told;
      expect(told).toBeGreaterThanOrEqual(after(next) / 2);
      at = next;
    }
  });
});
