/**
 * What `$stats` found, as typed values: per code asked, the whole period (or each interval with
 * values), per member and unit group the statistics asked for, each in the group's display unit
 * (display.ts). The FHIR operation renders it as R5's Parameters (answer.ts, in one place); the
 * assistants' tool renders its own lines and structured content from the same values.
 */
import type { Code } from '../../directory/model';
import type { SchemaQuantities, StandardCoding } from '../../omh/quantities';
import type { StoredObservation } from '../model';
import type { ValueGroup } from './day-summary';
import { displayUnitOf, inDisplayUnit, type DisplayUnit } from './display';
import type { IntervalGroups, Span } from './period';
import { needsHistogram, scalingOf, sortedValues, statisticOf, type Statistic } from './statistics';
import { namedCodings, type StatsTarget } from './targets';

export interface StatisticsResult {
  /** The patient whose readings were read, when the caller may see them (a patient naming another reads none). */
  patientId: number | undefined;
  /** `Patient/<id>` as asked. */
  subject: string;
  /** The statistics asked, in the code system's order. */
  statistics: readonly Statistic[];
  /** One per code the asked codings name. */
  codes: CodeStatistics[];
}

export interface CodeStatistics {
  code: Code;
  quantities: SchemaQuantities | undefined;
  target: StatsTarget;
  /** The whole period (always), or each interval that holds values, in time order. */
  spans: SpanStatistics[];
  /** `include=true`: the period's newest readings of the code, newest first. */
  sources: StoredObservation[];
}

export interface SpanStatistics extends Span {
  /**
   * One per member and value group with values; when nothing was found, one per member asked (per
   * coding asked, for a member asked by codings that follow its values), with a count of 0 when
   * count was asked, or one without a member for a code whose readings hold no values.
   */
  groups: GroupStatistics[];
}

export interface GroupStatistics {
  /** Index into the schema's quantities' members; undefined: the code of a schema without values. */
  member: number | undefined;
  /** The values' group (its unit and specimen choose a member's coding); undefined when nothing was found. */
  group: ValueGroup | undefined;
  /** Nothing found of a member asked by one of its codings that follow the values (`99504-3`): that coding. */
  coding?: StandardCoding;
  /** The unit the values are shown in; undefined when nothing was found (only a count, which has none). */
  unit: DisplayUnit | undefined;
  /** One per statistic asked that the group has a value for, in the order asked. */
  values: Array<{ statistic: Statistic; value: number }>;
}

/** The statistics of one span of a code: each group's, or the zero answer when it has none. */
export function spanStatistics(quantities: SchemaQuantities | undefined, target: StatsTarget, statistics: readonly Statistic[], span: IntervalGroups): SpanStatistics {
  const { from, to } = span;
  if (span.groups.length === 0) {
    const zero = statistics.includes('count') ? [{ statistic: 'count' as const, value: 0 }] : [];
    const members = quantities ? quantities.members.map((_, i) => i).filter((i) => !target.members || target.members.has(i)) : [];
    if (!quantities || members.length === 0) return { from, to, groups: [{ member: undefined, group: undefined, unit: undefined, values: zero }] };
    return {
      from,
      to,
      groups: members.flatMap((member) => {
        const none = { member, group: undefined, unit: undefined, values: zero };
        return namedCodings(target, quantities, member)?.map((coding) => ({ ...none, coding })) ?? [none];
      }),
    };
  }
  // Groups come only from a schema's values: a span with groups has quantities.
  return { from, to, groups: span.groups.map((group) => groupStatistics(group, quantities!, statistics)) };
}

function groupStatistics(group: ValueGroup, quantities: SchemaQuantities, statistics: readonly Statistic[]): GroupStatistics {
  const unit = displayUnitOf(group, quantities.members[group.member]);
  const sorted = statistics.some(needsHistogram) ? sortedValues(group) : undefined;
  const values = statistics.flatMap((statistic) => {
    const value = statisticOf(group, statistic, sorted);
    return value === undefined ? [] : [{ statistic, value: inDisplayUnit(value, scalingOf(statistic), unit, group.count) }];
  });
  return { member: group.member, group, unit, values };
}
