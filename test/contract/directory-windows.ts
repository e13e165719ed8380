/**
 * THE contract of the directory table's fixed-window counters (`takeWindowSlot` in
 * shared/store/directory-windows.ts, and its twin `windowSlots` in shared/store/memory.ts), which
 * the client registrations and the `/mcp` rate windows both count with: a slot is taken only while
 * the window holds fewer than the limit, racing takes never exceed it, a refused take changes
 * nothing, and each window (scope, start) counts alone until its `expiresAt`. A run file (under
 * test/integration/store, where DynamoDB Local is set up) calls `windowCounterContract` with both.
 *
 * Each test counts in scopes of its own (random), since the table is shared by the file's tests.
 */
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';

/** A window's slots as kept: how many are taken and until when. */
export interface WindowHeld {
  taken: number;
  expiresAt: number;
}

/** The counter under test, in the terms both implementations share, and a look at what it keeps. */
export interface WindowCounter {
  take(scope: string, windowStart: number, limit: number, expiresAt: number, slots?: number): Promise<boolean>;
  held(scope: string, windowStart: number): Promise<WindowHeld | undefined>;
}

export type WindowCounterAdapter = [name: string, make: () => WindowCounter];

const START = 1_800_000_000;
const scope = () => `scope-${randomBytes(8).toString('hex')}`;

export function windowCounterContract(adapters: WindowCounterAdapter[]): void {
  describe.each(adapters)('the fixed-window counter on %s', (_name, make) => {
    it('takes slots while the window holds fewer than the limit; the limit reached answers false and changes nothing', async () => {
      const counter = make();
      const who = scope();
      for (let i = 0; i < 3; i += 1) expect(await counter.take(who, START, 3, START + 120)).toBe(true);
      expect(await counter.held(who, START)).toEqual({ taken: 3, expiresAt: START + 120 });
      // Refused: not counted, and the window's expiry is not moved either.
      expect(await counter.take(who, START, 3, START + 999)).toBe(false);
      expect(await counter.take(who, START, 3, START + 999)).toBe(false);
      expect(await counter.held(who, START)).toEqual({ taken: 3, expiresAt: START + 120 });
      // A higher limit (a setting raised) finds the slots already taken.
      expect(await counter.take(who, START, 4, START + 120)).toBe(true);
      expect(await counter.take(who, START, 4, START + 120)).toBe(false);
      expect(await counter.held(who, START)).toEqual({ taken: 4, expiresAt: START + 120 });
    });

    it('takes several slots at once only when they all fit: then one by one to the limit', async () => {
      const counter = make();
      const who = scope();
      expect(await counter.take(who, START, 10, START + 120, 6)).toBe(true);
      expect(await counter.take(who, START, 10, START + 120, 6)).toBe(false);
      expect(await counter.held(who, START)).toEqual({ taken: 6, expiresAt: START + 120 });
      expect(await counter.take(who, START, 10, START + 120, 4)).toBe(true);
      expect(await counter.take(who, START, 10, START + 120)).toBe(false);
      expect(await counter.held(who, START)).toEqual({ taken: 10, expiresAt: START + 120 });
      // More than the limit, or none, is never taken.
      expect(await counter.take(scope(), START, 3, START + 120, 4)).toBe(false);
      expect(await counter.take(scope(), START, 3, START + 120, 0)).toBe(false);
    });

    it('never lets racing takes exceed the limit: exactly the limit taken, every other refused', async () => {
      const counter = make();
      const who = scope();
      const answers = await Promise.all(Array.from({ length: 12 }, () => counter.take(who, START, 5, START + 120)));
      expect(answers.filter((taken) => taken)).toHaveLength(5);
      expect(answers.filter((taken) => !taken)).toHaveLength(7);
      expect(await counter.held(who, START)).toEqual({ taken: 5, expiresAt: START + 120 });
    });

    it('counts each scope and window alone: the next window starts empty once the full one has expired', async () => {
      const counter = make();
      const [who, other] = [scope(), scope()];
      expect(await counter.take(who, START, 1, START + 120)).toBe(true);
      expect(await counter.take(who, START, 1, START + 120)).toBe(false);
      expect(await counter.take(other, START, 1, START + 120)).toBe(true);
      // The window that follows, past the first one's expiry: its own slots, its own expiry.
      expect(await counter.take(who, START + 60, 1, START + 180)).toBe(true);
      expect(await counter.take(who, START + 60, 1, START + 180)).toBe(false);
      expect(await counter.held(who, START + 60)).toEqual({ taken: 1, expiresAt: START + 180 });
      expect(await counter.held(who, START)).toEqual({ taken: 1, expiresAt: START + 120 });
      expect(await counter.held(scope(), START)).toBeUndefined();
    });

    it('takes nothing at a limit of 0, and keeps no window for it', async () => {
      const counter = make();
      const who = scope();
      expect(await counter.take(who, START, 0, START + 120)).toBe(false);
      expect(await counter.held(who, START)).toBeUndefined();
    });
  });
}
