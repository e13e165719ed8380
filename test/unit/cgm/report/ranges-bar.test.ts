/** The time-in-ranges bar: each band's height from its share. */
import { describe, expect, it } from 'vitest';
import { bandHeights } from '../../../../shared/cgm/report/ranges-bar';

describe("the time-in-ranges bar's bands", () => {
  it('are their shares of the bar, top first, a band with readings at least a hairline', () => {
    const heights = bandHeights({ veryLow: 0, low: 0.01, target: 89.99, high: 10, veryHigh: 0 }, 100);
    expect(heights.map(([band]) => band)).toEqual(['veryHigh', 'high', 'target', 'low', 'veryLow']);
    const [veryHigh, high, target, low, veryLow] = heights.map(([, h]) => h);
    expect(veryHigh).toBe(0);
    expect(veryLow).toBe(0);
    expect(low).toBeGreaterThanOrEqual(0.99);
    expect(high! / target!).toBeCloseTo(10 / 89.99, 6);
    expect(heights.reduce((sum, [, h]) => sum + h, 0)).toBeCloseTo(100, 9);
  });
});
