/**
 * Each kind of drop warning names its real cause: an element R4 does not define there, a value whose
 * shape does not fit its R4 type, an element R4 has and R5 removed, a value R5 has no place for, a
 * primitive extension; a node all of whose content was dropped names the first cause below it. An
 * R5 resource sent to the R4 import (an R5 Encounter: `class` a list) is said to look like R5, with
 * the R5 endpoint; an R5-only type the service does not store names no endpoint.
 */
import { describe, expect, it } from 'vitest';
import type { EntryResult } from '../../../shared/observations/create/process';
import { convertR4 } from '../../../shared/r4-import/convert';
import { importResult, prepareImport, r5Endpoint } from '../../../shared/r4-import/import';
import { lossReport } from '../../../shared/r4-import/loss';
import { dropIssue } from '../../../shared/r4-import/why';

type Json = Record<string, any>;

const ref = (reference: string) => ({ reference });
const stored: EntryResult = { status: 201, resource: { resourceType: 'X' } };
/** The issues of an entry stored from this R4 resource. */
const issuesOf = (r4: Json): Array<{ severity: string; code: string; diagnostics: string; expression?: string[] }> => {
  const prepared = prepareImport(r4, r4.resourceType);
  expect(prepared.entry.ok).toBe(true);
  return importResult(stored, prepared).outcome!.issue;
};
/** The warning of one dropped path, as any entry of this type would carry it. */
const warningAt = (r4: Json, path: string) => lossReport(r4, convertR4(r4)!).map(dropIssue).find((i) => i.expression?.[0] === path);

describe('drop warnings name the real cause', () => {
  it('an element R4 does not define there (structure)', () => {
    expect(warningAt({ resourceType: 'Condition', subject: ref('Patient/1'), mood: 'good' }, 'Condition.mood')).toEqual({
      severity: 'warning',
      code: 'structure',
      diagnostics: "Condition.mood is not an R4 element (R4's Condition has no mood); it was dropped.",
      expression: ['Condition.mood'],
    });
    expect(warningAt({ resourceType: 'Encounter', status: 'planned', class: { code: 'AMB' }, hospitalization: { mood: 'x' } }, 'Encounter.hospitalization')!.diagnostics).toBe(
      "Encounter.hospitalization was dropped: none of its values was carried; Encounter.hospitalization.mood is not an R4 element (R4's Encounter.hospitalization has no mood).",
    );
  });

  it('a value whose shape does not fit its R4 type (structure): a list for one value, a string for an object, a number for a string', () => {
    const r4 = { resourceType: 'Condition', subject: ref('Patient/1'), code: [{ text: 'a' }], severity: 'high', recordedDate: 20240101 };
    const issues = issuesOf(r4);
    expect(issues.map((i) => [i.expression?.[0], i.code, i.diagnostics])).toEqual([
      ['Condition.code', 'structure', "Condition.code does not fit its R4 type (R4's Condition.code holds one CodeableConcept, and the value is a list); it was dropped."],
      ['Condition.severity', 'structure', "Condition.severity does not fit its R4 type (R4's Condition.severity is a CodeableConcept, a JSON object, and the value is a JSON string); it was dropped."],
      ['Condition.recordedDate', 'structure', "Condition.recordedDate does not fit its R4 type (R4's Condition.recordedDate is a dateTime, a JSON string, and the value is a JSON number); it was dropped."],
    ]);
  });

  it('an element R4 has and R5 removed (not-supported), with the team\'s reason; a type of a choice R5 removed', () => {
    expect(warningAt({ resourceType: 'Coverage', status: 'active', beneficiary: ref('Patient/1'), payor: [ref('Organization/1')] }, 'Coverage.payor')).toEqual({
      severity: 'warning',
      code: 'not-supported',
      diagnostics: 'Coverage.payor is an R4 element R5 removed (R5 has no payor; the payer is split into insurer and paymentBy.party with narrower meanings, so the value is dropped and reported); it was dropped.',
      expression: ['Coverage.payor'],
    });
    const contributor = { resourceType: 'Condition', subject: ref('Patient/1'), extension: [{ url: 'http://x.example/e', valueContributor: { type: 'author', name: 'A' } }] };
    expect(warningAt(contributor, 'Condition.extension[0].valueContributor')!.diagnostics).toBe(
      "Condition.extension[0].valueContributor is an R4 element R5 removed (R5's Extension.value takes no Contributor); it was dropped.",
    );
  });

  it('a value R5 has no place for (not-supported): a code no rule takes, a second value for one element', () => {
    expect(warningAt({ resourceType: 'AllergyIntolerance', patient: ref('Patient/1'), type: 'other' }, 'AllergyIntolerance.type')!.diagnostics).toBe(
      "AllergyIntolerance.type has no place in R5 (R5 takes only 'allergy' or 'intolerance' here); it was dropped.",
    );
    const substance = { resourceType: 'Substance', code: { text: 's' }, instance: [{ expiry: '2025-01-01' }, { expiry: '2026-01-01' }] };
    expect(warningAt(substance, 'Substance.instance[1]')!.diagnostics).toBe(
      "Substance.instance[1] was dropped: none of its values was carried; Substance.instance[1].expiry has no place in R5 (R5's Substance.expiry holds one value, and an earlier value took it).",
    );
  });

  it('a primitive extension (not-supported)', () => {
    expect(warningAt({ resourceType: 'RelatedPerson', patient: ref('Patient/1'), birthDate: '1970', _birthDate: { extension: [{ url: 'http://x.example/e', valueString: 'about' }] } }, 'RelatedPerson._birthDate')).toEqual({
      severity: 'warning',
      code: 'not-supported',
      diagnostics: "RelatedPerson._birthDate holds extensions of a primitive value, which are not carried (it holds the extensions of a primitive value (R4 JSON's sibling object), which this import does not carry); it was dropped.",
      expression: ['RelatedPerson._birthDate'],
    });
  });
});

