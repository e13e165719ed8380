/**
 * THE FHIR rendering of a CGM summary (operation.ts's typed result): a `collection` Bundle of the
 * summary panel, its members and the ambulatory glucose profile, as shared/cgm/fhir.ts renders them
 * in the shapes of HL7's CGM guide, their references the entries' `fullUrl`s; with the AGP report
 * (report.ts), its DiagnosticReport last, presenting the summary panel. The operation's one output
 * is this Bundle, so it is the answer's body itself (FHIR's rule for an operation whose only output
 * is one resource named `return`).
 *
 * The `fullUrl`s are `urn:uuid:`s named by the question (operation, patient, period, unit, targets)
 * and the entry's place, not drawn at random: the same question answers the same ids, so two answers
 * (two callers', or one asked again) compare entry by entry, and a different question never shares one.
 */
import { createHash } from 'node:crypto';
import { cgmEntries, cgmResources, effectivePeriodOf, shownPercent } from '../../cgm/fhir';
import { BANDS } from '../../cgm/thresholds';
import { shownGlucose } from '../../cgm/units';
import { UCUM_SYSTEM } from '../../omh/quantities';
import { agpDiagnosticReport } from '../../cgm/report/diagnostic-report';
import type { CgmResult } from './operation';
import type { StudyCgmResult } from './study';

/** A UUID (RFC 9562 version 8: its bits the service's own) named by a text: the first 128 bits of its SHA-256. */
function namedUuid(text: string): string {
  const bytes = createHash('sha256').update(text).digest().subarray(0, 16);
  bytes[6] = (bytes[6]! & 0x0f) | 0x80;
  bytes[8] = (bytes[8]! & 0x3f) | 0x80;
  const hex = bytes.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/** The AGP report's PDF and when it was made, for the answer's DiagnosticReport. */
export interface RenderedReport {
  pdf: Uint8Array;
  generatedAt: number;
}

export function cgmBundle(result: CgmResult, now = Date.now(), report?: RenderedReport): Record<string, unknown> {
  const { summary } = result;
  const operation = report ? 'cgm-report' : 'cgm-summary';
  const question = [operation, result.patientId, summary.period.from, summary.period.to, result.unit, summary.glucose?.targets.map((t) => `${t.metric}${t.comparator}${t.percent}`).join(',') ?? ''].join('|');
  let entry = 0;
  const fullUrlOf = () => `urn:uuid:${namedUuid(`${question}|${(entry += 1)}`)}`;
  const subject = `Patient/${result.patientId}`;
  const resources = cgmResources(summary, { subject, unit: result.unit, periodClock: result.clock, fullUrlOf });
  const entries = cgmEntries(resources).map(({ fullUrl, resource }) => ({ fullUrl, resource }));
  if (report) {
    const diagnosticReport = agpDiagnosticReport(summary, report.pdf, { subject, results: [resources.summary.fullUrl], issued: report.generatedAt, periodClock: result.clock });
    entries.push({ fullUrl: fullUrlOf(), resource: diagnosticReport });
  }
  return { resourceType: 'Bundle', type: 'collection', timestamp: new Date(now).toISOString(), entry: entries };
}

/**
 * A study's CGM table (study.ts) as `Parameters`: the period and unit once, then a `participant`
 * per patient, its parts the columns a notebook reads (`pandas.json_normalize` on the parts gives a
 * row each): the patient, readings, days of wear, sensor active %, sufficient and why not, and, when
 * the period holds readings, mean glucose and SD in the unit asked, GMI, CV and the five bands' shares (%).
 */
export function studyParameters(result: StudyCgmResult): Record<string, unknown> {
  const { unit } = result;
  const decimal = (name: string, value: number) => ({ name, valueDecimal: shownPercent(value) });
  const glucose = (name: string, mgdl: number) => ({ name, valueQuantity: { value: shownGlucose(mgdl, unit), unit, system: UCUM_SYSTEM, code: unit } });
  const participant = ({ patientId, summary }: StudyCgmResult['rows'][number]) => ({
    name: 'participant',
    part: [
      { name: 'patient', valueReference: { reference: `Patient/${patientId}` } },
      { name: 'readings', valueInteger: summary.readings },
      decimal('daysOfWear', summary.daysOfWear),
      decimal('sensorActivePercent', summary.sensorActivePercent),
      { name: 'sufficient', valueBoolean: summary.sufficiency.sufficient },
      ...summary.sufficiency.shortfalls.map((s) => ({ name: 'shortfall', valueCode: s.code })),
      ...(summary.glucose
        ? [
            glucose('mean', summary.glucose.meanMgdl),
            glucose('sd', summary.glucose.sdMgdl),
            decimal('gmiPercent', summary.glucose.gmiPercent),
            decimal('cvPercent', summary.glucose.cvPercent),
            ...BANDS.map((band) => decimal(`${band}Percent`, summary.glucose!.bands[band].percent)),
          ]
        : []),
    ],
  });
  return {
    resourceType: 'Parameters',
    parameter: [
      { name: 'study', valueReference: { reference: `Group/${result.studyId}` } },
      { name: 'period', valuePeriod: effectivePeriodOf(result.period, result.clock) },
      { name: 'unit', valueCode: unit },
      ...result.rows.map(participant),
    ],
  };
}
