/**
 * Every code of the table of quantities measures what its values are: the LOINC property of each
 * coding (loinc-properties.ts) agrees with the UCUM dimension, computed by the UCUM library, of
 * every unit its member allows, for every specimen the member's codings follow; an observation
 * coding with no value to measure (a panel, an activity's kind, SNOMED CT's "Sleep, function") is
 * no quantity. A mass-concentration code given a molar unit (2339-0 for mmol/L) fails.
 */
import { describe, expect, it } from 'vitest';
import { memberCodingOf, memberCodings, observationCodingOf, omhMemberSystem, SCHEMA_QUANTITIES, ucumOf, type SchemaQuantities, type StandardCoding } from '../../../../shared/omh/quantities';
import { dimensionUnitsOf, LOINC_FACTS } from '../../../../shared/omh/quantities/loinc-properties';
import { canonicalFromLibrary } from '../../../../shared/omh/quantities/ucum-library';

const LOINC = 'http://loinc.org';
const SNOMED = 'http://snomed.info/sct';

/** The UCUM library's dimension (canonical unit) of an OMH unit label. */
function dimensionOfUnit(unit: string): string | undefined {
  const ucum = ucumOf(unit);
  return ucum === undefined ? undefined : canonicalFromLibrary(ucum)?.canonical;
}

/** The dimensions a coding's values may have; [] for no quantity; undefined for a LOINC code the table of properties lacks. */
function dimensionsOfCoding(coding: StandardCoding): string[] | undefined {
  if (coding.system === SNOMED) return [];
  const facts = LOINC_FACTS.get(coding.code);
  return facts && dimensionUnitsOf(facts).map((unit) => canonicalFromLibrary(unit)!.canonical);
}

/** The specimens a schema's codings follow, and none. */
const specimensOf = (schema: SchemaQuantities): Array<string | undefined> => [undefined, ...new Set(schema.members.flatMap((m) => m.variants.flatMap((v) => v.specimen ?? [])))];

/** Where a coding of the table disagrees with the dimension of a unit it is given (or measures nothing it could be given). */
function dimensionProblems(schemas: readonly SchemaQuantities[]): string[] {
  const problems: string[] = [];
  const check = (where: string, coding: StandardCoding, unit: string) => {
    if (coding.system === omhMemberSystem()) return;
    const dimensions = dimensionsOfCoding(coding);
    const dimension = dimensionOfUnit(unit);
    if (dimensions === undefined) problems.push(`${where}: ${coding.code} has no LOINC property in loinc-properties.ts`);
    else if (dimension === undefined || !dimensions.includes(dimension)) problems.push(`${where}: ${coding.system}|${coding.code} measures ${dimensions.join(' or ') || 'no quantity'}, given ${unit} (${dimension ?? 'no dimension'})`);
  };
  for (const schema of schemas) {
    schema.members.forEach((member, index) => {
      const where = `${schema.code} ${member.path}`;
      if (member.units === undefined) {
        // Any text is allowed: no dimension to hold a standard code to.
        if (memberCodings(member).some((c) => c.system !== omhMemberSystem())) problems.push(`${where}: takes any unit text, and has a standard code`);
        return;
      }
      for (const specimen of specimensOf(schema)) {
        for (const unit of member.units) {
          const value = { member: index, value: 1, unit };
          check(`${where} in ${specimen ?? 'no specimen'}`, memberCodingOf(schema, index, unit, specimen), unit);
          if (schema.principal === index) {
            const observation = observationCodingOf(schema, [value], specimen);
            if (observation) check(`${schema.code} observation in ${specimen ?? 'no specimen'}`, observation, unit);
          }
        }
      }
      // Every coding the member may show is shown for some unit it allows.
      for (const coding of memberCodings(member).filter((c) => c.system !== omhMemberSystem())) {
        const dimensions = dimensionsOfCoding(coding) ?? [];
        if (!member.units.some((unit) => dimensions.includes(dimensionOfUnit(unit) ?? ''))) problems.push(`${where}: ${coding.code} measures no unit the member allows`);
      }
    });
    if (schema.principal === undefined && schema.coding) {
      // No value is the observation's: its code names what the reading is (a panel, a kind), no quantity.
      const dimensions = dimensionsOfCoding(schema.coding);
      if (dimensions === undefined || dimensions.length > 0) problems.push(`${schema.code} observation: ${schema.coding.code} is a quantity, and the reading has no value of its own`);
    }
  }
  return problems;
}

