/** The reading-type resolver and the schema descriptions (get_omh_schema, the omh://schema/ resources). */
import { describe, expect, it } from 'vitest';
import { describeSchema, resolveReadingType } from '../../../shared/mcp/reading-types';
import { PAYLOAD_SCHEMAS } from '../../../shared/omh/schemas/index';

describe('reading types', () => {
  it('resolve the full code, the code without version, a unique name and the standard coding', () => {
    for (const text of ['omh:heart-rate:2.0', 'omh:heart-rate', 'heart-rate', ' http://loinc.org|8867-4 ']) expect(resolveReadingType(text).code).toBe('omh:heart-rate:2.0');
    expect(resolveReadingType('ieee:sleep-episode').code).toBe('ieee:sleep-episode:1.0');
    expect(() => resolveReadingType('physical-activity')).toThrow(/several reading types/);
    expect(() => resolveReadingType('hasOwnProperty')).toThrow(/names no reading type/);
  });

  it('describe every schema, each with its members and values', () => {
    expect(PAYLOAD_SCHEMAS).toHaveLength(20);
    for (const schema of PAYLOAD_SCHEMAS) {
      const described = describeSchema(schema);
      expect(described.uri).toBe(`omh://schema/${schema.code}`);
      expect(described.members.length, schema.code).toBeGreaterThan(0);
    }
    expect(describeSchema(resolveReadingType('blood-pressure')).values.map((v) => [v.path, v.principal])).toEqual([
      ['systolic_blood_pressure', false],
      ['diastolic_blood_pressure', false],
    ]);
  });

  it('resolve and describe each code a blood glucose may show, by unit and specimen', () => {
    for (const code of ['2339-0', '15074-8', '41653-7', '14743-9', '99504-3', '105272-9']) expect(resolveReadingType(`http://loinc.org|${code}`).code).toBe('omh:blood-glucose:4.0');
    const [value] = describeSchema(resolveReadingType('blood-glucose')).values;
    expect(value!.coding.code).toBe('2339-0');
    expect(value!.variants.map((v) => [v.specimen, v.units, v.coding.code])).toEqual([
      [null, ['mg/dL'], '2339-0'],
      [null, ['mmol/L'], '15074-8'],
      ['capillary blood', ['mg/dL'], '41653-7'],
      ['capillary blood', ['mmol/L'], '14743-9'],
      ['interstitial fluid', ['mg/dL'], '99504-3'],
      ['interstitial fluid', ['mmol/L'], '105272-9'],
    ]);
    expect(describeSchema(resolveReadingType('heart-rate')).values[0]!.variants).toEqual([]);
  });
});
