/**
 * Demo readings of `npm start`, written through the upload path the API uses (the same checks,
 * the same store), as the demo practitioner: two weeks of readings of several types in every
 * effective-time form for the patient with a login (enrolled in the demo study, consenting to every
 * code), and a smaller activity study with heart rate and steps for the second patient. Runs after
 * the directory step, on an empty store.
 */
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
import { AUXILIARY_NOT_AVAILABLE } from '../shared/observations/auxiliary-handover';
import { processEntries } from '../shared/observations/create/process';
import { sampleAttachment, formsFor, type EffectiveForm, type SampleOptions } from '../shared/omh/samples';
import { DEMO_PATIENT_EMAIL, DEMO_PRACTITIONER_EMAIL } from './demo-directory';
import type { SeedStep } from './seed-step';
import { tokenCommand } from './commands';
import { NO_DEADLINE } from '../shared/http/deadline';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

interface Plan {
  code: string;
  /** Hours between readings. */
  every: number;
  /** Forms cycled through (each must be one the code's schema accepts). */
  forms?: readonly EffectiveForm[];
  spanMinutes?: number;
}

/** Two weeks for the patient with a login: about 300 readings, every form of time frame. */
const MAIN_PATIENT: readonly Plan[] = [
  { code: 'omh:heart-rate:2.0', every: 2, forms: ['date_time', 'start_end', 'start_duration', 'end_duration', 'date_part_of_day'], spanMinutes: 5 },
  { code: 'omh:step-count:3.0', every: 24, forms: ['start_end'], spanMinutes: 1440 },
  { code: 'omh:blood-pressure:4.0', every: 12, forms: ['date_time'] },
  { code: 'omh:sleep-episode:1.1', every: 24, forms: ['start_end'], spanMinutes: 450 },
  { code: 'omh:body-weight:3.0', every: 48, forms: ['date_time'] },
  { code: 'omh:oxygen-saturation:2.0', every: 8, forms: ['date_time', 'date_part_of_day'] },
  { code: 'omh:physical-activity:1.2', every: 24, forms: ['start_duration', 'end_duration'], spanMinutes: 40 },
];

/** The second patient's activity study. */
const SECOND_PATIENT: readonly Plan[] = [
  { code: 'omh:heart-rate:2.0', every: 6, forms: ['date_time'] },
  { code: 'omh:step-count:3.0', every: 24, forms: ['start_end'], spanMinutes: 1440 },
];

const DAYS = 14;

/** Readings of the plans for one patient, hourly steps back from `until` over the demo's days. */
export function observations(patientId: Id, deviceId: Id, plans: readonly Plan[], codes: readonly Code[], until: number, everyType: boolean): unknown[] {
  const reading = (code: Code, options: SampleOptions) => ({
    resourceType: 'Observation',
    status: 'final',
    code: { coding: [{ system: code.system, code: code.code }] },
    subject: { reference: `Patient/${patientId}` },
    device: { reference: `Device/${deviceId}` },
    valueAttachment: sampleAttachment(code.code, options),
  });
  const out: unknown[] = [];
  for (const plan of plans) {
    const code = codes.find((c) => c.code === plan.code)!;
    const forms = (plan.forms ?? formsFor(plan.code)).filter((f) => formsFor(plan.code).includes(f));
    let n = 0;
    for (let at = until - DAYS * DAY; at < until; at += plan.every * HOUR, n += 1) {
      out.push(reading(code, { at, form: forms[n % forms.length]!, ...(plan.spanMinutes ? { spanMinutes: plan.spanMinutes } : {}) }));
    }
  }
  // With `everyType`, one reading of every other mobile-health code, so each type has an example.
  for (const code of everyType ? codes : []) {
    if (plans.some((p) => p.code === code.code) || formsFor(code.code).length === 0) continue;
    out.push(reading(code, { at: until - DAY }));
  }
  return out;
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
    const results = await processEntries(
      resources.map((resource) => ({ ok: true as const, type: 'Observation', resource })),
      { caller, origin: config().siteUrl, base: FHIR_BASES[0], auxiliary: AUXILIARY_NOT_AVAILABLE, deadline: NO_DEADLINE, noun: 'reading' },
    );
    const failed = results.filter((r) => r.status !== 201);
    if (failed.length > 0) throw new Error(`demo observations refused: ${JSON.stringify(failed[0]!.outcome)}`);
    ctx.notes.push(
      `  Observations   ${results.length} demo readings (last ${DAYS} days) of patients ${main.id} and ${second.id}; study Group/${activity.id} (${activity.name}) for patient ${second.id}`,
      `    Search:       curl -H "Authorization: Bearer $(${tokenCommand('patient')})" "${config().siteUrl}/FHIR/R5/Observation?code=omh:heart-rate:2.0&date=ge${new Date(until - DAY).toISOString().slice(0, 10)}"`,
    );
  },
};
