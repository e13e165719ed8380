import { describe, expect, it } from 'vitest';
import type { OutcomeIssue } from '../../../shared/fhir/outcome';
import { hasErrors, isKnownResourceType, validateResource } from '../../../shared/fhir/validation';

const observation = () => ({
  resourceType: 'Observation',
  id: 'bp-1',
  status: 'final',
  code: { coding: [{ system: 'http://loinc.org', code: '8867-4', display: 'Heart rate' }] },
  subject: { reference: 'Patient/p1' },
  effectiveDateTime: '2024-03-01T10:00:00+01:00',
  valueQuantity: { value: 72, unit: 'beats/minute', system: 'http://unitsofmeasure.org', code: '/min' },
});

const errors = (issues: OutcomeIssue[]) => issues.filter((i) => i.severity === 'error');
const at = (issues: OutcomeIssue[]) => errors(issues).map((i) => i.expression?.[0]).sort();

async function problems(resource: unknown, expectedType?: string) {
  return validateResource(resource, expectedType ? { expectedType } : {});
}

describe('R5 validation: structure', () => {
  it('accepts a valid resource', async () => {
    expect(errors(await problems(observation()))).toEqual([]);
  });

  it('rejects an unknown element, naming it', async () => {
    const issues = await problems({ ...observation(), colour: 'red', code: { text: 'x', foo: 1 } });
    expect(at(issues)).toEqual(['Observation.code.foo', 'Observation.colour']);
    expect(errors(issues).map((i) => i.diagnostics)).toContain("Observation.colour: unknown element 'colour' (Observation has no such element)");
  });

  it('rejects wrong datatypes and JSON shapes', async () => {
    const issues = await problems({ ...observation(), status: 7, category: { text: 'not an array' }, code: 'x' });
    expect(at(issues)).toEqual(['Observation.category', 'Observation.code', 'Observation.status']);
    const text = errors(issues).map((i) => i.diagnostics).join('\n');
    expect(text).toContain('Observation.status: 7 is not a valid code: expected a JSON string');
    expect(text).toContain("Observation.category: 'category' repeats: its value must be a JSON array");
    expect(text).toContain('Observation.code: must be a JSON object, not a string');
  });

  it('rejects a missing required element, and counts a primitive present only as _x', async () => {
    const { status: _, ...noStatus } = observation();
    const issues = await problems(noStatus);
    expect(errors(issues)[0]).toMatchObject({ code: 'required', expression: ['Observation.status'] });
    const extensionOnly = { ...noStatus, _status: { extension: [{ url: 'http://example.org/why', valueString: 'unknown' }] } };
    expect(at(await problems(extensionOnly))).not.toContain('Observation.status');
  });

  it('enforces maximum cardinality and one type per choice element', async () => {
    const issues = await problems({ ...observation(), valueString: 'seventy-two' });
    expect(errors(issues)[0]!.diagnostics).toContain('both');
    expect(at(issues)).toEqual(['Observation.valueString']);
  });

  it('checks choice-typed values against their own type, with ofType() in the path', async () => {
    const issues = await problems({ ...observation(), valueQuantity: { value: 'seventy' } });
    expect(at(issues)).toEqual(['Observation.value.ofType(Quantity).value']);
  });

  it('rejects empty elements, empty arrays and nulls', async () => {
    const issues = await problems({ ...observation(), category: [], note: [null], method: {} });
    expect(at(issues)).toEqual(['Observation.category', 'Observation.method', 'Observation.note[0]']);
  });

  it('validates contained resources and Bundle entries as their own types', async () => {
    const contained = {
      ...observation(),
      performer: [{ reference: '#pr' }],
      contained: [{ resourceType: 'Practitioner', id: 'pr', gender: 'robot' }],
    };
    expect(at(await problems(contained))).toEqual(['Observation.contained[0].gender']);

    const bundle = {
      resourceType: 'Bundle',
      type: 'collection',
      entry: [{ fullUrl: 'urn:uuid:2f2a3b7e-0b0c-4f6e-9d0e-1a2b3c4d5e6f', resource: { ...observation(), status: 'bogus' } }],
    };
    const issues = await problems(bundle);
    expect(at(issues)).toEqual(['Bundle.entry[0].resource.status']);
    expect(errors(issues)[0]!.code).toBe('code-invalid');
  });

  it('rejects an unknown resource type and a resourceType other than the expected one', async () => {
    expect(at(await problems({ resourceType: 'Spaceship' }))).toEqual(['Resource.resourceType']);
    const mismatch = await problems(observation(), 'Condition');
    expect(errors(mismatch)[0]!.diagnostics).toContain("'Observation' does not match the expected type Condition");
    expect(at(await problems([observation()]))).toEqual(['Resource']);
    expect(isKnownResourceType('Spaceship')).toBe(false);
  });
});

