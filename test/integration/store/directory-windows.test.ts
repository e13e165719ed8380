/**
 * The fixed-window counters of the directory table (test/contract/directory-windows.ts) on DynamoDB
 * Local and on the twin; then what only the twin does, as the table's TTL would: sweeping the
 * windows past their expiry as they grow, live ones kept with their count.
 */
import { describe, expect, it } from 'vitest';
import { config } from '../../../shared/config';
import { takeWindowSlot } from '../../../shared/store/directory-windows';
import { windowSlots } from '../../../shared/store/memory';
import { getItem } from '../../../shared/store/reads';
import { windowCounterContract, type WindowCounter } from '../../contract/directory-windows';

/** A partition of this test's own on the directory table: the counter takes any key. */
const windowKey = (scope: string, windowStart: number) => ({ pk: `WINDOWTEST#${scope}`, sk: String(windowStart) });

const onTable = (): WindowCounter => ({
  take: (scope, windowStart, limit, expiresAt, slots) => takeWindowSlot(windowKey(scope, windowStart), 'taken', limit, expiresAt, slots),
  held: async (scope, windowStart) => {
    const item = await getItem(config().directoryTable, windowKey(scope, windowStart));
    return item && { taken: item.taken as number, expiresAt: item.expiresAt as number };
  },
});

const inMemory = (): WindowCounter => {
  const slots = windowSlots();
  return {
    take: async (...args) => slots.take(...args),
    held: async (scope, windowStart) => slots.rows.get(JSON.stringify([scope, windowStart])),
  };
};

windowCounterContract([
  ['dynamodb', onTable],
  ['memory', inMemory],
]);

describe('the twin of the fixed-window counters', () => {
  it('sweeps the expired windows once it holds many, as the TTL would, keeping live windows and their counts', async () => {
    const nowSeconds = 1_800_000_000;
    const slots = windowSlots(() => nowSeconds * 1000);
    expect(slots.take('live', nowSeconds, 2, nowSeconds + 60)).toBe(true);
    expect(slots.take('live', nowSeconds, 2, nowSeconds + 60)).toBe(true);
    for (let i = 0; i < 10_000; i += 1) expect(slots.take(`gone-${i}`, nowSeconds - 120, 1, nowSeconds - 1)).toBe(true);
    expect(slots.rows.size).toBe(1);
    expect(slots.take('live', nowSeconds, 2, nowSeconds + 60)).toBe(false);
    expect(slots.rows.get(JSON.stringify(['live', nowSeconds]))).toEqual({ taken: 2, expiresAt: nowSeconds + 60 });
  });
});
