/**
 * The daily profiles of a period from its readings: one entry per calendar day the period covers on
 * the clock it is written on, each holding that day's readings as points by time of day on their
 * own clocks (the same clock the AGP folds them by, time-of-day.ts). A day without readings is
 * kept, empty, so the report shows the gap.
 */
import { MS_PER_DAY, parseFullDate } from '../../omh/datetime';
import type { CgmReading } from '../digest';
import type { CgmPeriod } from '../metrics';
import { dateAt, localMinuteOfDay } from '../time-of-day';
import type { DailyProfile, DayPoint } from './input';
import { UTC_CLOCK, type Clock } from '../zones';

export function dailyProfilesOf(readings: readonly CgmReading[], period: CgmPeriod, clock: Clock = UTC_CLOCK): DailyProfile[] {
  const first = parseFullDate(dateAt(period.from, clock(period.from))) as number;
  const last = parseFullDate(dateAt(period.to - 1, clock(period.to - 1))) as number;
  const byDate = new Map<string, DayPoint[]>();
  for (let midnight = first; midnight <= last; midnight += MS_PER_DAY) byDate.set(dateAt(midnight, 0), []);
  for (const r of readings) {
    if (r.at < period.from || r.at >= period.to || !Number.isFinite(r.mgdl)) continue;
    // A reading written on another offset than the period's may fall on a date just outside it: left out.
    byDate.get(dateAt(r.at, r.offsetMinutes))?.push([localMinuteOfDay(r.at, r.offsetMinutes), r.mgdl]);
  }
  return [...byDate].map(([date, points]) => ({ date, points }));
}
