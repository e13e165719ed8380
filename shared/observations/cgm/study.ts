/**
 * A study's CGM table (docs/cgm.md#a-study-groupidcgm-summary): for each patient the study reaches
 * (its enrolled patients still in its organization, as every study read scopes them: `patientScope`
 * with the study, here read with the check that the caller may read it, `assertCanReadStudyScope`,
 * so the study is read once) whose study requests blood glucose, the same summary `$cgm-summary`
 * answers for them alone, over one period. Each row is made as the patient's own is (operation.ts):
 * the whole days from the day summaries' digests, the edges' whole hours from the hours' digests,
 * at most two parts of hours from their readings, so the work is a few key reads per patient, side
 * by side, whatever the readings. A row holds metrics, not
 * the profile, so only the digests' figures are read (`periodFigures`).
 *
 * A practitioner of the study's organization (or a backend service) gets every participant; a patient
 * enrolled in the study gets their own row only, as a study search shows them; anyone else a 404, as
 * reading the Group is.
 */
import pMap from 'p-map';
import type { Caller } from '../../auth/caller';
import { assertCanReadStudyScope } from '../../auth/scope';
import { metricsOf, type CgmMetrics } from '../../cgm/metrics';
import type { GlucoseUnit } from '../../cgm/units';
import type { Clock } from '../../cgm/zones';
import type { Id } from '../../directory/model';
import { sensorCode } from './operation';
import { periodFigures } from './period';
import { resolvePeriod, targetsOf, type CgmRequest } from './request';

/** Participants summarised at once: each is a Query of days and a BatchGetItem of hours, then at most a read of two parts of hours. */
const CONCURRENCY = 16;

export interface StudyCgmResult {
  studyId: Id;
  period: { from: number; to: number };
  clock: Clock;
  unit: GlucoseUnit;
  /** Per participant whose study requests blood glucose, in patient id order. */
  rows: Array<{ patientId: Id; summary: CgmMetrics }>;
}

export type StudyCgmRequest = Omit<CgmRequest, 'subject'>;

export async function studyGlucoseSummary(caller: Caller, studyId: Id, request: StudyCgmRequest, now = Date.now()): Promise<StudyCgmResult> {
  const { period, clock } = resolvePeriod(request, now);
  const [{ scope }, code] = await Promise.all([assertCanReadStudyScope(caller, studyId), sensorCode()]);
  const targets = targetsOf(request);
  const participants = code ? scope.patientIds.filter((id) => (scope.codesByPatient?.get(id) ?? []).some((c) => c.id === code.codeId)) : [];
  const rows = await pMap(
    participants,
    async (patientId) => ({ patientId, summary: metricsOf((await periodFigures(patientId, code!, period)).digest, { period, targets }) }),
    { concurrency: CONCURRENCY },
  );
  return { studyId, period, clock, unit: request.unit ?? 'mg/dL', rows };
}
