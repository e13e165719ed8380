/**
 * The AGP report as an R5 DiagnosticReport in the shape of the CGM guide's PDF report
 * (`cgm-summary-pdf`; docs/cgm.md#the-report): status `final`, category LAB (v2 table 0074, as the
 * guide's examples and its write scope `DiagnosticReport.cu?category=LAB` have it), coded with the
 * summary panel's LOINC code 107931-8, the patient, the period as the summary Observations write it,
 * when it was issued, `result` referencing the summary panel (and whatever else the caller lists),
 * and the PDF as `presentedForm`. Like the Observations (fhir.ts) it names no `meta.profile`: the
 * guide's profile is an R4 StructureDefinition.
 */
import { isoInstant } from '../../omh/datetime';
import { LOINC_SYSTEM, SUMMARY_PANEL } from '../codes';
import type { FhirResource } from '../fhir';
import type { CgmSummary } from '../metrics';
import { periodEnds, periodText } from './format';
import { UTC_CLOCK, type Clock } from '../zones';
import { REPORT_TITLE } from './header';

/** HL7 v2 table 0074, diagnostic service section: the guide's category for the report. */
const DIAGNOSTIC_SERVICE_SECTIONS = 'http://terminology.hl7.org/CodeSystem/v2-0074';

export interface AgpDiagnosticReportOptions {
  /** The patient's reference, `Patient/<id>`. */
  subject: string;
  /** References to the summary panel first (the guide requires it), then any other Observation the report presents. */
  results: readonly string[];
  /** When the report was made (epoch ms): `issued`, and the PDF's `creation`; the `generatedAt` it was rendered with. */
  issued: number;
  /** The clock the period is written on; UTC when not given. */
  periodClock?: Clock;
}

export function agpDiagnosticReport(summary: CgmSummary, pdf: Uint8Array, options: AgpDiagnosticReportOptions): FhirResource {
  if (options.results.length === 0) throw new RangeError('the report must reference the summary panel it presents');
  const clock = options.periodClock ?? UTC_CLOCK;
  const issued = isoInstant(options.issued);
  return {
    resourceType: 'DiagnosticReport',
    status: 'final',
    category: [{ coding: [{ system: DIAGNOSTIC_SERVICE_SECTIONS, code: 'LAB', display: 'Laboratory' }] }],
    code: { coding: [{ system: LOINC_SYSTEM, ...SUMMARY_PANEL }], text: REPORT_TITLE },
    subject: { reference: options.subject },
    effectivePeriod: periodEnds(summary.period, clock),
    issued,
    result: options.results.map((reference) => ({ reference })),
    presentedForm: [
      {
        contentType: 'application/pdf',
        data: Buffer.from(pdf.buffer, pdf.byteOffset, pdf.byteLength).toString('base64'),
        title: `${REPORT_TITLE}, ${periodText(summary.period, clock)}`,
        creation: issued,
      },
    ],
  };
}
