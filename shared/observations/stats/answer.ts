/**
 * THE FHIR rendering of `$stats`' typed result (result.ts): a Parameters resource of statistics
 * Observations, for each code and span in the shape R5's Observation-stats defines
 * (docs/api.md#statistics-observationstats): `code` the thing measured, one component per
 * statistic whose `code` is the statistic's coding in http://hl7.org/fhir/observation-statistics,
 * `valueQuantity` the statistic in the measured unit.
 *
 * Decisions:
 * - One Observation per member of the code and value group. R5 answers a panel (blood pressure) with
 *   statistics of each of its measurements: a code of several members answers one Observation per
 *   member, and a member whose values fall in several groups (a unit with no UCUM form beside
 *   converted ones, a glucose's units and specimens, see day-summary.ts) one per group, each
 *   group's unit in its values and its coding in `code`.
 * - The code's principal member (a heart rate's `heart_rate`, a glucose's value) is coded as the
 *   reading is, the omh coding first and the member's standard coding after it, so a client finds
 *   it by either code it may have asked. Any other member (systolic, diastolic, an oxygen flow rate,
 *   a sleep stage) is coded by its own coding only, as the reading's component of it is: the
 *   code's coding beside it would say the member is the whole reading. Its `text` names both.
 * - Nothing found: one Observation per member asked, with a count of 0 (no component when count
 *   was not asked), coded by the coding asked where that names some of its values (`99504-3`); a
 *   code whose schema has no values, one coded as the reading.
 * - A count is dimensionless (display.ts, `countQuantity`).
 */
import type { Code } from '../../directory/model';
import { memberCodingOf, omhMemberSystem, type SchemaQuantities, type StandardCoding } from '../../omh/quantities';
import { codeCoding, readingCode, toFhirObservation } from '../fhir-observation';
import { quantityOf } from './display';
import type { CodeStatistics, GroupStatistics, SpanStatistics, StatisticsResult } from './result';
import { scalingOf, STATISTICS, STATISTICS_SYSTEM, type Statistic } from './statistics';

/**
 * The coding of member `member` in one value group (none: no values, a count of 0, coded as asked
 * where the asked coding names some of its values): the one place the statistics take a member's
 * coding, so a coding that depends on the unit and specimen is chosen here.
 */
function statisticsMemberCoding(quantities: SchemaQuantities, member: number, { group, coding: asked }: GroupStatistics): StandardCoding {
  // Members are only ever appended: an index past the table is a newer schema's, named by its index.
  if (quantities.members[member] === undefined) return { system: omhMemberSystem(), code: String(member), display: `member ${member}` };
  // The group's unit and specimen choose among a member's codings (a capillary glucose in mmol/L:
  // 14743-9); a group kept before groups kept the specimen has the codes of none.
  const coding = asked ?? memberCodingOf(quantities, member, group?.unit, group?.specimen);
  return { system: coding.system, code: coding.code, display: coding.display };
}

/** The `code` of the statistics Observation of one group: a member's (in its value group), or the code's own for a schema without values. */
function groupCode(code: Code, quantities: SchemaQuantities | undefined, g: GroupStatistics): Record<string, unknown> {
  if (!quantities || g.member === undefined) return readingCode(code);
  const coding = statisticsMemberCoding(quantities, g.member, g);
  if (g.member === quantities.principal) return { coding: [codeCoding(code), coding] };
  return { coding: [coding], text: `${code.display}: ${coding.display}` };
}

const statisticCoding = (s: Statistic) => ({ system: STATISTICS_SYSTEM, code: s, display: STATISTICS[s] });

/** The statistics Observations of one code over one span (the whole period or an interval): one per group. */
function spanObservations(subject: string, of: CodeStatistics, span: SpanStatistics): Array<Record<string, unknown>> {
  return span.groups.map((g) => {
    const component = g.values.map(({ statistic, value }) => ({ code: { coding: [statisticCoding(statistic)] }, valueQuantity: quantityOf(value, scalingOf(statistic), g.unit) }));
    return {
      resourceType: 'Observation',
      status: 'final',
      code: groupCode(of.code, of.quantities, g),
      subject: { reference: subject },
      effectivePeriod: { start: new Date(span.from).toISOString(), end: new Date(span.to).toISOString() },
      ...(component.length > 0 ? { component } : {}),
    };
  });
}

/** The Parameters `$stats` answers: per code, its spans' statistics Observations, then its `source` readings. */
export function statsParameters(result: StatisticsResult): Record<string, unknown> {
  const parameter = result.codes.flatMap((of) => [
    ...of.spans.flatMap((span) => spanObservations(result.subject, of, span).map((resource) => ({ name: 'statistics', resource }))),
    ...of.sources.map((row) => ({ name: 'source', resource: toFhirObservation(row, of.code) })),
  ]);
  return { resourceType: 'Parameters', parameter };
}
