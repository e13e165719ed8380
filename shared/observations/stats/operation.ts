/**
 * `Observation/$stats` (docs/api.md#statistics-observationstats): statistics of a patient's readings of one or
 * more codes over a period, whole or per hour, day or week, from the day summaries and the rows of
 * the period's partial days. The caller's access to the subject is decided exactly as a search of
 * `patient=<subject>` decides it (shared/auth/scope.ts): a patient reaches only themselves (another
 * subject reads as one without readings, as such a search finds nothing), a practitioner their
 * organizations' patients (any other is a 403, as the search's).
 *
 * The answer is a Parameters resource: `statistics` Observations in R5's shape (answer.ts), per code
 * (per code and interval with `interval`) one per member and unit group, each statistic a
 * component coded by the statistic; with `include=true`, the period's latest readings (at most
 * `limit`) as `source` parameters.
 */
import { isPatient, type Caller } from '../../auth/caller';
import { scopesCover } from '../../auth/claims';
import { patientScope, referenceId } from '../../auth/scope';
import { forbidden } from '../../http/errors';
import { schemaQuantities } from '../../omh/quantities';
import { codesById } from '../code-table-cache';
import { toFhirObservation } from '../fhir-observation';
import { observationStore } from '../store/current';
import { statisticsObservations } from './answer';
import type { StatsRequest } from './params';
import { intervalsOf, periodGroups, type IntervalGroups, type Span } from './period';
import { needsHistogram } from './statistics';
import { statsTargets } from './targets';

export interface StatsAnswer {
  /** The patient whose readings were read, when the caller may see them. */
  patientId: number | undefined;
  parameters: Record<string, unknown>;
}

/** The patient the caller may read as `subject`, or undefined (a patient naming another); 403 as a search's for a practitioner. */
async function subjectPatient(caller: Caller, subject: string): Promise<number | undefined> {
  if (caller.kind === 'practitioner' && caller.system && !scopesCover(caller.system.types, 'Observation')) {
    throw forbidden("The token's scopes do not cover Observation: ask for system/Observation.rs.");
  }
  const named = referenceId(subject, 'Patient');
  if (isPatient(caller)) return named === caller.patientId ? caller.patientId : undefined;
  const scope = await patientScope(caller, { patient: subject });
  return named !== undefined && scope.patientIds.includes(named) ? named : undefined;
}

export async function observationStats(caller: Caller, request: StatsRequest): Promise<StatsAnswer> {
  const targets = await statsTargets(request.codings);
  const patientId = await subjectPatient(caller, request.subject);
  const period: Span = { from: request.period.lo, to: request.period.hi };
  const intervals = intervalsOf(period, request.interval);
  const histograms = request.statistics.some(needsHistogram);
  const codes = await codesById(targets.map((t) => t.codeId));

  const parameter: Array<Record<string, unknown>> = [];
  for (const target of targets) {
    const code = codes.get(target.codeId)!;
    const of = { code, quantities: schemaQuantities(target.schemaCode), target, subject: request.subject, statistics: request.statistics };
    const perInterval: IntervalGroups[] =
      patientId === undefined ? intervals.map((span) => ({ ...span, groups: [] })) : await periodGroups(patientId, target, period, intervals, histograms, request.interval === 'hour');
    for (const answer of perInterval) {
      // Per interval, an interval without values is left out; the whole period is always answered.
      if (request.interval && answer.groups.length === 0) continue;
      for (const resource of statisticsObservations(of, answer)) parameter.push({ name: 'statistics', resource });
    }
    if (request.sources !== undefined && patientId !== undefined) {
      const page = await observationStore().readings({ patientId, order: 'effective', codeId: target.codeId, ascending: false, time: { from: period.from, to: period.to - 1 } }, request.sources);
      for (const row of page.readings) parameter.push({ name: 'source', resource: toFhirObservation(row, code) });
    }
  }
  return { patientId, parameters: { resourceType: 'Parameters', parameter } };
}
