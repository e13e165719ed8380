/**
 * The structural conversion facts, one by one: values moved into R5 datatypes (a new wrapper),
 * backbones lifted (their children up a level, several R4 elements into one CodeableReference
 * list), a part of a datatype value taken, a second value starting a new list entry, contained
 * resources kept while something refers to them, elements R5 removed kept in HL7's cross-version
 * extensions, and what is dropped because carrying it would make the entry invalid. Each result is
 * valid R5 and its loss report exact. Then the compiler's refusals.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { compileConversion } from '../../../scripts/r4-compile';
import { CONVERSION_FACTS, type ConversionFact } from '../../../scripts/r4-compile/facts';
import { loadFhirPath } from '../../../shared/fhir/fhirpath';
import { hasErrors, validateResource } from '../../../shared/fhir/validation';
import { convertR4 } from '../../../shared/r4-import/convert';
import { lossReport } from '../../../shared/r4-import/loss';
import { conversionTable } from '../../../shared/r4-import/tables';

type Json = Record<string, any>;

const cc = (code: string) => ({ coding: [{ system: 'http://snomed.info/sct', code }], text: `t-${code}` });
const ref = (reference: string) => ({ reference });
/** The standard cross-version extensions' url before the R4 element path. */
const XVER = 'http://hl7.org/fhir/4.0/StructureDefinition/extension-';
const active = { coding: [{ system: 'http://terminology.hl7.org/CodeSystem/condition-clinical', code: 'active' }] };

beforeAll(loadFhirPath);

/** The R5 resource, checked valid, and what was dropped (path, kind and the element it belongs to). */
async function imported(r4: Json): Promise<{ out: Json; drops: Array<{ path: string; kind: string; why: string }> }> {
  const conversion = convertR4(r4)!;
  const issues = await validateResource(conversion.resource, { expectedType: r4.resourceType });
  expect(hasErrors(issues) ? issues.filter((i) => i.severity === 'error') : [], JSON.stringify(conversion.resource)).toEqual([]);
  return { out: conversion.resource as Json, drops: lossReport(r4, conversion).map(({ path, kind, why }) => ({ path, kind, why })) };
}

describe('into a new R5 wrapper (an R5 path through a datatype)', () => {
  it('Location.telecom -> contact.telecom (ExtendedContactDetail), all telecoms in one contact', async () => {
    const telecom = [{ system: 'phone', value: '+1 555' }, { system: 'email', value: 'a@b.example' }];
    const { out, drops } = await imported({ resourceType: 'Location', name: 'Ward', telecom });
    expect(out.contact).toEqual([{ telecom }]);
    expect(out.telecom).toBeUndefined();
    expect(drops).toEqual([]);
  });

  it('PractitionerRole.telecom, availableTime and notAvailable -> contact.telecom and one availability', async () => {
    const availableTime = [{ daysOfWeek: ['mon', 'tue'], availableStartTime: '09:00:00', availableEndTime: '17:00:00' }, { daysOfWeek: ['sat'], allDay: true }];
    const notAvailable = [{ description: 'Holiday', during: { start: '2024-12-24', end: '2024-12-26' } }];
    const { out, drops } = await imported({
      resourceType: 'PractitionerRole',
      practitioner: ref('Practitioner/1'),
      telecom: [{ system: 'phone', value: '+1 555' }],
      availableTime,
      notAvailable,
    });
    expect(out.contact).toEqual([{ telecom: [{ system: 'phone', value: '+1 555' }] }]);
    expect(out.availability).toEqual([{ availableTime, notAvailableTime: notAvailable }]);
    expect(drops).toEqual([]);
  });

  it('Location.hoursOfOperation -> hoursOfOperation.availableTime, openingTime and closingTime renamed', async () => {
    const { out, drops } = await imported({
      resourceType: 'Location',
      name: 'Clinic',
      hoursOfOperation: [{ daysOfWeek: ['mon'], openingTime: '08:00:00', closingTime: '12:00:00' }, { daysOfWeek: ['sun'], allDay: true }],
    });
    expect(out.hoursOfOperation).toEqual([
      { availableTime: [{ daysOfWeek: ['mon'], availableStartTime: '08:00:00', availableEndTime: '12:00:00' }, { daysOfWeek: ['sun'], allDay: true }] },
    ]);
    expect(drops).toEqual([]);
  });
});

