/**
 * A blood glucose's value groups part by specimen where its coding does (capillary blood,
 * interstitial fluid), over a day and merged over days, and the statistics render each group with
 * its own LOINC code; a coding of one specimen names that specimen's groups only.
 */
import { describe, expect, it } from 'vitest';
import type { StoredObservation } from '../../../../shared/observations/model';
import { statsParameters } from '../../../../shared/observations/stats/answer';
import { groupOf, mergeGroups, sameSummary, valueGroups, type ValueGroup } from '../../../../shared/observations/stats/day-summary';
import { spanStatistics } from '../../../../shared/observations/stats/result';
import { namesGroup } from '../../../../shared/observations/stats/targets';
import { schemaQuantities } from '../../../../shared/omh/quantities';

const GLUCOSE = 'omh:blood-glucose:4.0';
const glucose = schemaQuantities(GLUCOSE)!;

/** A stored glucose reading whose values are lifted from its payload (as one stored before values were kept). */
function reading(value: number, unit: string, specimen: string | undefined, status: StoredObservation['status'] = 'final'): StoredObservation {
  const body = { blood_glucose: { value, unit }, ...(specimen ? { specimen_source: specimen } : {}) };
  return { status, data: Buffer.from(JSON.stringify({ header: { uuid: 'u' }, body })).toString('base64') } as StoredObservation;
}

/** Each group as `<unit> <specimen or none>: <count>`. */
const shown = (groups: readonly ValueGroup[]) => groups.map((g) => `${g.unit} ${g.specimen ?? 'none'}: ${g.count}`);

describe('value groups of a blood glucose', () => {
  const day = [
    reading(106, 'mg/dL', 'capillary blood'),
    reading(120, 'mg/dL', 'interstitial fluid'),
    reading(130, 'mg/dL', 'interstitial fluid'),
    reading(90, 'mg/dL', 'saliva'),
    reading(99, 'mg/dL', undefined),
    reading(6.7, 'mmol/L', 'interstitial fluid'),
    reading(5.9, 'mmol/L', 'capillary blood'),
    reading(500, 'mg/dL', 'interstitial fluid', 'entered-in-error'),
  ];

  it('part by unit and by the specimen the coding follows (saliva is coded as none, so grouped with it)', () => {
    const groups = valueGroups(day, GLUCOSE);
    expect(shown(groups)).toEqual(['m-3 capillary blood: 1', 'm-3 interstitial fluid: 1', 'm-3.g none: 2', 'm-3.g capillary blood: 1', 'm-3.g interstitial fluid: 2']);
    expect(groups[2]).not.toHaveProperty('specimen');
    expect(groups[4]!.histogram).toEqual(new Map([[1200, 1], [1300, 1]]));
  });

  it('merged over days, each specimen stays apart', () => {
    const merged = mergeGroups([...valueGroups(day, GLUCOSE), ...valueGroups([reading(140, 'mg/dL', 'interstitial fluid'), reading(101, 'mg/dL', undefined)], GLUCOSE)]);
    expect(shown(merged)).toEqual(['m-3 capillary blood: 1', 'm-3 interstitial fluid: 1', 'm-3.g none: 3', 'm-3.g capillary blood: 1', 'm-3.g interstitial fluid: 3']);
    expect(merged[4]!.specimen).toBe('interstitial fluid');
    expect(merged[4]!.max).toBe(1400);
  });

  it('a summary kept without the specimen is not the same as one with it (a rebuild writes it)', () => {
    const key = { patientId: 1, codeId: 2, day: '2026-11-09', readings: 1 };
    const withSpecimen = { ...key, groups: [groupOf(0, 'm-3.g', true, [1200], 'interstitial fluid')] };
    const without = { ...key, groups: [groupOf(0, 'm-3.g', true, [1200])] };
    expect(sameSummary(withSpecimen, without)).toBe(false);
    expect(sameSummary(withSpecimen, { ...key, groups: [groupOf(0, 'm-3.g', true, [1200], 'interstitial fluid')] })).toBe(true);
  });
});

describe('the statistics of each group', () => {
  const code = { id: 2, system: 'https://w3id.org/openmhealth', code: GLUCOSE, display: 'Blood Glucose' };
  const groups = valueGroups([reading(120, 'mg/dL', 'interstitial fluid'), reading(5.9, 'mmol/L', 'capillary blood'), reading(99, 'mg/dL', undefined)], GLUCOSE);
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
