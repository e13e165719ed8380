/**
 * A second demo organization, so the access rules can be tried on one machine: Lakeside Clinic with
 * its own practitioner (a manager, with a password) and a patient with a login (Jordan Lee), enrolled
 * in its own study of heart rate and steps, with two weeks of readings uploaded as that patient. Each
 * organization's practitioner sees only its own patients; each patient only themselves.
 */
import { callerFromToken } from '../shared/auth/authenticate';
import { hashPassword } from '../shared/auth/passwords';
import { randomAlphanumeric } from '../shared/secrets';
import { issueAccessToken } from '../shared/auth/tokens';
import { listCodes } from '../shared/directory/code-table';
import { recordConsents } from '../shared/directory/consents';
import { listDataSources } from '../shared/directory/data-sources';
import { createOrganization } from '../shared/directory/organizations';
import { createPatient } from '../shared/directory/patients';
import { addStudyCode, addStudyDataSource, createStudy, enrollPatients } from '../shared/directory/studies';
import { createPractitioner } from '../shared/directory/users';
import { tokenCommand } from './commands';
import { OTHER_PATIENT_EMAIL, OTHER_PRACTITIONER_EMAIL } from './demo-directory';
import { observations, uploadDemoReadings } from './demo-observations';
import { heartRates, stepCounts, type DemoSeries } from './demo-readings';
import type { SeedStep } from './seed-step';

const HOUR = 3_600_000;
const PLAN: readonly DemoSeries[] = [heartRates({ person: 3, hours: 4, forms: ['date_time'], workouts: false }), stepCounts];

export const demoSecondOrganization: SeedStep = {
  name: 'second organization',
  run: async (ctx) => {
    const codes = (await listCodes()).filter((c) => PLAN.some((p) => p.code === c.code));
    const device = (await listDataSources()).find((d) => d.type === 'personal_device');
    if (codes.length !== PLAN.length || !device) throw new Error('the second organization needs the demo code table and wearable');

    const clinic = await createOrganization({ name: 'Lakeside Clinic', type: 'prov' });
    const password = randomAlphanumeric(16);
    const practitioner = await createPractitioner({
      email: OTHER_PRACTITIONER_EMAIL,
      passwordHash: await hashPassword(password),
      nameFamily: 'Okafor',
      nameGiven: 'Chidi',
      organizations: [{ organizationId: clinic.id, role: 'manager' }],
    });
    const patient = await createPatient({
      nameFamily: 'Lee',
      nameGiven: 'Jordan',
      birthDate: '1979-06-30',
      telecomEmail: OTHER_PATIENT_EMAIL,
      identifiers: [{ system: 'https://lakeside.example.org/mrn', value: 'LK-0001' }],
      organizationIds: [clinic.id],
      account: {},
    });
    const study = await createStudy({ organizationId: clinic.id, name: 'Lakeside Steps', description: 'Demo study of the second organization: heart rate and steps.' });
    for (const code of codes) await addStudyCode(study.id, code.id);
    await addStudyDataSource(study.id, device.id);
    await enrollPatients(study.id, [patient.id]);
    await recordConsents(patient.id, codes.map((c) => ({ studyId: study.id, codeId: c.id, consented: true })));

    // Uploaded as the patient, the way their device would.
    const { accessToken } = await issueAccessToken({ userId: patient.userId!, kind: 'patient', patientId: patient.id, scope: 'openid' });
    const caller = await callerFromToken(accessToken);
    const until = Math.floor(Date.now() / HOUR) * HOUR;
    const readings = observations(patient.id, device.id, PLAN, codes, until, false);
    await uploadDemoReadings(caller, readings);

    ctx.notes.push(
      `  Second organization ${clinic.id} (${clinic.name}), to try the access rules: each practitioner sees only their own organization's patients`,
      `    practitioner  ${OTHER_PRACTITIONER_EMAIL}  password ${password}  (Practitioner/${practitioner.id}, manager of organization ${clinic.id}); token: ${tokenCommand('other-practitioner')}`,
      `    patient       ${OTHER_PATIENT_EMAIL}  (Patient/${patient.id}, ${patient.nameGiven} ${patient.nameFamily}; ${readings.length} readings, study Group/${study.id}); token: ${tokenCommand('other-patient')}`,
    );
  },
};