describe('lifted backbones (children up a level; several R4 elements into one CodeableReference list)', () => {
  it('Condition.evidence.code and .detail -> Condition.evidence entries', async () => {
    const { out, drops } = await imported({
      resourceType: 'Condition',
      clinicalStatus: active,
      subject: ref('Patient/1'),
      evidence: [{ code: [cc('a'), cc('b')], detail: [ref('Observation/1')] }, { detail: [ref('Observation/2')] }],
    });
    expect(out.evidence).toEqual([{ concept: cc('a') }, { concept: cc('b') }, { reference: ref('Observation/1') }, { reference: ref('Observation/2') }]);
    expect(drops).toEqual([]);
  });

  it('DocumentReference.context: encounter, event, period, facilityType, practiceSetting to the resource; related and sourcePatientInfo in the context\'s cross-version extension', async () => {
    const { out, drops } = await imported({
      resourceType: 'DocumentReference',
      status: 'current',
      content: [{ attachment: { contentType: 'text/plain', url: 'http://x.example/doc' } }],
      context: {
        encounter: [ref('Encounter/1')],
        event: [cc('ev')],
        period: { start: '2024-01-01' },
        facilityType: cc('fac'),
        practiceSetting: cc('ps'),
        sourcePatientInfo: ref('Patient/source'),
        related: [ref('Patient/9'), { identifier: { value: 'order-1' } }],
      },
    });
    expect(out.context).toEqual([ref('Encounter/1')]);
    expect(out.event).toEqual([{ concept: cc('ev') }]);
    expect(out.period).toEqual({ start: '2024-01-01' });
    expect(out.facilityType).toEqual(cc('fac'));
    expect(out.practiceSetting).toEqual(cc('ps'));
    expect(out.extension).toEqual([
      {
        url: `${XVER}DocumentReference.context`,
        extension: [
          { url: 'sourcePatientInfo', valueReference: ref('Patient/source') },
          { url: 'related', valueReference: ref('Patient/9') },
          { url: 'related', valueReference: { identifier: { value: 'order-1' } } },
        ],
      },
    ]);
    expect(drops).toEqual([]);
  });

  it('Substance.instance (not a stored type, the same fact kind): expiry and quantity to the resource; a second instance has no place', () => {
    const r4 = { resourceType: 'Substance', code: cc('s'), instance: [{ expiry: '2025-01-01', quantity: { value: 1 } }, { expiry: '2026-01-01' }] };
    const conversion = convertR4(r4)!;
    expect(conversion.resource).toMatchObject({ instance: true, expiry: '2025-01-01', quantity: { value: 1 } });
    expect(lossReport(r4, conversion)).toEqual([
      expect.objectContaining({ path: 'Substance.instance[1]', at: 'Substance.instance[1].expiry', kind: 'no-place', why: "R5's Substance.expiry holds one value, and an earlier value took it" }),
    ]);
  });
});

