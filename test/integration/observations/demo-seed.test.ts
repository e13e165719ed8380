import { describe, expect, it } from 'vitest';
import { getUserByEmail } from '../../../shared/directory/users';
import { DEMO_PATIENT_EMAIL, DEMO_PRACTITIONER_EMAIL } from '../../../local/demo-directory';
import { SEED_STEPS } from '../../../local/seed';
import { tokenFor } from '../../support/directory';
import { observation, search, statusesOf, TABLE_CODES, upload } from '../../support/observations';
import { formOf } from '../../../shared/omh/samples';

describe('the demo data of npm start', () => {
  it('seeds readings of several types in every form, and a newcomer can upload every known type at once', async () => {
    const ctx = { notes: [] as string[] };
    for (const step of SEED_STEPS) await step.run(ctx);
    expect(ctx.notes.join('\n')).toMatch(/Observations +\d+ demo readings/);

    const practitioner = await getUserByEmail(DEMO_PRACTITIONER_EMAIL);
    const patientUser = await getUserByEmail(DEMO_PATIENT_EMAIL);
    const doctorToken = await tokenFor(practitioner as never);
    const count = (await search(doctorToken, '_summary=count')).json.total;
    expect(count).toBeGreaterThan(250);
    const perPatient = await search(doctorToken, 'patient=2&_summary=count');
    expect(perPatient.json.total).toBeGreaterThan(50);

    // Every form of effective time appears among the main patient's readings.
    const all = await search(doctorToken, `patient=${patientUser!.patientId}&_count=1000`);
    const forms = new Set(
      all.json.entry.map((e: any) => formOf(JSON.parse(Buffer.from(e.resource.valueAttachment.data, 'base64').toString()).body.effective_time_frame)),
    );
    for (const form of ['date_time', 'start_end', 'start_duration', 'end_duration', 'date_part_of_day']) expect(forms).toContain(form);
    expect(new Set(all.json.entry.map((e: any) => e.resource.code.coding[0].code)).size).toBeGreaterThanOrEqual(TABLE_CODES.length);

    // The demo patient's first upload of every known type, from the demo device, succeeds.
    const patientToken = await tokenFor({ id: patientUser!.patientId!, userId: patientUser!.id } as never);
    const world = { patient: { id: patientUser!.patientId! } as never, device: { id: 1 } as never };
    const res = await upload(patientToken, TABLE_CODES.map((code) => observation(world, { code })));
    expect(statusesOf(res)).toEqual(TABLE_CODES.map(() => '201 Created'));
  }, 120_000);
});
