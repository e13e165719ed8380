import { describe, expect, it } from 'vitest';
import { getUserByEmail } from '../../../shared/directory/users';
import { DEMO_PATIENT_EMAIL, DEMO_PRACTITIONER_EMAIL, OTHER_PATIENT_EMAIL, OTHER_PRACTITIONER_EMAIL } from '../../../local/demo-directory';
import { call } from '../../support/invoke';
import { SEED_STEPS } from '../../../local/seed';
import { DAYS } from '../../../local/demo-observations';
import { GLUCOSE_PER_DAY } from '../../../local/demo-readings';
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
    expect(count).toBeGreaterThan(DAYS * GLUCOSE_PER_DAY + 500);
    const perPatient = await search(doctorToken, 'patient=2&_summary=count');
    expect(perPatient.json.total).toBeGreaterThan(50);
    const main = patientUser!.patientId!;
    const total = async (query: string) => (await search(doctorToken, `patient=${main}&${query}&_summary=count`)).json.total as number;

    // Every form of effective time appears among the main patient's heart rates, and their values vary with the day.
    const heartRates = await search(doctorToken, `patient=${main}&code=omh:heart-rate:2.0&_count=1000`);
    const bodies = heartRates.json.entry.map((e: any) => JSON.parse(Buffer.from(e.resource.valueAttachment.data, 'base64').toString()).body);
    const forms = new Set(bodies.map((body: any) => formOf(body.effective_time_frame)));
    for (const form of ['date_time', 'start_end', 'start_duration', 'end_duration', 'date_part_of_day']) expect(forms).toContain(form);
    expect(new Set(bodies.map((body: any) => body.heart_rate.value)).size).toBeGreaterThan(10);
    // The daily workouts' peaks, found by value.
    expect(await total('code=omh:heart-rate:2.0&value-quantity=gt100')).toBeGreaterThan(50);
    expect(await total('code=omh:heart-rate:2.0&value-quantity=lt60')).toBeGreaterThan(20);
    // Blood pressures above 140 systolic on some days.
    expect(await total('component-code-value-quantity=http://loinc.org|8480-6$gt140')).toBeGreaterThan(0);
    // The glucose sensor: every 15 minutes for 14 days, some night lows.
    expect(await total('code=omh:blood-glucose:4.0')).toBe(DAYS * GLUCOSE_PER_DAY);
    expect(await total('code=omh:blood-glucose:4.0&value-quantity=lt70')).toBeGreaterThan(0);
    expect(await total('code=omh:blood-glucose:4.0&value-quantity=gt180')).toBeGreaterThan(0);
    // One reading at least of every known type: each code's latest.
    const latest = await call('GET', `/FHIR/R5/Observation/$lastn?patient=${main}`, { token: doctorToken });
    expect(new Set(latest.json.entry.map((e: any) => e.resource.code.coding[0].code)).size).toBeGreaterThanOrEqual(TABLE_CODES.length);

    // The demo patient's first upload of every known type, from the demo device, succeeds.
    const patientToken = await tokenFor({ id: patientUser!.patientId!, userId: patientUser!.id } as never);
    const world = { patient: { id: patientUser!.patientId! } as never, device: { id: 1 } as never };
    const res = await upload(patientToken, TABLE_CODES.map((code) => observation(world, { code })));
    expect(statusesOf(res)).toEqual(TABLE_CODES.map(() => '201 Created'));

    // The second organization: each practitioner sees their own organization's patients and readings only.
    const otherPractitioner = await getUserByEmail(OTHER_PRACTITIONER_EMAIL);
    const otherPatientUser = await getUserByEmail(OTHER_PATIENT_EMAIL);
    const jordan = otherPatientUser!.patientId!;
    expect(ctx.notes.join('\n')).toContain('npm run --silent token -- other-practitioner');
    const otherToken = await tokenFor(otherPractitioner as never);
    const patientsOf = async (token: string) => (await call('GET', '/FHIR/R5/Patient', { token })).json.entry.map((e: any) => Number(e.resource.id));
    expect(await patientsOf(otherToken)).toEqual([jordan]);
    expect(await patientsOf(doctorToken)).not.toContain(jordan);
    const jordansReadings = await search(otherToken, `patient=${jordan}&_summary=count`);
    expect(jordansReadings.json.total).toBeGreaterThan(40);
    expect((await search(otherToken, `patient=${patientUser!.patientId}`)).status).toBe(403);
    expect((await search(doctorToken, `patient=${jordan}`)).status).toBe(403);
    const jordanToken = await tokenFor({ id: jordan, userId: otherPatientUser!.id } as never);
    expect((await search(jordanToken, '_summary=count')).json.total).toBe(jordansReadings.json.total);
  });
});
