/**
 * The pace of work sent to a store (`shared/store/pace.ts`): the limit follows the store's answer
 * time (grows while answers keep their pace, shrinks when they slow down, halves on a busy answer),
 * places are given in order of arrival, and nothing starts that could not finish before its
 * deadline; `runPaced` says of each unit whether it was done, not started, or not confirmed.
 */
import { describe, expect, it } from 'vitest';
import { NO_DEADLINE, type Deadline } from '../../../shared/http/deadline';
import { Pace, runPaced } from '../../../shared/store/pace';

const options = { initial: 4, min: 1, max: 64, firstGuessMs: 100, slowMs: 10_000 };
const deadlineIn = (ms: number): Deadline => {
  const until = performance.now() + ms;
  return { remainingMs: () => until - performance.now() };
};
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Runs `rounds` full rounds of the current limit, each unit answering in `ms(round)`. */
async function rounds(pace: Pace, count: number, ms: (round: number) => number, busy = false): Promise<number[]> {
  const limits: number[] = [];
  for (let round = 0; round < count; round++) {
    const n = pace.current;
    for (let i = 0; i < n; i++) expect(await pace.acquire(NO_DEADLINE)).toBe(true);
    for (let i = 0; i < n; i++) pace.release(ms(round), busy ? 'busy' : 'answered');
    limits.push(pace.current);
  }
  return limits;
}