describe('a part of a datatype value', () => {
  it('Medication.amount.numerator -> totalVolume, and the whole Ratio in the cross-version extension: nothing lost', async () => {
    const amount = { numerator: { value: 100, unit: 'mL' }, denominator: { value: 1, unit: 'vial' } };
    const { out, drops } = await imported({ resourceType: 'Medication', code: cc('m'), amount });
    expect(out.totalVolume).toEqual({ value: 100, unit: 'mL' });
    expect(out.amount).toBeUndefined();
    expect(out.extension).toEqual([{ url: `${XVER}Medication.amount`, valueRatio: amount }]);
    expect(drops).toEqual([]);
  });

  it('without the extension\'s rule, the parts no rule takes are reported', () => {
    const real = conversionTable('Medication')!;
    const elements = new Map(real.elements);
    const amountElement = elements.get('Medication.amount')!;
    elements.set('Medication.amount', { ...amountElement, rules: amountElement.rules.filter((r) => r.part) });
    const tables = (type: string) => (type === 'Medication' ? { ...real, elements } : conversionTable(type));
    const r4 = { resourceType: 'Medication', code: cc('m'), amount: { numerator: { value: 100, unit: 'mL' }, denominator: { value: 1, unit: 'vial' } } };
    const conversion = convertR4(r4, tables)!;
    expect(conversion.resource.totalVolume).toEqual({ value: 100, unit: 'mL' });
    expect(conversion.resource.extension).toBeUndefined();
    expect(lossReport(r4, conversion).map((d) => [d.path, d.kind])).toEqual([['Medication.amount.denominator', 'removed']]);
  });

  it('a part that does not fit is reported only when the whole value is not kept: kept, its one place is the extension', async () => {
    const amount = { numerator: { value: 100, unit: 'mL', nonsense: 1 }, denominator: { value: 1 } };
    const { out, drops } = await imported({ resourceType: 'Medication', code: cc('m'), amount });
    expect(out.extension).toEqual([{ url: `${XVER}Medication.amount`, valueRatio: { numerator: { value: 100, unit: 'mL' }, denominator: { value: 1 } } }]);
    expect(drops.map((d) => [d.path, d.kind])).toEqual([['Medication.amount.numerator.nonsense', 'unknown-element']]);
  });
});

describe('a second value for a single element of a list entry starts a new entry', () => {
  it('Condition.recorder and .asserter: two participants, each with its function', async () => {
    const { out, drops } = await imported({ resourceType: 'Condition', clinicalStatus: active, subject: ref('Patient/1'), recorder: ref('Practitioner/1'), asserter: ref('Patient/1') });
    const fn = (code: string) => ({ coding: [expect.objectContaining({ system: 'http://terminology.hl7.org/CodeSystem/provenance-participant-type', code })] });
    expect(out.participant).toEqual([
      { actor: ref('Practitioner/1'), function: fn('enterer') },
      { actor: ref('Patient/1'), function: fn('author') },
    ]);
    expect(drops).toEqual([]);
  });

  it('AllergyIntolerance.recorder and .asserter likewise', async () => {
    const { out } = await imported({ resourceType: 'AllergyIntolerance', patient: ref('Patient/1'), recorder: ref('Practitioner/1'), asserter: ref('RelatedPerson/1') });
    expect(out.participant.map((p: Json) => [p.actor.reference, p.function.coding[0].code])).toEqual([
      ['Practitioner/1', 'enterer'],
      ['RelatedPerson/1', 'author'],
    ]);
  });
});

