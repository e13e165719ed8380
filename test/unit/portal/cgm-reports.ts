/**
 * `$cgm-report` Bundles as the service answers them (shared/observations/cgm/answer.ts), drawn from
 * sensor traces, for the unit tests of the glucose page's pure functions.
 */
import type { CgmReading } from '../../../shared/cgm/digest';
import { summariseReadings } from '../../../shared/cgm/metrics';
import { dailyProfilesOf } from '../../../shared/cgm/report/daily-profiles';
import { renderAgpReport } from '../../../shared/cgm/report/render';
import type { GlucoseUnit } from '../../../shared/cgm/units';
import { fixedClock } from '../../../shared/cgm/zones';
import { cgmBundle } from '../../../shared/observations/cgm/answer';
import { FROM, GENERATED_AT, OFFSET } from '../cgm/report/fixtures';

export { FROM, GENERATED_AT, inRangeTrace, variedTrace } from '../cgm/report/fixtures';

const DAY = 86_400_000;

/** The report Bundle of `days` days from FROM (at -08:00) of the readings, for service patient 7, in `unit`. */
export async function reportBundle(readings: readonly CgmReading[], days = 14, unit: GlucoseUnit = 'mg/dL'): Promise<Record<string, any>> {
  const period = { from: FROM, to: FROM + days * DAY };
  const summary = summariseReadings(readings, { period });
  const clock = fixedClock(OFFSET);
  const pdf = await renderAgpReport({ summary, days: dailyProfilesOf(readings, period, clock) }, { patientName: 'Ana Souza', unit, periodClock: clock, generatedAt: GENERATED_AT });
  return cgmBundle({ patientId: 7, summary, unit, clock, sources: { daysFromDigests: days, hoursFromDigests: 0, readingsRead: 0 } }, GENERATED_AT, { pdf, generatedAt: GENERATED_AT });
}
