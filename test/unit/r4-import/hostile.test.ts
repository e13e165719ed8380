/**
 * Untrusted input never breaks the import's pure parts: for any JSON value under any R4 resource
 * type, conversion, loss detection and the entry preparation return (an R5 resource or a refused
 * entry), never throw, and never write outside the objects they build.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { convertR4, convertR4Resource } from '../../../shared/r4-import/convert';
import { prepareImport } from '../../../shared/r4-import/import';
import { droppedPaths, lossReport } from '../../../shared/r4-import/loss';

const TYPES = ['Condition', 'Observation', 'CarePlan', 'QuestionnaireResponse', 'MedicationRequest', 'Coverage', 'Bundle', 'Patient', 'Nonsense', ''];
const KEYS = ['code', 'subject', 'status', 'item', 'answer', 'linkId', 'valueQuantity', 'reasonCode', 'activity', 'detail', 'contained', 'entry', 'resource', '_status', '__proto__', 'constructor', 'id', 'extension', 'url', 'coding', 'system'];

const json = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: 'small' },
    fc.string(),
    fc.integer(),
    fc.double(),
    fc.boolean(),
    fc.constant(null),
    fc.array(tie('value'), { maxLength: 4 }),
    fc.dictionary(fc.constantFrom(...KEYS), tie('value'), { maxKeys: 5 }),
  ),
})).value;

describe('hostile input', () => {
  it('converts, measures loss and prepares any JSON without throwing', () => {
    fc.assert(
      fc.property(fc.constantFrom(...TYPES), fc.dictionary(fc.constantFrom(...KEYS), json, { maxKeys: 8 }), (type, body) => {
        const resource = { ...body, resourceType: type };
        const converted = convertR4Resource(resource);
        if (converted) {
          expect(converted.resourceType).toBe(type);
          expect(Array.isArray(droppedPaths(resource, converted))).toBe(true);
        }
        const prepared = prepareImport(resource, 'x');
        if (!prepared.entry.ok) expect(prepared.entry.status).toBeGreaterThanOrEqual(400);
        expect(({} as Record<string, unknown>).polluted).toBeUndefined();
      }),
      { numRuns: 3000 },
    );
  });
});

describe('sizes the fuzzing above does not reach', () => {
  it('measures the loss of a list of 300,000 values, and refuses a resource past the bounds before converting it', () => {
    const values = Array.from({ length: 300_000 }, (_, i) => i);
    expect(droppedPaths({ resourceType: 'Observation', component: values }, { component: values })).toEqual([]);
    const prepared = prepareImport({ resourceType: 'Observation', status: 'final', code: { text: 'x' }, component: values.map((v) => ({ code: { text: String(v) } })) }, 'Observation');
    expect(prepared.entry).toMatchObject({ ok: false, status: 413, issues: [{ code: 'too-costly', expression: ['Observation'] }] });
  });

  it('converts and reports a list of 300,000 values (the converter and its loss report, under the import\'s bounds)', () => {
    const r4 = { resourceType: 'RelatedPerson', patient: { reference: 'Patient/1' }, name: [{ given: Array.from({ length: 300_000 }, () => 'a') }] };
    const conversion = convertR4(r4)!;
    expect((conversion.resource as any).name[0].given).toHaveLength(300_000);
    expect(lossReport(r4, conversion)).toEqual([]);
  });

  it('sorts out 20,000 contained resources that share one id and refer to it, following each id once', () => {
    const contained = Array.from({ length: 20_000 }, () => ({ resourceType: 'Goal', id: 'x', lifecycleStatus: 'active', description: { text: 'g' }, subject: { reference: '#x' } }));
    const r4 = { resourceType: 'CarePlan', status: 'active', intent: 'plan', subject: { reference: 'Patient/1' }, contained };
    // Nothing outside them refers to '#x': all are dropped, reported once.
    expect(lossReport(r4, convertR4(r4)!).map((d) => d.path)).toEqual(['CarePlan.contained']);
  });
});