describe('R5 validation: primitive formats', () => {
  const cases: Array<[string, Record<string, unknown>, string]> = [
    ['a 65-character id', { id: 'a'.repeat(65) }, 'Observation.id'],
    ['an id with a space', { id: 'a b' }, 'Observation.id'],
    ['an impossible date', { effectiveDateTime: '2023-02-30' }, 'Observation.effective.ofType(dateTime)'],
    ['a time of day without zone', { effectiveDateTime: '2023-02-03T10:00:00' }, 'Observation.effective.ofType(dateTime)'],
    ['an instant without seconds', { issued: '2023-02-03T10:00Z' }, 'Observation.issued'],
    ['a bad time', { valueTime: '25:00:00', valueQuantity: undefined }, 'Observation.value.ofType(time)'],
    ['a uri with a space', { implicitRules: 'http://a b' }, 'Observation.implicitRules'],
    ['a code with a leading space', { status: ' final' }, 'Observation.status'],
    ['a decimal written as a string', { valueQuantity: { value: '72' } }, 'Observation.value.ofType(Quantity).value'],
    ['an integer out of range', { valueInteger: 2 ** 31, valueQuantity: undefined }, 'Observation.value.ofType(integer)'],
    ['a fractional integer', { valueInteger: 1.5, valueQuantity: undefined }, 'Observation.value.ofType(integer)'],
    ['an empty string', { valueString: '', valueQuantity: undefined }, 'Observation.value.ofType(string)'],
    ['a canonical with a space', { instantiatesCanonical: 'http://x y' }, 'Observation.instantiates.ofType(canonical)'],
  ];
  it.each(cases)('rejects %s', async (_label, patch, path) => {
    const resource = JSON.parse(JSON.stringify({ ...observation(), ...patch }));
    const issues = await problems(resource);
    expect(at(issues)).toEqual([path]);
  });

  it('checks positiveInt, unsignedInt, integer64, base64Binary, oid, uuid and url', async () => {
    const ext = (url: string, value: Record<string, unknown>) => ({ url: `http://example.org/${url}`, ...value });
    const patient = {
      resourceType: 'Patient',
      photo: [{ contentType: 'image/png', data: 'not base64!' }],
      extension: [
        ext('a', { valuePositiveInt: 0 }),
        ext('b', { valueUnsignedInt: -1 }),
        ext('c', { valueInteger64: '12a' }),
        ext('d', { valueOid: 'urn:oid:1.2.x' }),
        ext('e', { valueUuid: 'urn:uuid:zzz' }),
        ext('f', { valueUrl: 'http://a b' }),
      ],
    };
    expect(at(await problems(patient))).toEqual([
      'Patient.extension[0].value.ofType(positiveInt)',
      'Patient.extension[1].value.ofType(unsignedInt)',
      'Patient.extension[2].value.ofType(integer64)',
      'Patient.extension[3].value.ofType(oid)',
      'Patient.extension[4].value.ofType(uuid)',
      'Patient.extension[5].value.ofType(url)',
      'Patient.photo[0].data',
    ]);
    const ok = {
      resourceType: 'Patient',
      photo: [{ contentType: 'image/png', data: 'aGVsbG8=', size: '5' }],
      extension: [
        ext('a', { valuePositiveInt: 1 }),
        ext('b', { valueUnsignedInt: 0 }),
        ext('c', { valueInteger64: '-9223372036854775808' }),
        ext('d', { valueOid: 'urn:oid:1.2.840.10008' }),
        ext('e', { valueUuid: 'urn:uuid:c757873d-ec9a-4326-a141-556f43239520' }),
      ],
    };
    expect(errors(await problems(ok))).toEqual([]);
  });
});