const glucose = SCHEMA_QUANTITIES.find((s) => s.code === 'omh:blood-glucose:4.0')!;

describe('every code of the table measures what its values are', () => {
  it('each coding, observation and member, default and variant, agrees with the UCUM dimension of every unit its member allows', () => {
    expect(dimensionProblems(SCHEMA_QUANTITIES)).toEqual([]);
  });

  it('knows the property of every LOINC code the table uses, and no more', () => {
    const used = new Set(
      SCHEMA_QUANTITIES.flatMap((s) => [...(s.coding ? [s.coding] : []), ...s.members.flatMap(memberCodings)])
        .filter((c) => c.system === LOINC)
        .map((c) => c.code),
    );
    expect([...used].sort()).toEqual([...LOINC_FACTS.keys()].sort());
  });

  it('fails when 2339-0 (mass concentration) is given a molar unit', () => {
    const [member] = glucose.members;
    const massOnly: SchemaQuantities = { ...glucose, members: [{ ...member!, variants: [] }] };
    expect(dimensionProblems([massOnly])).toEqual([
      'omh:blood-glucose:4.0 blood_glucose in no specimen: http://loinc.org|2339-0 measures m-3.g, given mmol/L (m-3)',
      'omh:blood-glucose:4.0 observation in no specimen: http://loinc.org|2339-0 measures m-3.g, given mmol/L (m-3)',
    ]);
    // One variant wrong: capillary mmol/L coded by the blood mass code.
    const wrongVariant = member!.variants.map((v) => (v.specimen === 'capillary blood' && v.canonical === 'm-3' ? { ...v, coding: member!.coding } : v));
    expect(dimensionProblems([{ ...glucose, members: [{ ...member!, variants: wrongVariant }] }])).toEqual([
      'omh:blood-glucose:4.0 blood_glucose in capillary blood: http://loinc.org|2339-0 measures m-3.g, given mmol/L (m-3)',
      'omh:blood-glucose:4.0 observation in capillary blood: http://loinc.org|2339-0 measures m-3.g, given mmol/L (m-3)',
    ]);
  });

  it('fails on a duration coded with a 7-day activity rate, on a quantity for a panel, and on a code it has no property for', () => {
    const activity = SCHEMA_QUANTITIES.find((s) => s.code === 'ieee:physical-activity:1.0')!;
    const ipaq: StandardCoding = { system: LOINC, code: '77592-4', display: 'Moderate physical activity [IPAQ]' };
    const moderate = activity.members.findIndex((m) => m.path === 'duration_moderate_activity');
    const coded = { ...activity, members: activity.members.map((m, i) => (i === moderate ? { ...m, coding: ipaq } : m)) };
    expect(dimensionProblems([coded]).join('\n')).toMatch(/duration_moderate_activity in no specimen: 77592-4 has no LOINC property/);
    const pressure = SCHEMA_QUANTITIES.find((s) => s.code === 'omh:blood-pressure:4.0')!;
    const weighed = { ...pressure, coding: { system: LOINC, code: '29463-7', display: 'Body weight' } };
    expect(dimensionProblems([weighed])).toEqual(['omh:blood-pressure:4.0 observation: 29463-7 is a quantity, and the reading has no value of its own']);
    const heartRate = SCHEMA_QUANTITIES.find((s) => s.code === 'omh:heart-rate:2.0')!;
    const asTemperature = { ...heartRate, members: [{ ...heartRate.members[0]!, coding: { system: LOINC, code: '8310-5', display: 'Body temperature' } }] };
    expect(dimensionProblems([asTemperature])).toContain('omh:heart-rate:2.0 heart_rate in no specimen: http://loinc.org|8310-5 measures K, given beats/min (s-1)');
  });

  it('allows the amount a rate accrues over an interval: steps counted, calories burned, in a period', () => {
    expect(dimensionsOfCoding({ system: LOINC, code: '55423-8', display: '' })).toEqual(['s-1', '1']);
    expect(dimensionsOfCoding({ system: LOINC, code: '8867-4', display: '' })).toEqual(['s-1']);
    expect(dimensionOfUnit('steps')).toBe('1');
    expect(dimensionOfUnit('kcal')).toBe(canonicalFromLibrary('J')!.canonical);
  });
});
