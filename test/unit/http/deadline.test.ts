/**
 * A request's deadline (`shared/http/deadline.ts`): Lambda's remaining time less the early answer
 * and the rendering reserve; work raced against it settles with its value or, once it passes,
 * with nothing (the work goes on); and the local runtime's FUNCTION_TIMEOUT_SECONDS.
 */
import { describe, expect, it } from 'vitest';
import { localFunctionTimeoutMs } from '../../../local/gateway';
import { beforeDeadline, deadlineOf, EARLY_ANSWER_MS, FUNCTION_TIMEOUT_MS, NO_DEADLINE } from '../../../shared/http/deadline';

describe('a request deadline', () => {
  it('is the function time left less the early answer and the time to render the answer', () => {
    const deadline = deadlineOf({ getRemainingTimeInMillis: () => 10_000 });
    expect(deadline.remainingMs()).toBe(10_000 - EARLY_ANSWER_MS - 500);
    expect(deadlineOf(undefined)).toBe(NO_DEADLINE);
    expect(NO_DEADLINE.remainingMs()).toBe(Number.POSITIVE_INFINITY);
  });

  it('races work: its value in time, nothing once the deadline has passed, and the work itself is not stopped', async () => {
    const soon = { remainingMs: () => 50 };
    expect(await beforeDeadline(Promise.resolve(7), soon)).toEqual({ value: 7 });
    let finished = false;
    const slow = new Promise<number>((resolve) =>
      setTimeout(() => {
        finished = true;
        resolve(1);
      }, 150),
    );
    expect(await beforeDeadline(slow, soon)).toBeUndefined();
    expect(finished).toBe(false);
    expect(await slow).toBe(1);
    expect(await beforeDeadline(slow, NO_DEADLINE)).toEqual({ value: 1 });
    await expect(beforeDeadline(Promise.reject(new Error('store refused')), soon)).rejects.toThrow('store refused');
  });

  it('locally follows FUNCTION_TIMEOUT_SECONDS (1 to 900), else the stack limit', () => {
    expect(localFunctionTimeoutMs({})).toBe(FUNCTION_TIMEOUT_MS);
    expect(localFunctionTimeoutMs({ FUNCTION_TIMEOUT_SECONDS: '60' })).toBe(60_000);
    for (const bad of ['0', '901', 'abc', '-5']) expect(() => localFunctionTimeoutMs({ FUNCTION_TIMEOUT_SECONDS: bad })).toThrow(/FUNCTION_TIMEOUT_SECONDS/);
  });
});
