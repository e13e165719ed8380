/**
 * A patient's AGP report over a period (docs/cgm.md#the-report-operation-patientidcgm-report): the summary of
 * `$cgm-summary` (operation.ts, the same question and the same access) drawn as the one-page PDF of
 * shared/cgm/report/, with the daily profiles of the period's last days. The profiles show each
 * reading, so they are the one part read from the readings: the last DAYS_SHOWN days of the period
 * (and one more, for the local days a clock east or west of UTC reaches into), never the whole period.
 */
import type { Caller } from '../../auth/caller';
import { dailyProfilesOf } from '../../cgm/report/daily-profiles';
import { DAYS_SHOWN } from '../../cgm/report/input';
import { getPatient } from '../../directory/patients';
import { MS_PER_DAY } from '../../omh/datetime';
import { allReadings, rowsQuery } from '../stats/keep';
import type { RenderedReport } from './answer';
import { glucoseSummary, type CgmResult } from './operation';
import { sensorReadingsOf } from './readings';
import type { CgmRequest } from './request';

/** The summary and its report, for the caller. */
export async function glucoseReport(caller: Caller, request: CgmRequest, now = Date.now()): Promise<{ result: CgmResult; report: RenderedReport }> {
  const result = await glucoseSummary(caller, request, now);
  const { period } = result.summary;
  const shown = { from: Math.max(period.from, period.to - (DAYS_SHOWN + 1) * MS_PER_DAY), to: period.to };
  const { code } = result;
  const patient = await getPatient(result.patientId);
  const readings = code ? sensorReadingsOf(await allReadings(rowsQuery(result.patientId, code.codeId, shown)), code.schemaCode) : [];
  // pdf-lib and d3 are half a megabyte of the bundle: loaded by the first report a function instance draws.
  const { renderAgpReport } = await import('../../cgm/report/render');
  const patientName = patient ? `${patient.nameGiven} ${patient.nameFamily}`.trim() : `Patient ${result.patientId}`;
  const pdf = await renderAgpReport(
    { summary: result.summary, days: dailyProfilesOf(readings, period, result.clock) },
    { patientName, unit: result.unit, periodClock: result.clock, generatedAt: now },
  );
  return { result, report: { pdf, generatedAt: now } };
}
