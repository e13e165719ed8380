/**
 * A patient's CGM summary over a period (docs/cgm.md#the-operation-patientidcgm-summary): the
 * consensus's metrics and the ambulatory glucose profile of their glucose sensor's readings, from the
 * day summaries' digests and the readings of the period's partial days (period.ts). The typed
 * result is what the FHIR operation renders (answer.ts) and the assistants' tool shows.
 *
 * Who may ask is decided as `$stats` decides it (`subjectPatient`): the patient themself, a
 * practitioner of one of their organizations (or their study's), a backend service with
 * `system/Observation.rs`. Naming anyone else is out of reach (a 403, as a practitioner naming
 * an out-of-reach patient in `$stats`), and a patient naming another is refused the same way,
 * whether that patient exists or not.
 */
import type { Caller } from '../../auth/caller';
import { summaryOf, type CgmSummary } from '../../cgm/metrics';
import type { GlucoseUnit } from '../../cgm/units';
import type { Clock } from '../../cgm/zones';
import { outOfReach } from '../../failures';
import { allCodes } from '../code-table-cache';
import { subjectPatient } from '../stats/operation';
import { periodDigest, type DigestSources, type SensorCode } from './period';
import { holdsSensorReadings } from './readings';
import { resolvePeriod, targetsOf, type CgmRequest } from './request';
import { emptyDigest } from '../../cgm/digest';

export interface CgmResult {
  patientId: number;
  summary: CgmSummary;
  unit: GlucoseUnit;
  /** The clock the period's ends are written on (the request's time zone, or UTC). */
  clock: Clock;
  sources: DigestSources;
  /** The code table's blood glucose code the readings were read under (absent in a table without one). */
  code?: SensorCode;
}

/** The code table's blood glucose code, whose readings may be a sensor's (undefined in a table without one). */
export async function sensorCode(): Promise<SensorCode | undefined> {
  const code = (await allCodes()).find((c) => holdsSensorReadings(c.code));
  return code && { codeId: code.id, schemaCode: code.code };
}

/** The summary of the request's period of the patient's sensor readings, for the caller. */
export async function glucoseSummary(caller: Caller, request: CgmRequest, now = Date.now()): Promise<CgmResult> {
  const { period, clock } = resolvePeriod(request, now);
  const patientId = await subjectPatient(caller, request.subject);
  if (patientId === undefined) throw outOfReach('A patient may ask only for their own glucose summary.');
  const code = await sensorCode();
  const { digest, sources } = code ? await periodDigest(patientId, code, period) : { digest: emptyDigest(), sources: { daysFromDigests: 0, hoursFromDigests: 0, readingsRead: 0 } };
  return { patientId, summary: summaryOf(digest, { period, targets: targetsOf(request) }), unit: request.unit ?? 'mg/dL', clock, sources, ...(code ? { code } : {}) };
}