describe('the pace of a store', () => {
  it('lets more units in flight while answers keep their pace, up to its maximum', async () => {
    const pace = new Pace(options);
    const limits = await rounds(pace, 12, () => 50);
    expect(limits.at(-1)).toBeGreaterThan(options.initial * 4);
    expect(limits.every((l, i) => i === 0 || l >= limits[i - 1]!)).toBe(true);
    await rounds(pace, 30, () => 50);
    expect(pace.current).toBe(options.max);
  });

  it('shrinks the limit when answers take more than twice as long as they used to, and keeps the new pace as normal later', async () => {
    const pace = new Pace(options);
    await rounds(pace, 10, () => 50);
    const before = pace.current;
    const slowed = await rounds(pace, 3, () => 500);
    expect(slowed[0]).toBeLessThan(before / 2);
    // The slower pace lasts: over a few hundred answers it becomes the long-run one, and the limit grows again.
    const later = await rounds(pace, 600, () => 500);
    expect(later.at(-1)).toBeGreaterThan(slowed.at(-1)! * 2);
  });

  it('shrinks the limit while answers come slower than its ceiling, even once that pace is the long-run one', async () => {
    const pace = new Pace({ ...options, slowMs: 1000 });
    await rounds(pace, 10, () => 50);
    // A store that slows down steadily: the long-run pace follows it, the ceiling does not.
    let ms = 50;
    await rounds(pace, 60, () => (ms = Math.min(3000, ms * 1.2)));
    const limits = await rounds(pace, 40, () => 3000);
    expect(limits.at(-1)).toBeLessThanOrEqual(3);
    // Back under the ceiling, it grows again.
    const later = await rounds(pace, 30, () => 500);
    expect(later.at(-1)).toBeGreaterThan(limits.at(-1)! * 3);
  });

  it('halves the limit on a busy answer, never below its minimum', async () => {
    const pace = new Pace(options);
    await rounds(pace, 10, () => 50);
    const before = pace.current;
    await rounds(pace, 1, () => 50, true);
    expect(pace.current).toBeLessThan(before * 0.9);
    await rounds(pace, 20, () => 50, true);
    expect(pace.current).toBe(options.min);
  });

  it('gives places in order of arrival, and refuses a place that would come too late for the deadline', async () => {
    const pace = new Pace({ ...options, initial: 1, max: 1 });
    expect(await pace.acquire(NO_DEADLINE)).toBe(true);
    const order: string[] = [];
    const a = pace.acquire(NO_DEADLINE).then((ok) => order.push(`a ${ok}`));
    const b = pace.acquire(NO_DEADLINE).then((ok) => order.push(`b ${ok}`));
    // Needs the place within 200 ms less the 150 ms a unit is expected to take: gives up at 50 ms.
    const late = pace.acquire(deadlineIn(200)).then((ok) => order.push(`late ${ok}`));
    await sleep(120);
    expect(order).toEqual(['late false']);
    pace.release(100, 'answered');
    await a;
    pace.release(100, 'answered');
    await b;
    await late;
    expect(order).toEqual(['late false', 'a true', 'b true']);
    // With less time left than a unit takes, no place is taken at all.
    pace.release(100, 'answered');
    expect(await pace.acquire(deadlineIn(10))).toBe(false);
    expect(await pace.acquire(NO_DEADLINE)).toBe(true);
  });

  it('learns nothing from a unit the store never saw', async () => {
    const pace = new Pace(options);
    await rounds(pace, 5, () => 500);
    const expected = pace.expectedMs();
    expect(await pace.acquire(NO_DEADLINE)).toBe(true);
    pace.release(1, 'unused');
    expect(pace.expectedMs()).toBe(expected);
  });

  it("puts a request's first units ahead of other requests' later ones", async () => {
    const pace = new Pace({ ...options, initial: 1, max: 1 });
    expect(await pace.acquire(NO_DEADLINE)).toBe(true);
    const order: string[] = [];
    const waiting = [
      pace.acquire(NO_DEADLINE, 3).then(() => order.push('a, its 4th')),
      pace.acquire(NO_DEADLINE, 1).then(() => order.push('b, its 2nd')),
      pace.acquire(NO_DEADLINE, 0).then(() => order.push('c, its 1st')),
      pace.acquire(NO_DEADLINE, 1).then(() => order.push('d, its 2nd')),
    ];
    for (let i = 0; i < waiting.length; i++) {
      pace.release(10, 'answered');
      await sleep(5);
    }
    await Promise.all(waiting);
    expect(order).toEqual(['c, its 1st', 'b, its 2nd', 'd, its 2nd', 'a, its 4th']);
  });

  it('runPaced: units done in time, started but unconfirmed at the deadline, and not started after it', async () => {
    const pace = new Pace({ ...options, initial: 2, max: 2, firstGuessMs: 50 });
    const times = [30, 30, 30, 1000, ...Array.from({ length: 30 }, () => 30)];
    const outcomes = await runPaced(times, pace, deadlineIn(400), async (ms) => {
      await sleep(ms);
      return ms;
    });
    const kinds = outcomes.map((o) => o.kind);
    expect(kinds.slice(0, 3)).toEqual(['done', 'done', 'done']);
    expect(kinds[3]).toBe('unconfirmed');
    expect(kinds.at(-1)).toBe('not-started');
    // Once one could not start, none after it did.
    const first = kinds.indexOf('not-started');
    expect(kinds.slice(first).every((k) => k === 'not-started')).toBe(true);
    expect(outcomes.filter((o) => o.kind === 'done').every((o) => o.kind === 'done' && o.value === 30)).toBe(true);
  });

  it('runPaced: a unit that fails unexpectedly fails the run once the started units settle, starts no more, and leaves no rejection unhandled', async () => {
    const unhandled: unknown[] = [];
    const record = (reason: unknown) => void unhandled.push(reason);
    process.on('unhandledRejection', record);
    try {
      const pace = new Pace({ ...options, initial: 1, max: 1, firstGuessMs: 5 });
      const started: number[] = [];
      const run = runPaced([0, 1, 2, 3], pace, NO_DEADLINE, async (i) => {
        started.push(i);
        await sleep(20);
        if (i === 0) throw new Error('the store refused');
        return i;
      });
      await expect(run).rejects.toThrow('the store refused');
      await sleep(50);
      expect(started).toEqual([0]);
      expect(unhandled).toEqual([]);
    } finally {
      process.off('unhandledRejection', record);
    }
  });
});
