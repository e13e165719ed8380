/** Glucose between mg/dL and mmol/L: the unit table recognises the unit, glucose's molar mass converts. */
import { describe, expect, it } from 'vitest';
import { glucoseIn, mgdlOf, MGDL_PER_MMOLL } from '../../../shared/cgm/units';

describe('glucose units', () => {
  it('converts mmol/L by the molar mass of glucose, 180.156 g/mol', () => {
    expect(MGDL_PER_MMOLL).toBeCloseTo(18.0156, 12);
    expect(mgdlOf(5.5, 'mmol/L')).toBeCloseTo(99.0858, 9);
    expect(mgdlOf(10, 'mmol/L')).toBeCloseTo(180.156, 9);
  });

  it('keeps mg/dL as it is', () => {
    for (const v of [40, 99, 120.5, 400]) expect(mgdlOf(v, 'mg/dL')).toBe(v);
  });

  it('has no glucose in a unit of another dimension', () => {
    expect(mgdlOf(1, 'kg')).toBeUndefined();
    expect(mgdlOf(1, 'beats/min')).toBeUndefined();
    expect(mgdlOf(1, 'not a unit')).toBeUndefined();
  });

  it('shows mg/dL in either unit', () => {
    expect(glucoseIn(180.156, 'mmol/L')).toBeCloseTo(10, 12);
    expect(glucoseIn(120, 'mg/dL')).toBe(120);
  });
});