describe('contained resources stay while something refers to them', () => {
  it('drops one only a dropped element referred to, and one only it referred to; keeps the rest', async () => {
    const contained = [
      { resourceType: 'Substance', id: 'only-dropped', code: cc('s'), ingredient: [{ substanceReference: ref('#ingredient') }] },
      { resourceType: 'Substance', id: 'ingredient', code: cc('i') },
      { resourceType: 'Patient', id: 'kept', active: true },
      { resourceType: 'Condition', id: 'points-back', clinicalStatus: active, subject: ref('Patient/1'), evidence: [{ detail: [ref('#')] }] },
    ];
    // Coverage.payor has no R5 place (a fact drops it); R5 also requires kind, which R4 lacks, so
    // this is not validated, only converted.
    const r4 = { resourceType: 'Coverage', status: 'active', contained, beneficiary: ref('#kept'), payor: [ref('#only-dropped')] };
    const conversion = convertR4(r4)!;
    expect((conversion.resource.contained as Json[]).map((c) => c.id)).toEqual(['kept', 'points-back']);
    const drops = lossReport(r4, conversion);
    expect(drops.map((d) => [d.path, d.kind])).toEqual([
      ['Coverage.contained[0]', 'no-place'],
      ['Coverage.contained[1]', 'no-place'],
      ['Coverage.payor', 'removed'],
    ]);
    expect(drops[0]!.why).toMatch(/nothing in the R5 resource refers to this contained resource/);
  });

  it('keeps the ones a Specimen container refers to (the container is in its cross-version extension)', async () => {
    const contained = [
      { resourceType: 'Substance', id: 'additive', code: cc('s'), ingredient: [{ substanceReference: ref('#ingredient') }] },
      { resourceType: 'Substance', id: 'ingredient', code: cc('i') },
    ];
    const { out, drops } = await imported({ resourceType: 'Specimen', contained, subject: ref('Patient/1'), container: [{ description: 'tube', additiveReference: ref('#additive') }] });
    expect(out.contained.map((c: Json) => c.id)).toEqual(['additive', 'ingredient']);
    expect(drops).toEqual([]);
  });

  it('keeps one a value in a cross-version extension refers to (the CarePlan activity detail\'s product)', async () => {
    const { out, drops } = await imported({
      resourceType: 'CarePlan',
      status: 'active',
      intent: 'plan',
      subject: ref('Patient/1'),
      contained: [{ resourceType: 'Medication', id: 'in-detail', code: cc('m') }],
      activity: [{ detail: { status: 'scheduled', productReference: ref('#in-detail') } }],
    });
    expect(out.contained.map((c: Json) => c.id)).toEqual(['in-detail']);
    expect(drops).toEqual([]);
  });
});

/** An R4 backbone back from its complex extension: each sub-extension's value under its name (a choice element's key gets the type). */
function backFromExtension(extension: Json, choices: ReadonlySet<string> = new Set()): Json {
  const out: Json = {};
  for (const sub of extension.extension as Json[]) {
    const valueKey = Object.keys(sub).find((k) => k.startsWith('value'))!;
    const key = choices.has(sub.url) ? `${sub.url}${valueKey.slice('value'.length)}` : sub.url;
    out[key] = out[key] === undefined ? sub[valueKey] : [out[key], sub[valueKey]].flat();
  }
  return out;
}

