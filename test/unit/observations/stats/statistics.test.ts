/** The statistics of value groups: merging days, the percentile rule, display units. */
import { describe, expect, it } from 'vitest';
import { groupOf, groupValue, mergeGroups } from '../../../../shared/observations/stats/day-summary';
import { displayUnitOf, inDisplayUnit } from '../../../../shared/observations/stats/display';
import { sortedValues, statisticOf } from '../../../../shared/observations/stats/statistics';
import { schemaQuantities } from '../../../../shared/omh/quantities';

const raw = (values: number[]) => groupOf(0, 'x', false, values);

describe('statistics of a group', () => {
  it('quantiles by linear interpolation between closest ranks, as numpy computes them', () => {
    const g = raw([1, 2, 3, 4, 10]);
    expect(statisticOf(g, 'median')).toBe(3);
    expect(statisticOf(g, '4-lower')).toBe(2);
    expect(statisticOf(g, '4-upper')).toBe(4);
    expect(statisticOf(g, '20-percent')).toBeCloseTo(1.8, 12);
    expect(statisticOf(g, '80-percent')).toBeCloseTo(5.2, 12);
    expect(statisticOf(g, '4-dev')).toBe(1);
    expect(statisticOf(raw([7]), 'median')).toBe(7);
    expect(sortedValues(raw([5, 5, 5, 1]))!.quantile(0.5)).toBe(5);
  });

  it('days merged give what one group of all the values gives', () => {
    const days = [[60, 61, 61], [70], [58, 90, 61, 61]];
    const merged = mergeGroups(days.map(raw))[0]!;
    const whole = raw(days.flat());
    for (const s of ['count', 'minimum', 'maximum', 'sum', 'median', '4-upper'] as const) expect(statisticOf(merged, s)).toBe(statisticOf(whole, s));
    expect(statisticOf(merged, 'variance')).toBeCloseTo(statisticOf(whole, 'variance')!, 10);
  });

  it('a group without its histogram has no quantile', () => {
    const { histogram: _histogram, ...figures } = raw([1, 2]);
    expect(statisticOf(figures, 'median')).toBeUndefined();
    expect(statisticOf(figures, 'average')).toBe(1.5);
  });
});

describe('units', () => {
  it('pounds and kilograms are one group in grams, shown in kilograms', () => {
    const lb = groupValue(150, 'lb');
    const kg = groupValue(68, 'kg');
    expect([lb.unit, kg.unit, lb.converted]).toEqual(['g', 'g', true]);
    const group = groupOf(0, 'g', true, [lb.value, kg.value]);
    const unit = displayUnitOf(group, schemaQuantities('omh:body-weight:3.0')!.members[0]);
    expect(unit.ucum).toBe('kg');
    expect(inDisplayUnit(statisticOf(group, 'maximum')!, 'value', unit, 2)).toBe(68.0388555);
  });

  it('a heart rate is shown in beats/min without the noise of the conversion', () => {
    const v = groupValue(72, 'beats/min');
    const group = groupOf(0, v.unit, true, [v.value]);
    const unit = displayUnitOf(group, schemaQuantities('omh:heart-rate:2.0')!.members[0]);
    expect([unit.label, unit.ucum]).toEqual(['beats/min', '/min']);
    expect(inDisplayUnit(group.max, 'value', unit, 1)).toBe(72);
  });

  it('temperatures keep their offset in sums, not in spreads', () => {
    const values = [36, 38].map((c) => groupValue(c, 'C'));
    const group = groupOf(0, values[0]!.unit, true, values.map((v) => v.value));
    const unit = displayUnitOf(group, schemaQuantities('omh:body-temperature:4.0')!.members[0]);
    expect(unit.ucum).toBe('Cel');
    expect(inDisplayUnit(group.sum, 'sum', unit, 2)).toBe(74);
    expect(inDisplayUnit(statisticOf(group, 'std-dev')!, 'difference', unit, 2)).toBe(1);
  });
});
