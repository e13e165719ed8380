/** The whole record's kinds, the narrowed searches, the busy answers and the report's sentences. */
import { describe, expect, it } from 'vitest';
import { offeredTypes, PULLED_TYPES, READ_SCOPES, RECORD_KINDS, searchUrl } from '../../../shared/portal/pulls';
import { addResult, BUSY_REASON, importResults, retryAfterSeconds, writeResult } from '../../../shared/portal/records';
import { IMPORT_AGAIN_NOTE, kindReport, kindSentence, reasonLines, summarySentence, totalOf } from '../../../shared/portal/report';

const kind = (key: string) => RECORD_KINDS.find((k) => k.key === key)!;

describe('what the portal reads', () => {
  it('reads Patient and 15 clinical types, Observations as laboratory results and vital signs', () => {
    expect(PULLED_TYPES).toEqual([
      'Patient',
      'Condition',
      'MedicationRequest',
      'MedicationDispense',
      'AllergyIntolerance',
      'Immunization',
      'Procedure',
      'Observation',
      'DiagnosticReport',
      'DocumentReference',
      'Encounter',
      'CarePlan',
      'CareTeam',
      'Goal',
      'ServiceRequest',
      'QuestionnaireResponse',
    ]);
    expect(RECORD_KINDS.filter((k) => k.type === 'Observation').map((k) => k.search)).toEqual([{ category: 'laboratory' }, { category: 'vital-signs' }]);
    expect(READ_SCOPES).toContain('patient/QuestionnaireResponse.read');
  });

  it('builds the plain and the narrowed searches', () => {
    expect(searchUrl(kind('laboratory'), 'p 1')).toBe('Observation?patient=p+1&category=laboratory');
    expect(searchUrl(kind('Condition'), 'p1', kind('Condition').narrowed![0]![1])).toBe('Condition?patient=p1&category=encounter-diagnosis');
    expect(searchUrl(kind('MedicationRequest'), 'p1', kind('MedicationRequest').narrowed![0]![0])).toMatch(/^MedicationRequest\?patient=p1&status=active%2Con-hold%2C.*completed/);
  });

  it('reads the types a CapabilityStatement offers for search, or none when it lists none', () => {
    const capabilities = { rest: [{ resource: [{ type: 'Patient', interaction: [{ code: 'read' }] }, { type: 'Condition', interaction: [{ code: 'search-type' }] }, { type: 'Goal' }] }] };
    expect(offeredTypes(capabilities)).toEqual(new Set(['Condition', 'Goal']));
    expect(offeredTypes({ rest: [{}] })).toBeUndefined();
    expect(offeredTypes('nonsense')).toBeUndefined();
  });
});

describe('busy answers', () => {
  it('marks a 503 entry as worth sending again, and reads Retry-After within bounds', () => {
    expect(writeResult(503, undefined)).toEqual({ stored: false, busy: true, reasons: [BUSY_REASON] });
    expect(importResults({ entry: [{ response: { status: '503 Service Unavailable' } }, { response: { status: '201 Created' } }] }, 2).map((r) => r.busy ?? false)).toEqual([true, false]);
    expect([null, '', 'soon', '-1', '0', '2', '600'].map(retryAfterSeconds)).toEqual([1, 1, 1, 1, 1, 2, 30]);
  });
});

describe('the report', () => {
  it('says "saved with some details left out" as a part of "saved", per kind and in all', () => {
    const labs = kindReport(kind('laboratory'));
    for (let i = 0; i < 23; i += 1) addResult(labs.tally, { stored: true, reasons: [] });
    addResult(labs.tally, { stored: true, reasons: ['"issued" has no place in FHIR R5 and was left out'] });
    addResult(labs.tally, { stored: false, reasons: ['The value of "status" is not one FHIR R5 allows'] });
    expect(kindSentence(labs)).toBe('24 of 25 records saved (1 of them with some details left out). 1 could not be saved.');
    expect(reasonLines(labs.tally.failures)).toEqual(['The value of "status" is not one FHIR R5 allows (1 record)']);
    const goals = kindReport(kind('Goal'));
    addResult(goals.tally, { stored: true, reasons: [] });
    expect(kindSentence(goals)).toBe('1 of 1 record saved.');
    expect(summarySentence(totalOf([labs, goals]), 'Mercy Health')).toBe('Saved 25 of 26 records from Mercy Health. 1 of the saved records has some details left out. 1 record could not be saved.');
  });

  it('says what happened to a kind that was not read, and to a hospital with nothing', () => {
    expect(kindSentence(kindReport(kind('Goal'), 'not-offered'))).toBe('Your hospital does not offer these records.');
    expect(kindSentence(kindReport(kind('Goal'), 'not-shared'))).toMatch(/did not share/);
    expect(kindSentence(kindReport(kind('Goal'), 'refused'))).toMatch(/would not let/);
    expect(kindSentence(kindReport(kind('Goal')))).toBe('None at your hospital.');
    expect(summarySentence(totalOf([]), 'X')).toBe('Your hospital (X) had no records to share.');
    expect(IMPORT_AGAIN_NOTE).toMatch(/second copy/);
  });
});
