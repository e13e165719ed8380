/**
 * The statistics Observations `$stats` answers for one code over one span, in the shape R5's
 * Observation-stats defines (docs/api.md#statistics-observationstats): `code` the thing measured,
 * one component per statistic whose `code` is the statistic's coding in
 * http://hl7.org/fhir/observation-statistics, `valueQuantity` the statistic in the measured unit.
 *
 * Decisions:
 * - One Observation per member of the code and unit group. R5 answers a panel (blood pressure) with
 *   statistics of each of its measurements: a code of several members answers one Observation per
 *   member, and a member whose values fall in several unit groups (a unit with no UCUM form beside
 *   converted ones, see day-summary.ts) one per group, each group's unit in its values.
 * - The code's principal member (a heart rate's `heart_rate`, a glucose's value) is coded as the
 *   reading is, the omh coding first and the member's standard coding after it, so a client finds
 *   it by either code it may have asked. Any other member (systolic, diastolic, an oxygen flow rate,
 *   a sleep stage) is coded by its own coding only, as the reading's component of it is: the
 *   code's coding beside it would say the member is the whole reading. Its `text` names both.
 * - Nothing found: one Observation per member asked, with a count of 0 (no component when count
 *   was not asked); a code whose schema has no values, one coded as the reading.
 * - A count is dimensionless (display.ts, `countQuantity`).
 */
import type { Code } from '../../directory/model';
import { memberCodingOf, omhMemberSystem, type SchemaQuantities, type StandardCoding } from '../../omh/quantities';
import { codeCoding, readingCode } from '../fhir-observation';
import type { ValueGroup } from './day-summary';
import { countQuantity, displayUnitOf, inDisplayUnit, quantityOf } from './display';
import type { IntervalGroups, StatsTarget } from './period';
import { needsHistogram, scalingOf, sortedValues, STATISTICS, STATISTICS_SYSTEM, statisticOf, type Statistic } from './statistics';

export interface StatisticsOf {
  code: Code;
  quantities: SchemaQuantities | undefined;
  target: StatsTarget;
  /** `Patient/<id>` as asked. */
  subject: string;
  statistics: readonly Statistic[];
}

/**
 * The coding of member `member` in one unit group (undefined: no values, a count of 0): the one
 * place the statistics take a member's coding, so a coding that depends on the unit is chosen here.
 */
function statisticsMemberCoding(quantities: SchemaQuantities, member: number, group: ValueGroup | undefined): StandardCoding {
  // Members are only ever appended: an index past the table is a newer schema's, named by its index.
  if (quantities.members[member] === undefined) return { system: omhMemberSystem(), code: String(member), display: `member ${member}` };
  // The group's unit chooses among a member's codings (a glucose in mg/dL or mmol/L); the day
  // summaries do not keep the specimen, so a glucose's statistics carry the specimen-less codes.
  const coding = memberCodingOf(quantities, member, group?.unit, undefined);
  return { system: coding.system, code: coding.code, display: coding.display };
}

/** The `code` of the statistics Observation of one member (and unit group). */
function memberCode(of: StatisticsOf, quantities: SchemaQuantities, member: number, group: ValueGroup | undefined): Record<string, unknown> {
  const coding = statisticsMemberCoding(quantities, member, group);
  if (member === quantities.principal) return { coding: [codeCoding(of.code), coding] };
  return { coding: [coding], text: `${of.code.display}: ${coding.display}` };
}

const statisticCoding = (s: Statistic) => ({ system: STATISTICS_SYSTEM, code: s, display: STATISTICS[s] });

/** The components of one group: one per statistic it has a value for, in STATISTICS' order (the parser's). */
function componentsOf(group: ValueGroup, quantities: SchemaQuantities, statistics: readonly Statistic[]): Array<Record<string, unknown>> {
  const unit = displayUnitOf(group, quantities.members[group.member]);
  const sorted = statistics.some(needsHistogram) ? sortedValues(group) : undefined;
  return statistics.flatMap((s) => {
    const value = statisticOf(group, s, sorted);
    if (value === undefined) return [];
    const scaling = scalingOf(s);
    return [{ code: { coding: [statisticCoding(s)] }, valueQuantity: quantityOf(inDisplayUnit(value, scaling, unit, group.count), scaling, unit) }];
  });
}

/** The statistics Observations of one code over one span (whole period or interval). */
export function statisticsObservations(of: StatisticsOf, span: IntervalGroups): Array<Record<string, unknown>> {
  const observation = (code: Record<string, unknown>, component: Array<Record<string, unknown>>) => ({
    resourceType: 'Observation',
    status: 'final',
    code,
    subject: { reference: of.subject },
    effectivePeriod: { start: new Date(span.from).toISOString(), end: new Date(span.to).toISOString() },
    ...(component.length > 0 ? { component } : {}),
  });
  const { quantities } = of;
  if (span.groups.length === 0) {
    const zero = of.statistics.includes('count') ? [{ code: { coding: [statisticCoding('count')] }, valueQuantity: countQuantity(0) }] : [];
    const members = quantities ? quantities.members.map((_, i) => i).filter((i) => !of.target.members || of.target.members.has(i)) : [];
    if (!quantities || members.length === 0) return [observation(readingCode(of.code), zero)];
    return members.map((member) => observation(memberCode(of, quantities, member, undefined), zero));
  }
  // Groups come only from a schema's values: a span with groups has quantities.
  return span.groups.map((group) => observation(memberCode(of, quantities!, group.member, group), componentsOf(group, quantities!, of.statistics)));
}
