/** What the glucose page says about a send: names and contents of what was sent, each answer of the hospital in plain words, the line above the list. */
import { describe, expect, it } from 'vitest';
import { submissionEntries } from '../../../shared/portal/cgm-submission';
import {
  bundleOutcomes, entryOutcome, hospitalDiagnostics, notSentBecause, outcomeSentence, refusalReason, sendSummary, sentName, sentWhat, UNREACHABLE, writeOutcome, type SendOutcome,
} from '../../../shared/portal/send-report';
import { reportBundle, variedTrace } from './cgm-reports';

const BASE = 'http://127.0.0.1:9/fhir/r4';
const outcome = (...issues: Array<Record<string, unknown>>) => ({ resourceType: 'OperationOutcome', issue: issues });

describe('the send in plain words', async () => {
  const entries = submissionEntries(await reportBundle(variedTrace(14)), 'p', false);

  it('names each sent resource as a patient knows it, with what it holds', () => {
    expect(entries.map((e) => [sentName(e.resource), sentWhat(e.resource)])).toEqual([
      ['Glucose summary', 'The period 2026-03-01 to 2026-03-14'],
      ['Average glucose', '150.4 mg/dL'],
      ['Time in ranges', 'very low 4.12%, low 8.81%, in range 47.58%, high 36.97%, very high 2.53%'],
      ['Glucose management indicator (GMI)', '6.91%'],
      ['Glucose variability (CV)', '43.25%'],
      ['Days with sensor readings', '14 days'],
      ['Time the sensor was active', '98.21%'],
      ['AGP report (PDF)', expect.stringMatching(/^A PDF of one page, \d+ KB$/)],
    ]);
    expect(sentName({ resourceType: 'Observation', code: { coding: [{ system: 'http://loinc.org', code: '1-8' }] } })).toBe('Observation');
    expect(sentWhat({ resourceType: 'Observation', dataAbsentReason: {} })).toBe('No figure (no readings)');
  });

  it('says why the hospital refused, in words, with its own reasons shortened', () => {
    expect(refusalReason(403, outcome({ severity: 'error', code: 'forbidden', diagnostics: 'scope' }))).toBe('Your hospital did not let the portal add it: the permission to add these records was not given.');
    expect(refusalReason(401, undefined)).toBe('Your sign-in at the hospital expired before it was saved. Send again to finish.');
    expect(refusalReason(405, undefined)).toBe('Your hospital does not accept these records from apps.');
    expect(refusalReason(422, outcome({ severity: 'error', code: 'processing', diagnostics: '  The period\n must be whole days. ' }, { severity: 'warning', diagnostics: 'ignored' }))).toBe(
      'Your hospital refused it: The period must be whole days.',
    );
    expect(refusalReason(400, outcome({ severity: 'error', details: { text: 'Unknown code' } }))).toBe('Your hospital refused it: Unknown code');
    expect(refusalReason(409, {})).toBe('Your hospital refused it (error 409).');
    expect(refusalReason(500, outcome({ severity: 'error', diagnostics: 'NullPointerException at …' }))).toBe('Your hospital’s server answered with an error (error 500). Please try again later.');
    const long = hospitalDiagnostics(outcome({ severity: 'error', diagnostics: 'x'.repeat(500) }))!;
    expect(long).toHaveLength(200);
    expect(long.endsWith('…')).toBe(true);
    expect(hospitalDiagnostics(outcome({ severity: 'error', diagnostics: 'Same' }, { severity: 'fatal', diagnostics: 'Same' }))).toBe('Same');
    expect(hospitalDiagnostics('nothing')).toBeUndefined();
  });

  it('reads each answer: a write’s status and location, a response entry’s', () => {
    expect(writeOutcome(201, undefined, `${BASE}/Observation/9/_history/1`, BASE)).toEqual({ state: 'saved', reference: 'Observation/9' });
    expect(writeOutcome(201, { resourceType: 'Observation', id: '10' }, null, BASE)).toEqual({ state: 'saved', reference: 'Observation/10' });
    expect(writeOutcome(201, { resourceType: 'OperationOutcome' }, null, BASE)).toEqual({ state: 'saved', reference: undefined });
    expect(writeOutcome(422, outcome({ severity: 'error', diagnostics: 'No.' }), null, BASE)).toEqual({ state: 'refused', status: 422, reason: 'Your hospital refused it: No.' });
    expect(entryOutcome({ response: { status: '201 Created', location: 'DiagnosticReport/4/_history/1' } }, BASE)).toEqual({ state: 'saved', reference: 'DiagnosticReport/4' });
    expect(entryOutcome({ response: { status: '403 Forbidden' } }, BASE)).toMatchObject({ state: 'refused', status: 403 });
    expect(entryOutcome(undefined, BASE)).toEqual({ state: 'not-sent', reason: 'Your hospital gave no answer for it, so it may not have been saved.' });
  });

  it('reads a Bundle’s answers entry by entry, or its refusal as a whole for every entry', () => {
    const response = { resourceType: 'Bundle', type: 'transaction-response', entry: [{ response: { status: '201 Created', location: 'Observation/1/_history/1' } }, { response: { status: '422 Unprocessable Entity' } }] };
    expect(bundleOutcomes(200, response, 3, BASE)).toEqual([
      { state: 'saved', reference: 'Observation/1' },
      { state: 'refused', status: 422, reason: 'Your hospital refused it (error 422).' },
      { state: 'not-sent', reason: 'Your hospital gave no answer for it, so it may not have been saved.' },
    ]);
    const whole = bundleOutcomes(422, outcome({ severity: 'error', diagnostics: 'Bad period.' }), 2, BASE);
    expect(whole).toEqual(Array(2).fill({ state: 'refused', status: 422, reason: 'Your hospital refused it: Bad period.' }));
  });

  it('puts a line under each resource and one above the list', () => {
    const saved: SendOutcome = { state: 'saved', reference: 'Observation/9' };
    const refused: SendOutcome = { state: 'refused', status: 403, reason: refusalReason(403, undefined) };
    const held: SendOutcome = { state: 'not-sent', reason: notSentBecause(['Glucose summary']) };
    expect(outcomeSentence(saved)).toBe('Saved at your hospital (Observation/9).');
    expect(outcomeSentence({ state: 'saved', reference: undefined })).toBe('Saved at your hospital.');
    expect(outcomeSentence(refused)).toBe('Not saved. Your hospital did not let the portal add it: the permission to add these records was not given.');
    expect(outcomeSentence(held)).toBe('Not sent, because what it refers to was not saved: Glucose summary.');
    expect(notSentBecause(['Average glucose', 'GMI'])).toBe('Not sent, because what it refers to was not saved: Average glucose, GMI.');
    expect(outcomeSentence({ state: 'not-sent', reason: UNREACHABLE })).toBe(UNREACHABLE);
    expect(sendSummary([saved, saved], 'Mercy')).toBe('Sent to Mercy: all 2 records were saved.');
    expect(sendSummary([saved, refused, held], 'Mercy')).toBe('Sent to Mercy: 1 of 3 records were saved; the list below says why the others were not.');
    expect(sendSummary([refused, held], 'Mercy')).toBe('Nothing was saved at Mercy. The list below says why.');
  });
});
