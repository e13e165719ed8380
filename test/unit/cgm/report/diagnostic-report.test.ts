/**
 * The report as an R5 DiagnosticReport in the CGM guide's shape (its PDF report, `cgm-summary-pdf`):
 * the guide's category and code, the period as the summary writes it, the summary panel among its
 * results, the PDF whole in presentedForm; valid to the R5 validator, alone and in a Bundle with the
 * summary it presents.
 */
import { PDFDocument } from 'pdf-lib';
import { describe, expect, it } from 'vitest';
import { cgmEntries, cgmResources } from '../../../../shared/cgm/fhir';
import { agpDiagnosticReport } from '../../../../shared/cgm/report/diagnostic-report';
import { fixedClock } from '../../../../shared/cgm/zones';
import { hasErrors, validateResource } from '../../../../shared/fhir/validation';
import { GENERATED_AT, OFFSET, reportOf, variedTrace } from './fixtures';

async function expectValid(resource: unknown): Promise<void> {
  const issues = await validateResource(resource);
  expect(hasErrors(issues), JSON.stringify(issues.filter((i) => i.severity === 'error'))).toBe(false);
}

describe('the AGP report as a DiagnosticReport', async () => {
  const { summary, pdf } = await reportOf(variedTrace(14), 14);
  let next = 0;
  const resources = cgmResources(summary, { subject: 'Patient/7', periodClock: fixedClock(OFFSET), fullUrlOf: () => `urn:uuid:00000000-0000-4000-8000-${String((next += 1)).padStart(12, '0')}` });
  const report = agpDiagnosticReport(summary, pdf, { subject: 'Patient/7', results: [resources.summary.fullUrl], issued: GENERATED_AT, periodClock: fixedClock(OFFSET) });

  it('is final, coded and categorised as the guide codes its PDF report, about the patient and the period', () => {
    expect(report).toMatchObject({
      resourceType: 'DiagnosticReport',
      status: 'final',
      category: [{ coding: [{ system: 'http://terminology.hl7.org/CodeSystem/v2-0074', code: 'LAB' }] }],
      code: { coding: [{ system: 'http://loinc.org', code: '107931-8' }] },
      subject: { reference: 'Patient/7' },
      effectivePeriod: { start: '2026-03-01', end: '2026-03-14' },
      issued: '2026-03-15T09:30:00Z',
      result: [{ reference: resources.summary.fullUrl }],
    });
    expect(report.effectivePeriod).toEqual(resources.summary.resource.effectivePeriod);
  });

  it('carries the PDF whole as its presented form', async () => {
    const [form, ...others] = report.presentedForm as Array<Record<string, string>>;
    expect(others).toEqual([]);
    expect(form).toMatchObject({ contentType: 'application/pdf', title: 'Ambulatory Glucose Profile (AGP) report, 2026-03-01 – 2026-03-14', creation: '2026-03-15T09:30:00Z' });
    const bytes = Buffer.from(form!.data!, 'base64');
    expect(bytes.equals(Buffer.from(pdf))).toBe(true);
    expect((await PDFDocument.load(bytes)).getPageCount()).toBe(1);
  });

  it('is valid R5, alone and in a Bundle with the summary it presents', async () => {
    await expectValid(report);
    await expectValid({ resourceType: 'Bundle', type: 'collection', entry: [...cgmEntries(resources), { fullUrl: 'urn:uuid:00000000-0000-4000-8000-000000000099', resource: report }] });
  });

  it('must reference the summary it presents', () => {
    expect(() => agpDiagnosticReport(summary, pdf, { subject: 'Patient/7', results: [], issued: GENERATED_AT })).toThrow(RangeError);
  });
});
