/**
 * The statistics of a blood glucose render each value group with its own LOINC code (its unit and
 * specimen); a coding of one specimen names that specimen's groups only.
 */
import { describe, expect, it } from 'vitest';
import { statsParameters } from '../../../../shared/observations/stats/answer';
import { groupOf, valueGroups, type ValueGroup } from '../../../../shared/observations/stats/day-summary';
import { spanStatistics } from '../../../../shared/observations/stats/result';
import { namesGroup } from '../../../../shared/observations/stats/targets';
import { schemaQuantities } from '../../../../shared/omh/quantities';
import { storedGlucose } from '../../../support/cgm';

const GLUCOSE = 'omh:blood-glucose:4.0';
/** Each group as `<unit> <specimen or none>: <count>`. */
const shown = (groups: readonly ValueGroup[]) => groups.map((g) => `${g.unit} ${g.specimen ?? 'none'}: ${g.count}`);
const glucose = schemaQuantities(GLUCOSE)!;

describe('the statistics of each group', () => {
  const code = { id: 2, system: 'https://w3id.org/openmhealth', code: GLUCOSE, display: 'Blood Glucose' };
  const groups = valueGroups([storedGlucose(120, 'mg/dL', 'interstitial fluid'), storedGlucose(5.9, 'mmol/L', 'capillary blood'), storedGlucose(99, 'mg/dL', undefined)], GLUCOSE);
  // A group kept before groups kept the specimen.
  const old = groupOf(0, 'm-3.g', true, [1300]);

  /** The LOINC code and count of each statistics Observation. */
  function rendered(shownGroups: ValueGroup[]): Array<[string, unknown]> {
    const target = { codeId: 2, schemaCode: GLUCOSE };
    const span = spanStatistics(glucose, target, ['count'], { from: 0, to: 1, groups: shownGroups });
    const parameters = statsParameters({ patientId: 1, subject: 'Patient/1', statistics: ['count'], codes: [{ code, quantities: glucose, target, spans: [span], sources: [] }] }) as { parameter: Array<{ resource: Record<string, any> }> };
    return parameters.parameter.map(({ resource }) => [resource.code.coding[1].code, resource.component[0].valueQuantity.value]);
  }

  it('codes each group by its unit and specimen; a group kept without one by the blood codes', () => {
    expect(rendered(groups)).toEqual([['14743-9', 1], ['2339-0', 1], ['99504-3', 1]]);
    expect(rendered([old])).toEqual([['2339-0', 1]]);
  });

  it("a specimen's coding names its groups only", () => {
    const target = { codeId: 2, schemaCode: GLUCOSE, members: new Set([0]), codings: new Map([[0, [{ system: 'http://loinc.org', code: '99504-3' }, { code: '14743-9' }]]]) };
    expect(shown(groups.filter((g) => namesGroup(target, glucose, g)))).toEqual(['m-3 capillary blood: 1', 'm-3.g interstitial fluid: 1']);
    expect(namesGroup({ codeId: 2, schemaCode: GLUCOSE }, glucose, old)).toBe(true);
    expect(namesGroup(target, glucose, old)).toBe(false);
  });
});
