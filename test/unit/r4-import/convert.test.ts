/**
 * The conversion rules (docs/r4-import.md#the-conversion-rules-where-each-lives-and-its-test), one by one, on small R4 resources: datatype changes into
 * CodeableReference, the elements the contract names, conditions, codes passed through, primitive
 * extensions not carried, a failing rule skipped, empty containers pruned; then the loss detector;
 * then that the compiled tables, and the facts' table in the docs, are up to date with their compiler.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { writeDefinitions } from '../../../scripts/fhir-compile';
import { compileConversion, R4_DOCS, R4_GENERATED_DIR } from '../../../scripts/r4-compile';
import { parseCondition } from '../../../scripts/r4-compile/conditions';
import { withFactsSection } from '../../../scripts/r4-compile/docs';
import { convertR4Resource } from '../../../shared/r4-import/convert';
import { droppedPaths } from '../../../shared/r4-import/loss';
import { conversionTable, type ConversionTable } from '../../../shared/r4-import/tables';

type Json = Record<string, any>;

const cc = (code: string, system = 'http://snomed.info/sct') => ({ coding: [{ system, code, display: `d-${code}` }], text: `t-${code}` });
const ref = (reference: string) => ({ reference, display: `r-${reference}` });
const convert = (r: Json) => convertR4Resource(r) as Json;

describe('R4 Reference / CodeableConcept -> R5 CodeableReference', () => {
  it.each([
    ['Procedure', { status: 'completed', subject: ref('Patient/1'), reasonCode: [cc('a')], reasonReference: [ref('Condition/1')] }, 'reason'],
    ['ServiceRequest', { status: 'active', intent: 'order', subject: ref('Patient/1'), reasonCode: [cc('a')], reasonReference: [ref('Condition/1')] }, 'reason'],
    ['Immunization', { status: 'completed', vaccineCode: cc('v'), patient: ref('Patient/1'), occurrenceDateTime: '2020-01-01', reasonCode: [cc('a')], reasonReference: [ref('Condition/1')] }, 'reason'],
    ['FamilyMemberHistory', { status: 'completed', patient: ref('Patient/1'), relationship: cc('FTH'), reasonCode: [cc('a')], reasonReference: [ref('Condition/1')] }, 'reason'],
    ['MedicationRequest', { status: 'active', intent: 'order', subject: ref('Patient/1'), medicationCodeableConcept: cc('m'), reasonCode: [cc('a')], reasonReference: [ref('Condition/1')] }, 'reason'],
    ['Goal', { lifecycleStatus: 'active', description: cc('g'), subject: ref('Patient/1'), outcomeCode: [cc('a')], outcomeReference: [ref('Condition/1')] }, 'outcome'],
    ['Procedure', { status: 'completed', subject: ref('Patient/1'), usedCode: [cc('a')], usedReference: [ref('Condition/1')] }, 'used'],
    ['ServiceRequest', { status: 'active', intent: 'order', subject: ref('Patient/1'), locationCode: [cc('a')], locationReference: [ref('Condition/1')] }, 'location'],
  ])('%s: codes under .concept (keeping .coding), references under .reference -> %s', (type, body, element) => {
    const out = convert({ resourceType: type, ...body });
    expect(out[element]).toEqual([{ concept: cc('a') }, { reference: ref('Condition/1') }]);
    expect(droppedPaths({ resourceType: type, ...body }, out)).toEqual([]);
  });

  it.each([
    ['Encounter', { status: 'finished', class: { code: 'AMB' }, serviceType: cc('s') }, 'serviceType', [{ concept: cc('s') }]],
    ['CarePlan', { status: 'active', intent: 'plan', subject: ref('Patient/1'), addresses: [ref('Condition/1')] }, 'addresses', [{ reference: ref('Condition/1') }]],
    ['Device', { definition: ref('DeviceDefinition/1') }, 'definition', { reference: ref('DeviceDefinition/1') }],
    ['MedicationRequest', { status: 'active', intent: 'order', subject: ref('Patient/1'), medicationReference: ref('Medication/1') }, 'medication', { reference: ref('Medication/1') }],
    ['MedicationRequest', { status: 'active', intent: 'order', subject: ref('Patient/1'), medicationCodeableConcept: cc('m') }, 'medication', { concept: cc('m') }],
  ])('%s.%s', (type, body, element, expected) => {
    expect(convert({ resourceType: type, ...body })[element]).toEqual(expected);
  });
});

describe('the other elements the contract names', () => {
  it('Observation.component.referenceRange, and choice keys', () => {
    const out = convert({
      resourceType: 'Observation',
      status: 'final',
      code: cc('o'),
      valueQuantity: { value: 5, unit: 'mg' },
      component: [{ code: cc('c'), valueQuantity: { value: 1 }, referenceRange: [{ low: { value: 0 }, high: { value: 2 }, text: 'normal' }] }],
    });
    expect(out.valueQuantity).toEqual({ value: 5, unit: 'mg' });
    expect(out.component[0].referenceRange).toEqual([{ low: { value: 0 }, high: { value: 2 }, text: 'normal' }]);
  });

  it('QuestionnaireResponse.item nested in items and answers', () => {
    const item = [{ linkId: '1', item: [{ linkId: '1.1', answer: [{ valueString: 'yes', item: [{ linkId: '1.1.1', answer: [{ valueInteger: 3 }] }] }] }] }];
    const r4 = { resourceType: 'QuestionnaireResponse', status: 'completed', item };
    expect(convert(r4).item).toEqual(item);
    expect(droppedPaths(r4, convert(r4))).toEqual([]);
  });

  it('Provenance.agent, MedicationRequest.dosageInstruction, Bundle.link, Parameters.parameter.part', () => {
    const agent = [{ type: cc('author'), who: ref('Practitioner/1'), onBehalfOf: ref('Organization/1') }];
    expect(convert({ resourceType: 'Provenance', target: [ref('Condition/1')], recorded: '2020-01-01T00:00:00Z', agent }).agent).toEqual(agent);
    const dosage = [{ text: 'twice daily', timing: { repeat: { frequency: 2, period: 1, periodUnit: 'd' } }, doseAndRate: [{ doseQuantity: { value: 1, unit: 'tablet' } }] }];
    expect(convert({ resourceType: 'MedicationRequest', status: 'active', intent: 'order', subject: ref('Patient/1'), medicationCodeableConcept: cc('m'), dosageInstruction: dosage }).dosageInstruction).toEqual(dosage);
    expect(convert({ resourceType: 'Bundle', type: 'searchset', link: [{ relation: 'next', url: 'http://x/next' }] }).link).toEqual([{ relation: 'next', url: 'http://x/next' }]);
    const parameter = [{ name: 'p', part: [{ name: 'q', valueString: 'v' }] }];
    expect(convert({ resourceType: 'Parameters', parameter }).parameter).toEqual(parameter);
  });

  it('Procedure.complication, ServiceRequest.supportingInfo, Immunization.manufacturer and reaction, Encounter.diagnosis.condition, AllergyIntolerance.reaction.manifestation, Specimen.collection.bodySite', () => {
    expect(convert({ resourceType: 'Procedure', status: 'completed', subject: ref('Patient/1'), complication: [cc('x')] }).complication).toEqual([{ concept: cc('x') }]);
    expect(convert({ resourceType: 'ServiceRequest', status: 'active', intent: 'order', subject: ref('Patient/1'), supportingInfo: [ref('Observation/1')] }).supportingInfo).toEqual([{ reference: ref('Observation/1') }]);
    const immunization = convert({ resourceType: 'Immunization', status: 'completed', vaccineCode: cc('v'), patient: ref('Patient/1'), occurrenceDateTime: '2020-01-01', manufacturer: ref('Organization/1'), reaction: [{ date: '2020-01-02', detail: ref('Observation/9') }] });
    expect(immunization.manufacturer).toEqual({ reference: ref('Organization/1') });
    expect(immunization.reaction).toEqual([{ date: '2020-01-02', manifestation: { reference: ref('Observation/9') } }]);
    expect(convert({ resourceType: 'Encounter', status: 'finished', class: { code: 'AMB' }, diagnosis: [{ condition: ref('Condition/1') }] }).diagnosis).toEqual([{ condition: [{ reference: ref('Condition/1') }] }]);
    expect(convert({ resourceType: 'AllergyIntolerance', patient: ref('Patient/1'), reaction: [{ manifestation: [cc('hives')] }] }).reaction).toEqual([{ manifestation: [{ concept: cc('hives') }] }]);
    expect(convert({ resourceType: 'Specimen', collection: { bodySite: cc('arm') } }).collection).toEqual({ bodySite: { concept: cc('arm') } });
  });
});

describe('conditions, codes, primitive extensions, failing rules, pruning', () => {
  it('honours = conditions: AllergyIntolerance.type becomes a coded concept only for the codes a rule names', () => {
    const base = { resourceType: 'AllergyIntolerance', patient: ref('Patient/1') };
    expect(convert({ ...base, type: 'allergy' }).type).toEqual({ coding: [{ system: 'http://hl7.org/fhir/allergy-intolerance-type', code: 'allergy', display: 'Allergy' }] });
    expect(convert({ ...base, type: 'intolerance' }).type.coding[0].code).toBe('intolerance');
    const other = { ...base, type: 'other' };
    expect(convert(other).type).toBeUndefined();
    expect(droppedPaths(other, convert(other))).toEqual(['AllergyIntolerance.type']);
  });

  it('parses = and != conditions, bare or parenthesised, and refuses anything richer', () => {
    expect(parseCondition("(s = 'allergy')")).toEqual({ op: '=', value: 'allergy' });
    expect(parseCondition("s.type != 'CatalogEntry'")).toEqual({ op: '!=', value: 'CatalogEntry', child: 'type' });
    expect(parseCondition("((s = 'a'))")).toEqual({ op: '=', value: 'a' });
    expect(parseCondition("coding.exists(code = 'Patient')")).toBeUndefined();
    expect(parseCondition("src.target.all(equivalence = 'unmatched')")).toBeUndefined();
    expect(parseCondition("s = 'a' and s = 'b'")).toBeUndefined();
    expect(parseCondition('s as Quantity')).toBeUndefined();
  });

  it('passes codes through untranslated (an R4 code R5 dropped stays, and validation will judge it)', () => {
    expect(convert({ resourceType: 'Encounter', status: 'finished', class: { code: 'AMB' } }).status).toBe('finished');
  });

  it('does not carry primitive extensions, and reports them lost', () => {
    const r4 = { resourceType: 'RelatedPerson', patient: ref('Patient/1'), birthDate: '1970-01-01', _birthDate: { extension: [{ url: 'http://x/ext', valueString: 'approx' }] } };
    const out = convert(r4);
    expect(out.birthDate).toBe('1970-01-01');
    expect(out._birthDate).toBeUndefined();
    expect(droppedPaths(r4, out)).toEqual(['RelatedPerson._birthDate']);
  });

  it('skips a rule that errors and converts the rest', () => {
    const real = conversionTable('Condition')!;
    const elements = new Map(real.elements);
    // A rule whose target lies under no node being written: applying it throws.
    elements.set('Condition.onset', { rules: [{ to: 'Elsewhere.onset', toTypes: ['dateTime'], toChoice: true }] });
    const broken: ConversionTable = { ...real, elements };
    const r4 = { resourceType: 'Condition', subject: ref('Patient/1'), onsetDateTime: '2020-01-01', code: cc('c') };
    const out = convertR4Resource(r4, (type) => (type === 'Condition' ? broken : conversionTable(type)))!;
    expect(out.code).toEqual(cc('c'));
    expect(out.subject).toEqual(ref('Patient/1'));
    expect(out.onsetDateTime).toBeUndefined();
    expect(droppedPaths(r4, out)).toEqual(['Condition.onsetDateTime']);
  });

  it('prunes empty containers and values of the wrong JSON shape', () => {
    const r4 = { resourceType: 'Condition', subject: ref('Patient/1'), code: { coding: [{}] }, note: [], category: [{ coding: [] }], recordedDate: 20200101, severity: 'high' };
    const out = convert(r4);
    expect(out).toEqual({ resourceType: 'Condition', subject: ref('Patient/1') });
    expect(droppedPaths(r4, out)).toEqual(['Condition.recordedDate', 'Condition.severity']);
  });

  it('drops what R5 has no place for (Coverage.payor always); keeps what R5 removed in the cross-version extension where HL7 does (CarePlan.activity.detail)', () => {
    const coverage = { resourceType: 'Coverage', status: 'active', beneficiary: ref('Patient/1'), payor: [ref('Organization/1')] };
    expect(convert(coverage).payor).toBeUndefined();
    expect(droppedPaths(coverage, convert(coverage))).toEqual(['Coverage.payor']);
    const plan = { resourceType: 'CarePlan', status: 'active', intent: 'plan', subject: ref('Patient/1'), activity: [{ detail: { status: 'scheduled' } }, { reference: ref('ServiceRequest/1'), detail: { status: 'completed' } }] };
    const out = convert(plan);
    const detail = (status: string) => ({ url: 'http://hl7.org/fhir/4.0/StructureDefinition/extension-CarePlan.activity.detail', extension: [{ url: 'status', valueCode: status }] });
    expect(out.activity).toEqual([{ extension: [detail('scheduled')] }, { plannedActivityReference: ref('ServiceRequest/1'), extension: [detail('completed')] }]);
    expect(droppedPaths(plan, out)).toEqual([]);
  });

  it('makes strings R5 turned into identifiers their value, and numbers R5 widened to integer64 its string', () => {
    const coverage = { resourceType: 'Coverage', status: 'active', beneficiary: ref('Patient/1'), subscriberId: 'S-123', class: [{ type: cc('group'), value: 'G-9' }] };
    const out = convert(coverage);
    expect(out.subscriberId).toEqual([{ value: 'S-123' }]);
    expect(out.class).toEqual([{ type: cc('group'), value: { value: 'G-9' } }]);
    const report = { resourceType: 'DiagnosticReport', status: 'final', code: cc('r'), presentedForm: [{ contentType: 'application/pdf', size: 2048 }] };
    expect(convert(report).presentedForm).toEqual([{ contentType: 'application/pdf', size: '2048' }]);
    expect(droppedPaths(report, convert(report))).toEqual([]);
  });

  it('converts contained resources by their own type and leaves the input untouched', () => {
    const r4 = { resourceType: 'Procedure', status: 'completed', subject: ref('Patient/1'), contained: [{ resourceType: 'Condition', id: 'c1', subject: ref('Patient/1'), code: cc('x') }], reasonReference: [ref('#c1')] };
    const copy = structuredClone(r4);
    const out = convert(r4);
    expect(out.contained).toEqual([{ resourceType: 'Condition', id: 'c1', subject: ref('Patient/1'), code: cc('x') }]);
    expect(r4).toEqual(copy);
  });

  it('ignores keys that are not elements, whatever their name', () => {
    const r4 = JSON.parse('{"resourceType":"Condition","subject":{"reference":"Patient/1"},"__proto__":{"polluted":1},"constructor":"x","toString":"y"}');
    const out = convert(r4);
    expect(out).toEqual({ resourceType: 'Condition', subject: { reference: 'Patient/1' } });
    expect(({} as Json).polluted).toBeUndefined();
  });
});

describe('loss detection', () => {
  it('does not report a rename that keeps the values', () => {
    const r4 = { resourceType: 'Procedure', status: 'completed', subject: ref('Patient/1'), performedDateTime: '2020-02-02' };
    const out = convert(r4);
    expect(out.occurrenceDateTime).toBe('2020-02-02');
    expect(droppedPaths(r4, out)).toEqual([]);
  });

  it('reports a wholly lost subtree once, at its highest path, and a partly lost list per item', () => {
    const input = { resourceType: 'X', a: { b: { c: 'gone', d: ['gone too'] } }, e: [{ f: 'kept' }, { f: 'lost' }], g: 'kept' };
    expect(droppedPaths(input, { g: 'kept', h: [{ k: 'kept' }] })).toEqual(['X.a', 'X.e[1]']);
  });

  it('misses a lost value that equals a surviving one (compared by value)', () => {
    expect(droppedPaths({ resourceType: 'X', a: 'same', b: 'same' }, { a: 'same' })).toEqual([]);
  });
});

describe('compiled tables', () => {
  const temp = mkdtempSync(join(tmpdir(), 'r4-tables-'));
  afterAll(() => rmSync(temp, { recursive: true, force: true }));
  const listFiles = (dir: string): string[] =>
    readdirSync(dir).flatMap((name) => (statSync(join(dir, name)).isDirectory() ? listFiles(join(dir, name)) : [join(dir, name)]));

  it('are up to date with the compiler and the facts (regenerate with npm run fhir:compile-r4)', () => {
    writeDefinitions(temp, compileConversion().files);
    const fresh = listFiles(temp).map((f) => relative(temp, f)).sort();
    expect(listFiles(R4_GENERATED_DIR).map((f) => relative(R4_GENERATED_DIR, f)).sort()).toEqual(fresh);
    expect(fresh.filter((f) => readFileSync(join(temp, f), 'utf8') !== readFileSync(join(R4_GENERATED_DIR, f), 'utf8'))).toEqual([]);
  });

  it('and so is the table of conversion facts in docs/r4-import.md (generated from the facts by the same command)', () => {
    const docs = readFileSync(R4_DOCS, 'utf8');
    expect(withFactsSection(docs)).toBe(docs);
    expect(docs).toContain('| `Location.telecom` | `Location.contact.telecom` | same |');
  });
});