describe('R5 validation: required bindings and invariants', () => {
  it('rejects a code outside a required value set, listing the allowed codes', async () => {
    const issues = await problems({ ...observation(), status: 'done' });
    expect(errors(issues)[0]).toMatchObject({ code: 'code-invalid', expression: ['Observation.status'] });
    expect(errors(issues)[0]!.diagnostics).toBe(
      "Observation.status: 'done' is not in the required value set http://hl7.org/fhir/ValueSet/observation-status (allowed: amended, cancelled, corrected, entered-in-error, final, preliminary, registered, unknown)",
    );
  });

  it('checks CodeableConcept and Coding bindings by system and code', async () => {
    const allergy = {
      resourceType: 'AllergyIntolerance',
      patient: { reference: 'Patient/p1' },
      clinicalStatus: { coding: [{ system: 'http://terminology.hl7.org/CodeSystem/allergyintolerance-clinical', code: 'active' }] },
    };
    expect(errors(await problems(allergy))).toEqual([]);
    const wrongSystem = { ...allergy, clinicalStatus: { coding: [{ system: 'http://example.org', code: 'active' }] } };
    expect(at(await problems(wrongSystem))).toEqual(['AllergyIntolerance.clinicalStatus.coding']);
  });

  it('checks value sets defined by a grammar: languages, MIME types, UCUM', async () => {
    expect(errors(await problems({ ...observation(), language: 'en-US' }))).toEqual([]);
    expect(at(await problems({ ...observation(), language: 'english please' }))).toEqual(['Observation.language']);
    const doc = (contentType: string) => ({
      resourceType: 'DocumentReference',
      status: 'current',
      content: [{ attachment: { contentType, data: 'aGVsbG8=' } }],
    });
    expect(errors(await problems(doc('text/plain; charset=utf-8')))).toEqual([]);
    expect(at(await problems(doc('plain text')))).toEqual(['DocumentReference.content[0].attachment.contentType']);
  });

  it('evaluates invariants and reports them by key with the standard’s text', async () => {
    // obs-6: dataAbsentReason only when there is no value.
    const issues = await problems({ ...observation(), dataAbsentReason: { text: 'asked but declined' } });
    expect(errors(issues)).toEqual([
      {
        severity: 'error',
        code: 'invariant',
        diagnostics: 'Observation: dataAbsentReason SHALL only be present if Observation.value[x] is not present (obs-6)',
        expression: ['Observation'],
      },
    ]);
  });

  it('evaluates datatype invariants where the datatype occurs (per-1 on a Period)', async () => {
    const issues = await problems({ ...observation(), effectivePeriod: { start: '2024-03-02', end: '2024-03-01' }, effectiveDateTime: undefined });
    expect(errors(issues).map((i) => [i.expression?.[0], i.diagnostics.match(/\((\w+-\d+)\)$/)?.[1]])).toEqual([
      ['Observation.effective.ofType(Period)', 'per-1'],
    ]);
  });

  it('resolves contained references locally (dom-3) and keeps warnings apart from errors', async () => {
    const orphan = { ...observation(), contained: [{ resourceType: 'Patient', id: 'lonely' }] };
    const issues = await problems(orphan);
    expect(errors(issues).map((i) => i.diagnostics)).toEqual([expect.stringContaining('(dom-3)')]);
    const referred = { ...orphan, subject: { reference: '#lonely' } };
    expect(errors(await problems(referred))).toEqual([]);
    // dom-6 (a narrative is recommended) is a warning: it never rejects.
    const warnings = (await problems(observation())).filter((i) => i.severity === 'warning');
    expect(hasErrors(warnings)).toBe(false);
  });

  it('never reports a stringified exception', async () => {
    const issues = await problems({ resourceType: 'Observation', status: 'final', code: { text: 'x' }, referenceRange: [{ low: { value: 1, unit: 'a' }, high: { value: 2, unit: 'b' } }] });
    for (const i of issues) expect(i.diagnostics).not.toMatch(/Error|undefined|\[object/);
  });
});
