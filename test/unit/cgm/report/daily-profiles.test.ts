/** The daily profiles of a period's readings: every date of the period, each reading at its minute on its own clock. */
import { describe, expect, it } from 'vitest';
import { dailyProfilesOf } from '../../../../shared/cgm/report/daily-profiles';
import { DAY, HOUR, MINUTE } from '../../../support/cgm';
import { FROM, OFFSET } from './fixtures';

describe('the daily profiles of a period', () => {
  const period = { from: FROM, to: FROM + 3 * DAY };

  it('has every date of the period on its clock, each reading at its minute on its own clock', () => {
    const readings = [
      { at: FROM, offsetMinutes: OFFSET, mgdl: 101 },
      { at: FROM + 90 * MINUTE, offsetMinutes: OFFSET, mgdl: 102 },
      // The same instant's day, read on a clock an hour ahead (the clocks went forward).
      { at: FROM + DAY + 23 * HOUR + 30 * MINUTE, offsetMinutes: OFFSET + 60, mgdl: 103 },
      // Outside the period: left out.
      { at: FROM + 3 * DAY, offsetMinutes: OFFSET, mgdl: 104 },
    ];
    expect(dailyProfilesOf(readings, period, OFFSET)).toEqual([
      { date: '2026-03-01', points: [[0, 101], [90, 102]] },
      { date: '2026-03-02', points: [] },
      { date: '2026-03-03', points: [[30, 103]] },
    ]);
  });
});
