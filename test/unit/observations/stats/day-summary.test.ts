/**
 * A blood glucose's value groups part by specimen where its coding does (capillary blood,
 * interstitial fluid), over a day and merged over days.
 */
import { describe, expect, it } from 'vitest';
import { groupOf, mergeGroups, sameSummary, valueGroups, type ValueGroup } from '../../../../shared/observations/stats/day-summary';
import { storedGlucose } from '../../../support/cgm';

const GLUCOSE = 'omh:blood-glucose:4.0';
/** Each group as `<unit> <specimen or none>: <count>`. */
const shown = (groups: readonly ValueGroup[]) => groups.map((g) => `${g.unit} ${g.specimen ?? 'none'}: ${g.count}`);

describe('value groups of a blood glucose', () => {
  const day = [
    storedGlucose(106, 'mg/dL', 'capillary blood'),
    storedGlucose(120, 'mg/dL', 'interstitial fluid'),
    storedGlucose(130, 'mg/dL', 'interstitial fluid'),
    storedGlucose(90, 'mg/dL', 'saliva'),
    storedGlucose(99, 'mg/dL', undefined),
    storedGlucose(6.7, 'mmol/L', 'interstitial fluid'),
    storedGlucose(5.9, 'mmol/L', 'capillary blood'),
    storedGlucose(500, 'mg/dL', 'interstitial fluid', 'entered-in-error'),
  ];

  it('part by unit and by the specimen the coding follows (saliva is coded as none, so grouped with it)', () => {
    const groups = valueGroups(day, GLUCOSE);
    expect(shown(groups)).toEqual(['m-3 capillary blood: 1', 'm-3 interstitial fluid: 1', 'm-3.g none: 2', 'm-3.g capillary blood: 1', 'm-3.g interstitial fluid: 2']);
    expect(groups[2]).not.toHaveProperty('specimen');
    expect(groups[4]!.histogram).toEqual(new Map([[1200, 1], [1300, 1]]));
  });

  it('merged over days, each specimen stays apart', () => {
    const merged = mergeGroups([...valueGroups(day, GLUCOSE), ...valueGroups([storedGlucose(140, 'mg/dL', 'interstitial fluid'), storedGlucose(101, 'mg/dL', undefined)], GLUCOSE)]);
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