describe("elements R5 removed go into HL7's cross-version extensions, and nothing is reported lost", () => {
  it('Encounter.statusHistory and classHistory: one complex extension per entry, on the Encounter; diagnosis.rank on its diagnosis', async () => {
    const period = { start: '2017-02-01T07:15:00+10:00', end: '2017-02-01T07:35:00+10:00' };
    const { out, drops } = await imported({
      resourceType: 'Encounter',
      status: 'in-progress',
      statusHistory: [{ status: 'arrived', period }, { status: 'in-progress', period: { start: '2017-02-01T07:35:00+10:00' } }],
      class: { system: 'http://terminology.hl7.org/CodeSystem/v3-ActCode', code: 'IMP' },
      classHistory: [{ class: { system: 'http://terminology.hl7.org/CodeSystem/v3-ActCode', code: 'EMER' }, period }],
      diagnosis: [{ condition: ref('Condition/1'), rank: 1 }],
    });
    expect(out).toEqual({
      resourceType: 'Encounter',
      status: 'in-progress',
      extension: [
        { url: `${XVER}Encounter.statusHistory`, extension: [{ url: 'status', valueCode: 'arrived' }, { url: 'period', valuePeriod: period }] },
        { url: `${XVER}Encounter.statusHistory`, extension: [{ url: 'status', valueCode: 'in-progress' }, { url: 'period', valuePeriod: { start: '2017-02-01T07:35:00+10:00' } }] },
        {
          url: `${XVER}Encounter.classHistory`,
          extension: [{ url: 'class', valueCoding: { system: 'http://terminology.hl7.org/CodeSystem/v3-ActCode', code: 'EMER' } }, { url: 'period', valuePeriod: period }],
        },
      ],
      class: [{ coding: [{ system: 'http://terminology.hl7.org/CodeSystem/v3-ActCode', code: 'IMP' }] }],
      diagnosis: [{ condition: [{ reference: ref('Condition/1') }], extension: [{ url: `${XVER}Encounter.diagnosis.rank`, valuePositiveInt: 1 }] }],
    });
    expect(drops).toEqual([]);
  });

  it('CarePlan.activity.detail: on its activity, every child a sub-extension, and back again to the R4 detail', async () => {
    const detail = {
      kind: 'ServiceRequest',
      code: cc('walk'),
      reasonReference: [ref('Condition/1'), ref('Condition/2')],
      status: 'in-progress',
      doNotPerform: false,
      scheduledPeriod: { start: '2024-01-01' },
      performer: [ref('Practitioner/1')],
      productCodeableConcept: cc('shoes'),
      dailyAmount: { value: 3, unit: 'km' },
      description: 'Walk daily',
    };
    const { out, drops } = await imported({ resourceType: 'CarePlan', status: 'active', intent: 'plan', subject: ref('Patient/1'), activity: [{ detail }, { reference: ref('ServiceRequest/1') }] });
    expect(out.activity).toEqual([
      {
        extension: [
          {
            url: `${XVER}CarePlan.activity.detail`,
            extension: [
              { url: 'kind', valueCode: 'ServiceRequest' },
              { url: 'code', valueCodeableConcept: cc('walk') },
              { url: 'reasonReference', valueReference: ref('Condition/1') },
              { url: 'reasonReference', valueReference: ref('Condition/2') },
              { url: 'status', valueCode: 'in-progress' },
              { url: 'doNotPerform', valueBoolean: false },
              { url: 'scheduled', valuePeriod: { start: '2024-01-01' } },
              { url: 'performer', valueReference: ref('Practitioner/1') },
              { url: 'product', valueCodeableConcept: cc('shoes') },
              { url: 'dailyAmount', valueQuantity: { value: 3, unit: 'km' } },
              { url: 'description', valueString: 'Walk daily' },
            ],
          },
        ],
      },
      { plannedActivityReference: ref('ServiceRequest/1') },
    ]);
    const back = backFromExtension(out.activity[0].extension[0], new Set(['scheduled', 'product']));
    expect({ ...back, performer: [back.performer].flat() }).toEqual(detail);
    expect(drops).toEqual([]);
  });

  it('Procedure.asserter, MedicationDispense.detectedIssue, Immunization.education: a value, a list, a backbone', async () => {
    const procedure = await imported({ resourceType: 'Procedure', status: 'completed', subject: ref('Patient/1'), asserter: { reference: 'Practitioner/1', display: 'Dr A' } });
    expect(procedure.out.extension).toEqual([{ url: `${XVER}Procedure.asserter`, valueReference: { reference: 'Practitioner/1', display: 'Dr A' } }]);
    expect(procedure.drops).toEqual([]);
    const dispense = await imported({ resourceType: 'MedicationDispense', status: 'completed', medicationCodeableConcept: cc('m'), subject: ref('Patient/1'), detectedIssue: [ref('DetectedIssue/1'), ref('DetectedIssue/2')] });
    expect(dispense.out.extension).toEqual([
      { url: `${XVER}MedicationDispense.detectedIssue`, valueReference: ref('DetectedIssue/1') },
      { url: `${XVER}MedicationDispense.detectedIssue`, valueReference: ref('DetectedIssue/2') },
    ]);
    expect(dispense.drops).toEqual([]);
    const immunization = await imported({
      resourceType: 'Immunization',
      status: 'completed',
      vaccineCode: cc('v'),
      patient: ref('Patient/1'),
      occurrenceDateTime: '2024-01-01',
      education: [{ documentType: '253088698300010311120702', publicationDate: '2012-07-02', presentationDate: '2013-01-10' }],
    });
    expect(immunization.out.extension).toEqual([
      {
        url: `${XVER}Immunization.education`,
        extension: [
          { url: 'documentType', valueString: '253088698300010311120702' },
          { url: 'publicationDate', valueDateTime: '2012-07-02' },
          { url: 'presentationDate', valueDateTime: '2013-01-10' },
        ],
      },
    ]);
    expect(immunization.drops).toEqual([]);
  });

  it('what a backbone holds that an extension cannot is reported: a modifier extension, a key R4 does not define', async () => {
    const { out, drops } = await imported({
      resourceType: 'Encounter',
      status: 'in-progress',
      class: { code: 'IMP' },
      statusHistory: [{ status: 'arrived', period: { start: '2024-01-01' }, modifierExtension: [{ url: 'http://x.example/m', valueBoolean: true }], nonsense: 1 }],
    });
    expect(out.extension).toEqual([{ url: `${XVER}Encounter.statusHistory`, extension: [{ url: 'status', valueCode: 'arrived' }, { url: 'period', valuePeriod: { start: '2024-01-01' } }] }]);
    expect(drops.map((d) => [d.path, d.kind])).toEqual([
      ['Encounter.statusHistory[0].modifierExtension', 'no-place'],
      ['Encounter.statusHistory[0].nonsense', 'unknown-element'],
    ]);
  });
});

