import { describe, expect, it } from 'vitest';
import { callerFromToken } from '../../../shared/auth/authenticate';
import { verifyPassword } from '../../../shared/auth/passwords';
import { patientScope, studyScope } from '../../../shared/auth/scope';
import { listCodes } from '../../../shared/directory/code-table';
import { consentedCodeIds } from '../../../shared/directory/consents';
import { getDataSources, listSupportedCodes } from '../../../shared/directory/data-sources';
import { getOrganizations } from '../../../shared/directory/organizations';
import { getPatients } from '../../../shared/directory/patients';
import { getStudy, listStudyCodes, listStudyDataSourceIds, listStudyPatientIds } from '../../../shared/directory/studies';
import { getUserByEmail } from '../../../shared/directory/users';
import { DEMO_PATIENT_EMAIL, DEMO_PRACTITIONER_EMAIL, demoDirectory } from '../../../local/demo-directory';
import { tokenFor } from '../../support/directory';

describe('demo directory', () => {
  it('seeds the demo world with stable ids and prints the accounts', async () => {
    const ctx = { notes: [] as string[] };
    await demoDirectory.run(ctx);

    const [health, cardiology] = await getOrganizations([1, 2]);
    expect(health).toMatchObject({ id: 1, name: 'Demo Health System' });
    expect(cardiology).toMatchObject({ id: 2, partOf: 1 });

    const practitioner = await getUserByEmail(DEMO_PRACTITIONER_EMAIL);
    expect(practitioner).toMatchObject({ id: 1, kind: 'practitioner', roles: new Map([[1, 'manager'], [2, 'manager']]) });
    const password = /password (\S+)/.exec(ctx.notes.join('\n'))?.[1];
    expect(await verifyPassword(password!, practitioner!.passwordHash)).toBe(true);

    const patientUser = await getUserByEmail(DEMO_PATIENT_EMAIL);
    const [withLogin, withoutLogin] = await getPatients([1, 2]);
    expect(patientUser).toMatchObject({ kind: 'patient', patientId: 1 });
    // The demo patient's own random password, printed like the practitioner's (to sign in at /o/authorize/).
    const patientPassword = new RegExp(`${DEMO_PATIENT_EMAIL}  password (\\S+)`).exec(ctx.notes.join('\n'))?.[1];
    expect(patientPassword).not.toBe(password);
    expect(await verifyPassword(patientPassword!, patientUser!.passwordHash)).toBe(true);
    expect(withLogin).toMatchObject({ userId: patientUser!.id, organizationIds: [1, 2], studyIds: [1] });
    expect(withoutLogin?.userId).toBeUndefined();

    const codes = await listCodes();
    expect(codes).toHaveLength(20);
    const study = await getStudy(1);
    expect(study).toMatchObject({ organizationId: 2 });
    expect((await listStudyCodes(1)).map((c) => c.id)).toEqual(codes.map((c) => c.id));
    expect(await listStudyPatientIds(1)).toEqual([1]);
    expect(await consentedCodeIds(1)).toEqual(new Set(codes.map((c) => c.id)));
    expect((await getDataSources([1, 2, 3])).map((d) => d.type)).toEqual(['personal_device', 'medical_device', 'patient_app']);
    expect(await listStudyDataSourceIds(1)).toEqual([1, 2, 3]);
    expect(await listSupportedCodes(1)).toHaveLength(20);

    const notes = ctx.notes.join('\n');
    expect(notes).toContain(DEMO_PRACTITIONER_EMAIL);
    expect(notes).toContain(DEMO_PATIENT_EMAIL);
    expect(notes).toContain('npm run --silent token -- practitioner');

    // What the demo accounts see.
    const asPractitioner = await callerFromToken(await tokenFor(practitioner as never));
    expect((await patientScope(asPractitioner)).patientIds).toEqual([1, 2]);
    const asPatient = await callerFromToken(await tokenFor(withLogin!));
    expect((await patientScope(asPatient)).patientIds).toEqual([1]);
    expect(await studyScope(asPatient)).toEqual([1]);
  });
});
