/**
 * The demo directory of `npm start`: an organization with a sub-organization, a practitioner with a
 * password, two patients (one with a login), a study requesting every code of the code table (the
 * patient with a login enrolled and consenting to all of them), data sources of every type, and the
 * code table. It runs first on an empty store, so the ids are always the same (printed in the banner).
 */
import { hashPassword } from '../shared/auth/passwords';
import { randomAlphanumeric } from '../shared/secrets';
import { ensureCodes } from '../shared/directory/code-table';
import { DEMO_CODES, SEEDED_CODES } from '../shared/directory/codes';
import { recordConsents } from '../shared/directory/consents';
import { addSupportedCode, createDataSource } from '../shared/directory/data-sources';
import { createOrganization } from '../shared/directory/organizations';
import { createPatient } from '../shared/directory/patients';
import { addStudyCode, addStudyDataSource, createStudy, enrollPatients } from '../shared/directory/studies';
import { createPractitioner } from '../shared/directory/users';
import type { SeedStep } from './seed-step';
import { tokenCommand } from './commands';

export const DEMO_PRACTITIONER_EMAIL = 'practitioner@example.org';
export const DEMO_PATIENT_EMAIL = 'patient@example.org';
/** The second organization's accounts (`demo-second-organization.ts`), to try the access rules across organizations. */
export const OTHER_PRACTITIONER_EMAIL = 'clinician@lakeside.example.org';
export const OTHER_PATIENT_EMAIL = 'jordan@lakeside.example.org';

/** `npm run token -- <who>`: the words it understands besides an email address. */
export const DEMO_ACCOUNTS: ReadonlyMap<string, string> = new Map([
  ['practitioner', DEMO_PRACTITIONER_EMAIL],
  ['patient', DEMO_PATIENT_EMAIL],
  ['other-practitioner', OTHER_PRACTITIONER_EMAIL],
  ['other-patient', OTHER_PATIENT_EMAIL],
]);

export const demoDirectory: SeedStep = {
  name: 'directory',
  run: async (ctx) => {
    const codes = await ensureCodes([...SEEDED_CODES, ...DEMO_CODES]);
    const health = await createOrganization({ name: 'Demo Health System', type: 'prov' });
    const cardiology = await createOrganization({ name: 'Cardiology Research', type: 'dept', partOf: health.id });

    const password = randomAlphanumeric(16);
    const patientPassword = randomAlphanumeric(16);
    const practitioner = await createPractitioner({
      email: DEMO_PRACTITIONER_EMAIL,
      passwordHash: await hashPassword(password),
      nameFamily: 'Morgan',
      nameGiven: 'Dana',
      organizations: [
        { organizationId: health.id, role: 'manager' },
        { organizationId: cardiology.id, role: 'manager' },
      ],
    });
    const withLogin = await createPatient({
      nameFamily: 'Rivera',
      nameGiven: 'Alex',
      birthDate: '1984-03-12',
      telecomPhone: '+1-555-0100',
      telecomEmail: DEMO_PATIENT_EMAIL,
      identifiers: [{ system: 'https://demo.example.org/mrn', value: 'MRN-0001' }],
      organizationIds: [health.id, cardiology.id],
      // A password as well as invitations: the demo patient can sign an assistant in (/o/authorize/) and see its connections.
      account: { passwordHash: await hashPassword(patientPassword) },
    });
    const withoutLogin = await createPatient({
      nameFamily: 'Chen',
      nameGiven: 'Sam',
      birthDate: '1990-11-02',
      identifiers: [{ system: 'https://demo.example.org/mrn', value: 'MRN-0002' }],
      organizationIds: [health.id],
    });

    const wearable = await createDataSource({ name: 'Demo Wearable', type: 'personal_device' });
    const monitor = await createDataSource({ name: 'Demo Clinic Monitor', type: 'medical_device' });
    const app = await createDataSource({ name: 'Demo Health App', type: 'patient_app' });
    for (const code of codes) await addSupportedCode(wearable.id, code.id);

    const study = await createStudy({
      organizationId: cardiology.id,
      name: 'Heart Health Pilot',
      description: 'Demo study: home measurements from wearables and apps.',
    });
    for (const code of codes) await addStudyCode(study.id, code.id);
    for (const source of [wearable, monitor, app]) await addStudyDataSource(study.id, source.id);
    await enrollPatients(study.id, [withLogin.id]);
    await recordConsents(
      withLogin.id,
      codes.map((c) => ({ studyId: study.id, codeId: c.id, consented: true })),
    );

    ctx.notes.push(
      '  Demo accounts',
      `    practitioner  ${DEMO_PRACTITIONER_EMAIL}  password ${password}  (Practitioner/${practitioner.id}, manager of organizations ${health.id} and ${cardiology.id})`,
      `    patient       ${DEMO_PATIENT_EMAIL}  password ${patientPassword}  (Patient/${withLogin.id}, ${withLogin.nameGiven} ${withLogin.nameFamily}; also signs in by invitation)`,
      `    A token:      ${tokenCommand('practitioner')}   (or: patient, other-practitioner, other-patient, or an email; valid 15 min)`,
      `  Demo data      organizations ${health.id} (${health.name}) > ${cardiology.id} (${cardiology.name}); ` +
        `patients ${withLogin.id} (login), ${withoutLogin.id} (no login); study Group/${study.id} (${study.name}); ` +
        `data sources ${wearable.id} (personal_device), ${monitor.id} (medical_device), ${app.id} (patient_app); ${codes.length} codes`,
    );
  },
};