describe('what R5 would refuse in its own element goes into the cross-version extension, so nothing is lost', () => {
  it('Immunization.programEligibility (R5 requires a program and a programStatus; R4 has only the status): one extension per concept', async () => {
    const { out, drops } = await imported({
      resourceType: 'Immunization',
      status: 'completed',
      vaccineCode: cc('v'),
      patient: ref('Patient/1'),
      occurrenceDateTime: '2024-01-01',
      programEligibility: [cc('vfc'), cc('ineligible')],
    });
    expect(out.programEligibility).toBeUndefined();
    expect(out.extension).toEqual([
      { url: `${XVER}Immunization.programEligibility`, valueCodeableConcept: cc('vfc') },
      { url: `${XVER}Immunization.programEligibility`, valueCodeableConcept: cc('ineligible') },
    ]);
    expect(drops).toEqual([]);
  });

  it('Specimen.container (R5 requires a Device R4 does not have): a complex extension per container; a doseNumber R4 gives as a number is carried as R5\'s text', async () => {
    const specimen = await imported({
      resourceType: 'Specimen',
      subject: ref('Patient/1'),
      container: [
        { identifier: [{ value: 'c-1' }, { value: 'c-2' }], specimenQuantity: { value: 3, unit: 'mL' }, description: 'tube', additiveCodeableConcept: cc('edta') },
        { id: 'second', type: cc('cup'), capacity: { value: 50, unit: 'mL' } },
      ],
    });
    expect(specimen.out.container).toBeUndefined();
    expect(specimen.out.extension).toEqual([
      {
        url: `${XVER}Specimen.container`,
        extension: [
          { url: 'identifier', valueIdentifier: { value: 'c-1' } },
          { url: 'identifier', valueIdentifier: { value: 'c-2' } },
          { url: 'specimenQuantity', valueQuantity: { value: 3, unit: 'mL' } },
          { url: 'description', valueString: 'tube' },
          { url: 'additive', valueCodeableConcept: cc('edta') },
        ],
      },
      { url: `${XVER}Specimen.container`, id: 'second', extension: [{ url: 'type', valueCodeableConcept: cc('cup') }, { url: 'capacity', valueQuantity: { value: 50, unit: 'mL' } }] },
    ]);
    expect(specimen.drops).toEqual([]);
    const immunization = await imported({
      resourceType: 'Immunization',
      status: 'completed',
      vaccineCode: cc('v'),
      patient: ref('Patient/1'),
      occurrenceDateTime: '2024-01-01',
      protocolApplied: [{ doseNumberPositiveInt: 2, seriesDosesPositiveInt: 3 }],
    });
    expect(immunization.out.protocolApplied).toEqual([{ doseNumber: '2', seriesDoses: '3' }]);
    expect(immunization.drops).toEqual([]);
  });

  it('and still reports what is truly dropped there: a container\'s modifier extension, a key R4 does not define', async () => {
    const { out, drops } = await imported({
      resourceType: 'Specimen',
      subject: ref('Patient/1'),
      container: [{ description: 'tube', modifierExtension: [{ url: 'http://x.example/m', valueBoolean: true }], nonsense: 'x' }],
    });
    expect(out.extension).toEqual([{ url: `${XVER}Specimen.container`, extension: [{ url: 'description', valueString: 'tube' }] }]);
    expect(drops.map((d) => [d.path, d.kind])).toEqual([
      ['Specimen.container[0].modifierExtension', 'no-place'],
      ['Specimen.container[0].nonsense', 'unknown-element'],
    ]);
  });
});

