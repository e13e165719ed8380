/**
 * `Observation/$stats` (docs/api.md#statistics-observationstats): statistics of a patient's readings of one or
 * more codes over a period, whole or per hour, day or week, from the day summaries and the rows of
 * the period's partial days. The caller's access to the subject is decided exactly as a search of
 * `patient=<subject>` decides it (shared/auth/scope.ts): a patient reaches only themselves (another
 * subject reads as one without readings, as such a search finds nothing), a practitioner their
 * organizations' patients (any other is a 403, as the search's).
 *
 * The answer is a Parameters resource: one `statistics` Observation per code (per code and interval
 * with `interval`), with one component per (member, unit group, statistic) whose code is the
 * member's coding and whose statistic is named by the `observation-statistic` extension; with
 * `include=true`, the period's latest readings (at most `limit`) as `source` parameters.
 */
import { isPatient, type Caller } from '../../auth/caller';
import { scopesCover } from '../../auth/claims';
import { patientScope, referenceId } from '../../auth/scope';
import { config } from '../../config';
import { forbidden } from '../../http/errors';
import { schemaQuantities, UCUM_SYSTEM, type SchemaQuantities } from '../../omh/quantities';
import { codesById } from '../code-table-cache';
import { toFhirObservation } from '../fhir-observation';
import { observationStore } from '../store/current';
import type { ValueGroup } from './day-summary';
import { displayUnitOf, inDisplayUnit, quantityOf } from './display';
import type { StatsRequest } from './params';
import { intervalsOf, periodGroups, type IntervalGroups, type Span, type StatsTarget } from './period';
import { needsHistogram, scalingOf, sortedValues, STATISTICS, STATISTICS_SYSTEM, statisticOf, type Statistic } from './statistics';
import { statsTargets } from './targets';

/** The extension naming a component's statistic (R5 defines the codes, not where a per-member statistic goes). */
export const statisticExtensionUrl = (): string => `${config().namespace}/StructureDefinition/observation-statistic`;

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
    const quantities = schemaQuantities(target.schemaCode);
    const perInterval: IntervalGroups[] =
      patientId === undefined ? intervals.map((span) => ({ ...span, groups: [] })) : await periodGroups(patientId, target, period, intervals, histograms, request.interval === 'hour');
    for (const answer of perInterval) {
      // Per interval, an interval without values is left out; the whole period is always answered.
      if (request.interval && answer.groups.length === 0) continue;
      const observation = {
        resourceType: 'Observation',
        status: 'final',
        code: { coding: [{ system: code.system, code: code.code, display: code.display }, ...(quantities?.coding ? [{ ...quantities.coding }] : [])] },
        subject: { reference: request.subject },
        effectivePeriod: { start: new Date(answer.from).toISOString(), end: new Date(answer.to).toISOString() },
        component: componentsOf(answer.groups, request.statistics, quantities, target),
      };
      parameter.push({ name: 'statistics', resource: observation });
    }
    if (request.sources !== undefined && patientId !== undefined) {
      const page = await observationStore().readings({ patientId, order: 'effective', codeId: target.codeId, ascending: false, time: { from: period.from, to: period.to - 1 } }, request.sources);
      for (const row of page.readings) parameter.push({ name: 'source', resource: toFhirObservation(row, code) });
    }
  }
  return { patientId, parameters: { resourceType: 'Parameters', parameter } };
}

/** The components of one statistics Observation: per group (member and unit), per statistic; a count of 0 per member when nothing was found. */
function componentsOf(groups: readonly ValueGroup[], statistics: readonly Statistic[], quantities: SchemaQuantities | undefined, target: StatsTarget): Array<Record<string, unknown>> {
  const members = quantities?.members ?? [];
  if (groups.length === 0) {
    if (!statistics.includes('count')) return [];
    return members.flatMap((member, index) => (target.members && !target.members.has(index) ? [] : [component(member.coding, 'count', { value: 0, unit: '1', system: UCUM_SYSTEM, code: '1' })]));
  }
  return groups.flatMap((group) => {
    const member = members[group.member];
    const unit = displayUnitOf(group, member);
    const sorted = statistics.some(needsHistogram) ? sortedValues(group) : undefined;
    return statistics.flatMap((s) => {
      const value = statisticOf(group, s, sorted);
      if (value === undefined) return [];
      const scaling = scalingOf(s);
      const coding = member?.coding ?? { system: '', code: String(group.member), display: String(group.member) };
      return [component(coding, s, quantityOf(inDisplayUnit(value, scaling, unit, group.count), scaling, unit))];
    });
  });
}

function component(coding: { system: string; code: string; display: string }, s: Statistic, valueQuantity: Record<string, unknown>): Record<string, unknown> {
  return {
    extension: [{ url: statisticExtensionUrl(), valueCoding: { system: STATISTICS_SYSTEM, code: s, display: STATISTICS[s] } }],
    code: { coding: [{ system: coding.system, code: coding.code, display: coding.display }], text: `${coding.display}: ${STATISTICS[s]}` },
    valueQuantity,
  };
}
