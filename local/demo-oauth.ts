/**
 * Demo data of the OAuth server for `npm start`: the service's own clients (the patient portal,
 * with its invitation link template, and the landing page's sign-in), and one outstanding
 * invitation for the demo patient without a login, whose link goes into the banner.
 */
import { findPatientByIdentifier, getPatient } from '../shared/directory/patients';
import { getOAuthClient } from '../shared/directory/oauth-clients';
import { getUserByEmail } from '../shared/directory/users';
import { issueInvitation } from '../shared/oauth/invitations';
import { PASSWORD_PATH } from '../shared/oauth/pages';
import { ensureServiceClients, PORTAL_CLIENT_ID, WEB_CLIENT_ID } from '../shared/oauth/service-clients';
import { DEMO_PRACTITIONER_EMAIL } from './demo-directory';
import type { SeedStep } from './seed-step';

/** The demo patient without a login (see `demo-directory.ts`). */
const INVITED_PATIENT = { system: 'https://demo.example.org/mrn', value: 'MRN-0002' };

/** A fresh portal invitation for the demo patient without a login (earlier ones become `reissued`). */
export async function inviteDemoPatient() {
  await ensureServiceClients();
  const portal = (await getOAuthClient(PORTAL_CLIENT_ID))!;
  const patientId = await findPatientByIdentifier(INVITED_PATIENT.system, INVITED_PATIENT.value);
  const patient = patientId === undefined ? undefined : await getPatient(patientId);
  if (!patient) return undefined;
  const practitioner = await getUserByEmail(DEMO_PRACTITIONER_EMAIL);
  const issued = await issueInvitation({ patient, client: portal, sendEmail: false, ...(practitioner ? { createdBy: practitioner.id } : {}) });
  return { patient, portal, issued };
}

export const demoOAuth: SeedStep = {
  name: 'oauth',
  run: async (ctx) => {
    const invited = await inviteDemoPatient();
    if (!invited) return;
    const { patient, portal, issued } = invited;
    ctx.notes.push(
      `  OAuth clients  ${PORTAL_CLIENT_ID} (patient portal, app id ${portal.id}), ${WEB_CLIENT_ID} (practitioner sign-in on the start page)`,
      `  Invitation     for Patient/${patient.id} (${patient.nameGiven} ${patient.nameFamily}), valid until ${issued.invitation.expires}:`,
      `                 ${issued.invitationLink}`,
      `                 (or, to sign an assistant in as this patient, set a password with it at ${new URL(PASSWORD_PATH, issued.invitationLink).href})`,
    );
  },
};