describe('the compiler refuses a fact whose paths or types do not exist, that can never apply, or a stored type\'s drop without a reason', () => {
  const compiledWith = (change: (facts: ConversionFact[]) => ConversionFact[]) => () => compileConversion(change([...CONVERSION_FACTS]));
  const add = (fact: ConversionFact) => compiledWith((facts) => [...facts, fact]);

  it('compiles the team\'s facts', () => {
    expect(compileConversion().files.size).toBeGreaterThan(180);
  });

  it('an R4 path that does not exist', () => {
    expect(add({ from: 'Location.nonsense', to: 'Location.name', reason: 'x' })).toThrow(/name no R4 element: Location.nonsense/);
    expect(add({ from: 'Medication.amount.nonsense', to: 'Medication.totalVolume', reason: 'x' })).toThrow(/name no R4 element/);
  });

  it('an R5 path that does not exist, also through a datatype', () => {
    expect(add({ from: 'Location.alias', to: 'Location.nonsense', reason: 'x' })).toThrow(/Location.alias -> Location.nonsense: no R5 element/);
    expect(add({ from: 'Location.alias', to: 'Location.contact.nonsense', reason: 'x' })).toThrow(/no R5 element/);
  });

  it('a value that does not convert to the R5 type', () => {
    expect(add({ from: 'Location.alias', to: 'Location.contact.telecom', reason: 'x' })).toThrow(/no R5 element of a type the R4 value converts to/);
    expect(compiledWith((facts) => facts.map((f) => (f.from === 'Medication.amount.numerator' ? { ...f, to: 'Medication.doseForm' } : f)))).toThrow(
      /Medication.amount.numerator -> Medication.doseForm/,
    );
  });

  it('a fact under a backbone that goes nowhere', () => {
    expect(add({ from: 'Organization.contact.name', to: 'Organization.name', reason: 'x' })).toThrow(/can never apply: its parent Organization.contact goes nowhere/);
    // Nor under one kept in a cross-version extension: its children are the extension's.
    expect(add({ from: 'Specimen.container.description', to: 'Specimen.note', reason: 'x' })).toThrow(/can never apply: its parent Specimen.container goes nowhere/);
  });

  it('a cross-version extension of an element that is not this one or an ancestor, of a repeating ancestor, or of a value an extension cannot hold', () => {
    const replaced = (from: string, change: Partial<ConversionFact>) => compiledWith((facts) => facts.map((f) => (f.from === from ? { ...f, ...change } : f)));
    expect(replaced('Encounter.diagnosis.rank', { inExtensionOf: 'Encounter.status' })).toThrow(/not this element or an ancestor/);
    expect(replaced('Encounter.diagnosis.rank', { inExtensionOf: 'Encounter.diagnosis' })).toThrow(/Encounter.diagnosis repeats/);
    expect(replaced('Medication.form', { inExtensionOf: 'Medication.form' })).toThrow(/only an element with no R5 element/);
    expect(add({ from: 'CarePlan.contained', to: null, inExtensionOf: 'CarePlan.contained', reason: 'x' })).toThrow(/Extension.value\[x\] takes no CarePlan.contained: Resource/);
  });

  it('a stored type\'s element with no rule and no fact saying why', () => {
    expect(compiledWith((facts) => facts.filter((f) => f.from !== 'CareTeam.encounter'))).toThrow(/CareTeam.encounter has no R5 rule and no conversion fact saying why/);
  });
});
