/** The demo data of `npm start`: a FHIR Source for the demo patient with two resources, findable through the API. */
import { describe, expect, it } from 'vitest';
import { demoAuxiliary } from '../../../local/demo-auxiliary';
import { DEMO_PATIENT_EMAIL, demoDirectory } from '../../../local/demo-directory';
import { getPatient } from '../../../shared/directory/patients';
import { getUserByEmail } from '../../../shared/directory/users';
import { sourceUriPrefix } from '../../../shared/fhir/constants';
import { tokenFor } from '../../support/directory';
import { call } from '../../support/invoke';

describe('demo auxiliary data', () => {
  it('gives the demo patient a FHIR Source holding a Condition and an AllergyIntolerance', async () => {
    const ctx = { notes: [] as string[] };
    await demoDirectory.run(ctx);
    await demoAuxiliary.run(ctx);
    const sourceId = /FHIR Source (\d+) of patient/.exec(ctx.notes.join('\n'))?.[1];
    expect(sourceId).toBeDefined();
    const user = await getUserByEmail(DEMO_PATIENT_EMAIL);
    const token = await tokenFor((await getPatient(user!.patientId!))!);
    const conditions = await call('GET', `/FHIR/R5/Condition?_source=${sourceUriPrefix()}${sourceId}`, { token });
    expect(conditions.json.entry.map((e: any) => e.resource.code.text)).toEqual(['High blood pressure']);
    const allergies = await call('GET', '/FHIR/R5/AllergyIntolerance?code=91936005', { token });
    expect(allergies.json.total).toBe(1);
  });
});
