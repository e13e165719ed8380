/** The days the report's grid shows: the last 14 by date, checked, their points in time-of-day order. */
import { describe, expect, it } from 'vitest';
import { dailyProfilesOf } from '../../../../shared/cgm/report/daily-profiles';
import { daysToShow } from '../../../../shared/cgm/report/input';
import { DAY } from '../../../support/cgm';
import { FROM, OFFSET, variedTrace } from './fixtures';

describe('the days the grid shows', () => {
  it('shows the last 14 days by date, their points in time-of-day order', () => {
    const days = dailyProfilesOf(variedTrace(20), { from: FROM, to: FROM + 20 * DAY }, () => OFFSET).reverse();
    days[0] = { ...days[0]!, points: [[600, 120], [30, 90]] };
    const { shown, of } = daysToShow(days);
    expect(of).toBe(20);
    expect(shown.map((d) => d.date)).toEqual(Array.from({ length: 14 }, (_, i) => `2026-03-${String(i + 7).padStart(2, '0')}`));
    expect(shown.at(-1)!.points).toEqual([[30, 90], [600, 120]]);
  });
});
