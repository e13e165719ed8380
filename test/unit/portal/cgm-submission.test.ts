/** The CGM guide's data submission from a report: what goes, about whom, in which version, how the hospital takes it, and the waves of a batch. */
import { describe, expect, it } from 'vitest';
import { SUMMARY_PANEL } from '../../../shared/cgm/codes';
import { loincOf, reportEntries } from '../../../shared/portal/cgm-view';
import {
  entryNeeds, hospitalWrites, referencesOf, savedReference, submissionBundle, submissionEntries, submissionWaves, withSavedReferences, type SubmissionEntry,
} from '../../../shared/portal/cgm-submission';
import { reportBundle, variedTrace } from './cgm-reports';

const BASE = 'https://fhir.hospital.example/r4';
const capabilities = (fhirVersion: string, rest: Record<string, unknown>) => ({ resourceType: 'CapabilityStatement', fhirVersion, rest: [{ mode: 'server', ...rest }] });

describe('the data submission', async () => {
  const report = await reportBundle(variedTrace(14));
  const all = reportEntries(report);
  const r5 = submissionEntries(report, 'hosp-42', false);
  const r4 = submissionEntries(report, 'hosp-42', true);

  it('sends the summary, its six members and the PDF report, not the profile, about the hospital’s patient', () => {
    expect(r5.map((e) => [e.resource.resourceType, loincOf(e.resource)])).toEqual([
      ['Observation', '107931-8'],
      ['Observation', '97507-8'],
      ['Observation', '106793-3'],
      ['Observation', '97506-0'],
      ['Observation', '104638-2'],
      ['Observation', '104636-6'],
      ['Observation', '104637-4'],
      ['DiagnosticReport', '107931-8'],
    ]);
    for (const e of [...r5, ...r4]) expect(e.resource.subject).toEqual({ reference: 'Patient/hosp-42' });
    const profileUrl = all[7]!.fullUrl;
    expect(referencesOf(r5[0]!.resource)).toEqual(['Patient/hosp-42', ...all.slice(1, 7).map((e) => e.fullUrl)]);
    expect(JSON.stringify(r5)).not.toContain(profileUrl);
    expect(r5.map((e) => e.fullUrl)).toEqual([...all.slice(0, 7), all[8]!].map((e) => e.fullUrl));
  });

  it('keeps R5 as the report has it, and in R4 names the guide’s profiles', () => {
    expect(r5[1]!.resource).toEqual({ ...all[1]!.resource, subject: { reference: 'Patient/hosp-42' } });
    expect(r5.some((e) => 'meta' in e.resource)).toBe(false);
    expect(r4.every((e) => (e.resource.meta as { profile: string[] }).profile[0]!.startsWith('http://hl7.org/fhir/uv/cgm/StructureDefinition/cgm-summary'))).toBe(true);
  });

  it('is a transaction POSTing every entry, naming the guide’s submission profile in R4', () => {
    const bundle = submissionBundle(r4, 'transaction', true, '2026-03-15T09:30:00Z');
    expect(bundle).toMatchObject({ resourceType: 'Bundle', type: 'transaction', timestamp: '2026-03-15T09:30:00Z', meta: { profile: ['http://hl7.org/fhir/uv/cgm/StructureDefinition/cgm-data-submission-bundle'] } });
    expect((bundle.entry as any[]).map((e) => e.request)).toEqual(r4.map((e) => ({ method: 'POST', url: e.resource.resourceType })));
    expect((bundle.entry as any[]).map((e) => e.fullUrl)).toEqual(r4.map((e) => e.fullUrl));
    expect(submissionBundle(r5, 'batch', false, '2026-03-15T09:30:00Z')).not.toHaveProperty('meta');
  });

  it('goes in waves when the hospital cannot resolve references: the members, the summary, the report', () => {
    const waves = submissionWaves(r5);
    expect(waves.map((w) => w.map((e) => loincOf(e.resource)))).toEqual([['97507-8', '106793-3', '97506-0', '104638-2', '104636-6', '104637-4'], [SUMMARY_PANEL.code], [SUMMARY_PANEL.code]]);
    expect(waves[2]![0]!.resource.resourceType).toBe('DiagnosticReport');
    expect(entryNeeds(r5[7]!, r5)).toEqual([r5[0]]);
    const circle: SubmissionEntry[] = [
      { fullUrl: 'urn:uuid:a', resource: { resourceType: 'Observation', hasMember: [{ reference: 'urn:uuid:b' }] } },
      { fullUrl: 'urn:uuid:b', resource: { resourceType: 'Observation', hasMember: [{ reference: 'urn:uuid:a' }] } },
    ];
    expect(() => submissionWaves(circle)).toThrow(RangeError);
  });

  it('rewrites references to where the hospital saved the earlier entries', () => {
    const saved = new Map(r5.slice(1, 7).map((e, i) => [e.fullUrl, `Observation/m${i}`]));
    expect(referencesOf(withSavedReferences(r5[0]!.resource, saved))).toEqual(['Patient/hosp-42', 'Observation/m0', 'Observation/m1', 'Observation/m2', 'Observation/m3', 'Observation/m4', 'Observation/m5']);
    expect(savedReference('Observation/123/_history/1', BASE)).toBe('Observation/123');
    expect(savedReference(`${BASE}/DiagnosticReport/abc-1/_history/2`, BASE)).toBe('DiagnosticReport/abc-1');
    expect(savedReference('Observation/123', BASE)).toBe('Observation/123');
    expect(savedReference('https://elsewhere.example/Observation/1', BASE)).toBeUndefined();
    expect(savedReference(undefined, BASE)).toBeUndefined();
  });

  it('takes the guide’s operation, else a transaction, else a batch, else one POST each, in the hospital’s FHIR version', () => {
    const operation = { operation: [{ name: 'submit-cgm-bundle', definition: 'http://hl7.org/fhir/uv/cgm/OperationDefinition/submit-cgm-bundle' }], interaction: [{ code: 'transaction' }] };
    expect(hospitalWrites(capabilities('4.0.1', operation))).toEqual({ fhirVersion: '4.0.1', r4: true, route: 'submit-cgm-bundle' });
    expect(hospitalWrites(capabilities('4.0.1', { interaction: [{ code: 'batch' }, { code: 'transaction' }] })).route).toBe('transaction');
    expect(hospitalWrites(capabilities('5.0.0', { interaction: [{ code: 'batch' }] }))).toEqual({ fhirVersion: '5.0.0', r4: false, route: 'batch' });
    expect(hospitalWrites(capabilities('4.3.0', {}))).toEqual({ fhirVersion: '4.3.0', r4: true, route: 'each' });
    expect(hospitalWrites(undefined)).toEqual({ fhirVersion: '', r4: false, route: 'each' });
    // A client's rest entry says nothing of what the server takes.
    expect(hospitalWrites({ fhirVersion: '5.0.0', rest: [{ mode: 'client', interaction: [{ code: 'transaction' }] }] }).route).toBe('each');
  });
});
