/** Sensor traces and the reports drawn from them, for the report's tests. */
import { summariseReadings, type CgmSummary } from '../../../../shared/cgm/metrics';
import { dailyProfilesOf } from '../../../../shared/cgm/report/daily-profiles';
import type { AgpReportOptions } from '../../../../shared/cgm/report/input';
import { renderAgpReport } from '../../../../shared/cgm/report/render';
import type { CgmReading } from '../../../../shared/cgm/digest';
import { DAY, HOUR, trace } from '../../../support/cgm';

/** 2026-03-01 00:00 at -08:00. */
export const FROM = Date.parse('2026-03-01T08:00:00Z');
export const OFFSET = -480;
export const GENERATED_AT = Date.parse('2026-03-15T09:30:00Z');

/** A day's swing from about 60 to 260 mg/dL, highest in the morning, with noise and a night the sensor was off. */
export const variedTrace = (days: number): CgmReading[] =>
  trace({
    start: FROM,
    everyMinutes: 5,
    days,
    value: (i, at) => Math.round(150 + 90 * Math.sin((2 * Math.PI * ((at - FROM) % DAY)) / DAY) + ((i * 37) % 41) - 20),
    offset: () => OFFSET,
    missing: (at) => at >= FROM + 20 * HOUR && at < FROM + 26 * HOUR,
  });

/** Every reading between 90 and 160 mg/dL. */
export const inRangeTrace = (days: number): CgmReading[] =>
  trace({ start: FROM, everyMinutes: 5, days, value: (i) => 90 + ((i * 7) % 71), offset: () => OFFSET });

export interface Rendered {
  summary: CgmSummary;
  pdf: Uint8Array;
}

export async function reportOf(readings: readonly CgmReading[], days: number, options: Partial<AgpReportOptions> = {}): Promise<Rendered> {
  const period = { from: FROM, to: FROM + days * DAY };
  const summary = summariseReadings(readings, { period });
  const pdf = await renderAgpReport(
    { summary, days: dailyProfilesOf(readings, period, () => OFFSET) },
    { patientName: 'Ana Souza', periodClock: () => OFFSET, generatedAt: GENERATED_AT, ...options },
  );
  return { summary, pdf };
}