describe('an R5 resource sent to the R4 import', () => {
  const r5Encounter = {
    resourceType: 'Encounter',
    status: 'completed',
    class: [{ coding: [{ system: 'http://terminology.hl7.org/CodeSystem/v3-ActCode', code: 'AMB' }] }],
    subject: ref('Patient/1'),
    actualPeriod: { start: '2024-03-01T09:00:00Z' },
    reason: [{ value: [{ concept: { text: 'check-up' } }] }],
  };

  it('Encounter.class: R5 has class; the value did not fit R4\'s (one Coding) and the warning says so', () => {
    const warning = warningAt(r5Encounter, 'Encounter.class')!;
    expect(warning.code).toBe('structure');
    expect(warning.diagnostics).toBe("Encounter.class does not fit its R4 type (R4's Encounter.class holds one Coding, and the value is a list); it was dropped.");
    expect(warning.diagnostics).not.toMatch(/no R5 counterpart/);
  });

  it('the entry says it looks like R5 and names the R5 endpoint', () => {
    const issues = issuesOf(r5Encounter);
    expect(issues.filter((i) => i.severity === 'warning').map((i) => i.expression?.[0])).toEqual(['Encounter.class', 'Encounter.actualPeriod', 'Encounter.reason']);
    expect(issues.at(-1)).toEqual({
      severity: 'information',
      code: 'informational',
      diagnostics:
        'This Encounter looks like FHIR R5, not R4: 3 of its elements fit only R5 (class, actualPeriod, reason), 0 only R4. The import read it as R4; to store an R5 resource as sent, post it to /FHIR/R5/Encounter.',
    });
  });

  it('an R4 resource with an element R4 lacks is not said to look like R5 when R4\'s own elements outnumber it', () => {
    const r4 = { resourceType: 'Encounter', status: 'finished', class: { code: 'AMB' }, period: { start: '2024-01-01' }, hospitalization: { reAdmission: { text: 'r' } }, actualPeriod: { start: '2024-01-01' } };
    const issues = issuesOf(r4);
    expect(issues.map((i) => i.expression?.[0])).toEqual(['Encounter.actualPeriod']);
    expect(issues.some((i) => /looks like FHIR R5/.test(i.diagnostics))).toBe(false);
  });
});

describe('advice names only endpoints that exist', () => {
  it('Transport exists only in R5 and the service does not store it: no endpoint named', () => {
    const prepared = prepareImport({ resourceType: 'Transport', status: 'completed', intent: 'order' }, 'Transport');
    expect(prepared.entry).toEqual({
      ok: false,
      status: 400,
      issues: [
        {
          severity: 'error',
          code: 'not-supported',
          diagnostics: 'Transport is not an R4 resource type (it exists only in R5): this service does not store Transport resources in either release.',
          expression: ['Transport'],
        },
      ],
    });
    expect(r5Endpoint('Transport')).toBeUndefined();
  });

  it('an R5 endpoint is named for the stored types only', () => {
    expect(r5Endpoint('Encounter')).toBe('/FHIR/R5/Encounter');
    expect(r5Endpoint('Patient')).toBeUndefined();
    expect(r5Endpoint('Basic')).toBeUndefined();
  });
});
