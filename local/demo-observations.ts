/**
 * Demo readings of `npm start`, written through the upload path the API uses (the same checks,
 * the same store), as the demo practitioner: two weeks of readings that look like a person's
 * (`demo-readings.ts`: a heart rate with a daily rhythm and workouts, blood pressures, a glucose
 * sensor's trace every 15 minutes, ...) in every effective-time form for the patient with a login
 * (enrolled in the demo study, consenting to every code), and a smaller activity study with heart
 * rate and steps for the second patient. Runs after the directory step, on an empty store.
 */
import type { Caller } from '../shared/auth/caller';
import { issueAccessToken } from '../shared/auth/tokens';
import { callerFromToken } from '../shared/auth/authenticate';
import { config } from '../shared/config';
import { listCodes } from '../shared/directory/code-table';
import { recordConsents } from '../shared/directory/consents';
import { listDataSources } from '../shared/directory/data-sources';
import type { Code, Id } from '../shared/directory/model';
import { getPatient, listPatientIdsOfOrganization } from '../shared/directory/patients';
import { addStudyCode, addStudyDataSource, createStudy, enrollPatients } from '../shared/directory/studies';
import { getUserByEmail } from '../shared/directory/users';
import { FHIR_BASES } from '../shared/http/families';
import { chunksOf } from '../shared/lists';
import { AUXILIARY_NOT_AVAILABLE } from '../shared/observations/auxiliary-handover';
import { processEntries } from '../shared/observations/create/process';
import { sampleAttachment, formsFor, type SampleOptions } from '../shared/omh/samples';
import { DEMO_PATIENT_EMAIL, DEMO_PRACTITIONER_EMAIL } from './demo-directory';
import {
  bloodPressures,
  bodyWeights,
  glucoseTrace,
  heartRates,
  oxygenSaturations,
  sleepEpisodes,
  stepCounts,
  workouts,
  type DemoSeries,
} from './demo-readings';
import type { SeedStep } from './seed-step';
import { tokenCommand } from './commands';
import { NO_DEADLINE } from '../shared/http/deadline';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

/** Two weeks for the patient with a login: about 4,600 readings (4,032 of them the glucose sensor's), every form of time frame. */
export const MAIN_PATIENT: readonly DemoSeries[] = [
  heartRates({ person: 1, hours: 1, forms: ['date_time', 'start_end', 'start_duration', 'end_duration', 'date_part_of_day'], spanMinutes: 5, workouts: true }),
  stepCounts,
  bloodPressures,
  sleepEpisodes,
  bodyWeights,
  oxygenSaturations,
  workouts,
  glucoseTrace,
];

/** The second patient's activity study. */
const SECOND_PATIENT: readonly DemoSeries[] = [heartRates({ person: 2, hours: 6, forms: ['date_time'], workouts: false }), stepCounts];

export const DAYS = 14;

/** Readings of the series for one patient over the demo's days up to `until` (an hour boundary). */
export function observations(patientId: Id, deviceId: Id, series: readonly DemoSeries[], codes: readonly Code[], until: number, everyType: boolean): unknown[] {
  const reading = (code: Code, options: SampleOptions) => ({
    resourceType: 'Observation',
    status: 'final',
    code: { coding: [{ system: code.system, code: code.code }] },
    subject: { reference: `Patient/${patientId}` },
    device: { reference: `Device/${deviceId}` },
    valueAttachment: sampleAttachment(code.code, options),
  });
  const window = { from: until - DAYS * DAY, until };
  const out: unknown[] = series.flatMap(({ code: name, readings }) => {
    const code = codes.find((c) => c.code === name)!;
    return readings(window).map(({ at, form, spanMinutes, members }) => reading(code, { at, form, members, ...(spanMinutes ? { spanMinutes } : {}) }));
  });
  // With `everyType`, one reading of every other mobile-health code, so each type has an example.
  for (const code of everyType ? codes : []) {
    if (series.some((s) => s.code === code.code) || formsFor(code.code).length === 0) continue;
    out.push(reading(code, { at: until - DAY }));
  }
  return out;
}

/**
 * Uploads demo readings as `caller` through the API's upload path, a batch upload's worth
 * (`MAX_BUNDLE_ENTRIES`) at a time, as a device would send them; any refusal stops the seed.
 */
export async function uploadDemoReadings(caller: Caller, resources: readonly unknown[]): Promise<void> {
  for (const batch of chunksOf(resources, config().maxBundleEntries)) {
    const results = await processEntries(
      batch.map((resource) => ({ ok: true as const, type: 'Observation', resource })),
      { caller, origin: config().siteUrl, base: FHIR_BASES[0], auxiliary: AUXILIARY_NOT_AVAILABLE, deadline: NO_DEADLINE, noun: 'reading' },
    );
    const failed = results.find((r) => r.status !== 201);
    if (failed) throw new Error(`demo readings refused: ${JSON.stringify(failed.outcome)}`);
  }
}

export const demoObservations: SeedStep = {
  name: 'observations',
  run: async (ctx) => {
    const practitioner = await getUserByEmail(DEMO_PRACTITIONER_EMAIL);
    const patientUser = await getUserByEmail(DEMO_PATIENT_EMAIL);
    const device = (await listDataSources()).find((d) => d.type === 'personal_device');
    if (!practitioner || patientUser?.patientId === undefined || !device) throw new Error('the observation demo needs the demo directory');
    const codes = await listCodes();
    const main = await getPatient(patientUser.patientId);
    const secondId = main && (await listPatientIdsOfOrganization(main.organizationIds[0]!)).find((id) => id !== main.id);
    const second = secondId === undefined ? undefined : await getPatient(secondId);
    if (!main || !second) throw new Error('the observation demo needs both demo patients');

    const activity = await createStudy({ organizationId: second.organizationIds[0]!, name: 'Activity Pilot', description: 'Demo study: heart rate and steps.' });
    const activityCodes = codes.filter((c) => SECOND_PATIENT.some((p) => p.code === c.code));
    for (const code of activityCodes) await addStudyCode(activity.id, code.id);
    await addStudyDataSource(activity.id, device.id);
    await enrollPatients(activity.id, [second.id]);
    await recordConsents(second.id, activityCodes.map((c) => ({ studyId: activity.id, codeId: c.id, consented: true })));

    const { accessToken } = await issueAccessToken({ userId: practitioner.id, kind: 'practitioner', scope: 'openid' });
    const caller = await callerFromToken(accessToken);
    const until = Math.floor(Date.now() / HOUR) * HOUR;
    const resources = [...observations(main.id, device.id, MAIN_PATIENT, codes, until, true), ...observations(second.id, device.id, SECOND_PATIENT, codes, until, false)];
    await uploadDemoReadings(caller, resources);
    ctx.notes.push(
      `  Observations   ${resources.length} demo readings (last ${DAYS} days) of patients ${main.id} and ${second.id}; study Group/${activity.id} (${activity.name}) for patient ${second.id}`,
      `    Search:       curl -H "Authorization: Bearer $(${tokenCommand('patient')})" "${config().siteUrl}/FHIR/R5/Observation?code=omh:heart-rate:2.0&value-quantity=gt120&date=ge${new Date(until - DAY).toISOString().slice(0, 10)}"  (the workouts since yesterday)`,
    );
  },
};
