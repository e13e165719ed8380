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
    expect(dailyProfilesOf(readings, period, () => OFFSET)).toEqual([
      { date: '2026-03-01', points: [[0, 101], [90, 102]] },
      { date: '2026-03-02', points: [] },
      { date: '2026-03-03', points: [[30, 103]] },
    ]);
  });

  it("reads each end of the period on the clock's offset there (the clocks going back within it)", () => {
    // 2026-10-31 00:00 at -07:00 to 2026-11-02 00:00 at -08:00: the clocks went back on the 1st.
    const from = Date.parse('2026-10-31T07:00:00Z');
    const to = Date.parse('2026-11-02T08:00:00Z');
    const switched = Date.parse('2026-11-01T09:00:00Z');
    const clock = (at: number) => (at < switched ? -420 : -480);
    expect(dailyProfilesOf([], { from, to }, clock).map((d) => d.date)).toEqual(['2026-10-31', '2026-11-01']);
    // On the start's offset alone the last hour would fall on the 2nd.
    expect(dailyProfilesOf([], { from, to }, () => -420).map((d) => d.date)).toEqual(['2026-10-31', '2026-11-01', '2026-11-02']);
  });
});
