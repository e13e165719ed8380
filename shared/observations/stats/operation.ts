/**
 * `Observation/$stats` (docs/api.md#statistics-observationstats): statistics of a patient's readings of one or
 * more codes over a period, whole or per hour, day or week, from the day summaries and the rows of
 * the period's partial days. The caller's access to the subject is decided exactly as a search of
 * `patient=<subject>` decides it (shared/auth/scope.ts): a patient reaches only themselves (another
 * subject reads as one without readings, as such a search finds nothing), a practitioner their
 * organizations' patients (any other is a 403, as the search's).
 *
 * The answer is typed (result.ts): per code, the whole period (with `interval`, each interval with
 * values) per member and unit group, each statistic in the group's display unit; with
 * `include=true`, the period's latest readings (at most `limit`). The FHIR operation renders it as a
 * Parameters resource (answer.ts), the assistants' tool as its own lines. A request made by a tool
 * is held to the limits the operation's parser checks (`checkStatsLimits`).
 */
import { isPatient, type Caller } from '../../auth/caller';
import { scopesCover } from '../../auth/claims';
import { patientScope, referenceId } from '../../auth/scope';
import { outOfReach } from '../../failures';
import { schemaQuantities } from '../../omh/quantities';
import { codesById } from '../code-table-cache';
import { readReadings } from '../read';
import { checkStatsLimits, type StatsRequest } from './params';
import { intervalsOf, periodGroups, type IntervalGroups } from './period';
import { rowsQuery } from './keep';
import { spanStatistics, type CodeStatistics, type StatisticsResult } from './result';
import { inCodeSystemOrder, needsHistogram } from './statistics';
import { statsTargets } from './targets';

/** The patient the caller may read as `subject`, or undefined (a patient naming another); out of reach as a search's for a practitioner. */
async function subjectPatient(caller: Caller, subject: string): Promise<number | undefined> {
  if (caller.kind === 'practitioner' && caller.system && !scopesCover(caller.system.types, 'Observation')) {
    throw outOfReach("The token's scopes do not cover Observation: ask for system/Observation.rs.");
  }
  const named = referenceId(subject, 'Patient');
  if (isPatient(caller)) return named === caller.patientId ? caller.patientId : undefined;
  const scope = await patientScope(caller, { patient: subject });
  return named !== undefined && scope.patientIds.includes(named) ? named : undefined;
}

/** The statistics of the request's readings (the readings of its period, `../period.ts`), for the caller. */
export async function readingStatistics(caller: Caller, request: StatsRequest): Promise<StatisticsResult> {
  checkStatsLimits(request);
  const targets = await statsTargets(request.codings);
  const patientId = await subjectPatient(caller, request.subject);
  const { period } = request;
  const intervals = intervalsOf(period, request.interval);
  const statistics = inCodeSystemOrder(request.statistics);
  const histograms = statistics.some(needsHistogram);
  const codes = await codesById(targets.map((t) => t.codeId));

  const results: CodeStatistics[] = [];
  for (const target of targets) {
    const code = codes.get(target.codeId)!;
    const quantities = schemaQuantities(target.schemaCode);
    const perInterval: IntervalGroups[] =
      patientId === undefined ? intervals.map((span) => ({ ...span, groups: [] })) : await periodGroups(patientId, target, period, intervals, histograms, request.interval === 'hour');
    // Per interval, an interval without values is left out; the whole period is always answered.
    const spans = perInterval.filter((answer) => !request.interval || answer.groups.length > 0).map((answer) => spanStatistics(quantities, target, statistics, answer));
    const sourcesRead = request.sources !== undefined && patientId !== undefined ? rowsQuery(patientId, target.codeId, period, false) : undefined;
    const sources = sourcesRead ? (await readReadings(sourcesRead, request.sources)).readings : [];
    results.push({ code, quantities, target, spans, sources });
  }
  return { patientId, subject: request.subject, statistics, codes: results };
}
