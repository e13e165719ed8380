import { describe, expect, it } from 'vitest';
import { listConsents } from '../../../shared/directory/consents';
import {
  addPatientIdentifier,
  addPatientToOrganization,
  createPatient,
  createPatientAccount,
  deletePatient,
  findPatientByIdentifier,
  findPatientsByIdentifierValue,
  getPatient,
  getPatients,
  listPatientIdsOfOrganization,
  removePatientFromOrganization,
  updatePatient,
} from '../../../shared/directory/patients';
import { listStudyPatientIds } from '../../../shared/directory/studies';
import { getUser, getUserByEmail } from '../../../shared/directory/users';
import { makeOrganization, makePatient, makeStudy } from '../../support/directory';

const MRN = 'https://hospital.example.test/mrn';

describe('patients', () => {
  it('creates a patient with identifiers, organizations and a login in one transaction', async () => {
    const a = await makeOrganization();
    const b = await makeOrganization();
    const patient = await createPatient({
      nameFamily: 'Okafor',
      nameGiven: 'Ada',
      birthDate: '1970-01-31',
      telecomPhone: '+44 20 7946 0000',
      telecomEmail: 'ada@example.test',
      identifiers: [{ system: MRN, value: '001' }, { system: MRN, value: '001' }, { system: 'urn:other', value: 'X' }],
      organizationIds: [b.id, a.id, a.id],
      account: {},
    });
    expect(patient).toMatchObject({
      nameFamily: 'Okafor',
      birthDate: '1970-01-31',
      identifiers: [{ system: MRN, value: '001' }, { system: 'urn:other', value: 'X' }],
      organizationIds: [a.id, b.id].sort((x, y) => x - y),
      studyIds: [],
    });
    expect(await getPatient(patient.id)).toEqual(patient);
    const user = await getUser(patient.userId!);
    expect(user).toMatchObject({ kind: 'patient', patientId: patient.id, email: 'ada@example.test' });
    expect(await findPatientByIdentifier(MRN, '001')).toBe(patient.id);
    expect(await findPatientsByIdentifierValue('X')).toEqual([patient.id]);
    expect(await listPatientIdsOfOrganization(a.id)).toEqual([patient.id]);
    expect((await getPatients([987654, patient.id])).map((p) => p.id)).toEqual([patient.id]);
  });

  it('refuses an identifier another patient holds, writing nothing of the new patient', async () => {
    const org = await makeOrganization();
    const first = await makePatient({ identifiers: [{ system: MRN, value: 'taken' }] });
    await expect(
      createPatient({ nameFamily: 'Second', identifiers: [{ system: MRN, value: 'taken' }], organizationIds: [org.id], account: { email: 'second@example.test' } }),
    ).rejects.toMatchObject({ status: 409 });
    expect(await findPatientByIdentifier(MRN, 'taken')).toBe(first.id);
    expect(await listPatientIdsOfOrganization(org.id)).toEqual([]);
    expect(await getUserByEmail('second@example.test')).toBeUndefined();
  });

  it('lets exactly one of many concurrent claims of an identifier win', async () => {
    const results = await Promise.allSettled(Array.from({ length: 10 }, () => createPatient({ identifiers: [{ system: MRN, value: 'race' }] })));
    const won = results.filter((r) => r.status === 'fulfilled') as PromiseFulfilledResult<{ id: number }>[];
    expect(won).toHaveLength(1);
    expect(await findPatientByIdentifier(MRN, 'race')).toBe(won[0]!.value.id);
  });

  it('refuses bad input with a clear 400 and changes nothing', async () => {
    const org = await makeOrganization();
    for (const birthDate of ['1970-13-01', '1970-02-30', '70-01-01', "1970-01-01'; DROP TABLE"]) {
      await expect(createPatient({ birthDate, organizationIds: [org.id] }), birthDate).rejects.toMatchObject({ status: 400 });
    }
    await expect(createPatient({ identifiers: [{ system: MRN, value: 'x'.repeat(600) }], organizationIds: [org.id] })).rejects.toMatchObject({ status: 400 });
    await expect(createPatient({ identifiers: [{ system: '', value: 'v' }] })).rejects.toMatchObject({ status: 400 });
    await expect(createPatient({ organizationIds: [987654] })).rejects.toMatchObject({ status: 404 });
    await expect(createPatient({ account: {} })).rejects.toMatchObject({ status: 400 });
    expect(await listPatientIdsOfOrganization(org.id)).toEqual([]);
  });

  it('stores injection-looking text as plain text', async () => {
    const name = `Robert'); DROP TABLE patients;-- <script>alert(1)</script> #PATIENT#1|x`;
    const patient = await makePatient({ nameFamily: name, identifiers: [{ system: 'a#b|c', value: 'PATIENT#1' }] });
    expect((await getPatient(patient.id))?.nameFamily).toBe(name);
    expect(await findPatientByIdentifier('a#b|c', 'PATIENT#1')).toBe(patient.id);
    expect(await findPatientByIdentifier('a', 'b|c#PATIENT#1')).toBeUndefined();
  });

  it('updates demographics and replaces identifiers atomically, freeing the old ones', async () => {
    const patient = await makePatient({ birthDate: '1980-05-05', telecomPhone: '123', identifiers: [{ system: MRN, value: 'old' }, { system: MRN, value: 'keep' }] });
    const updated = await updatePatient(patient.id, { nameGiven: 'New', telecomPhone: null, identifiers: [{ system: MRN, value: 'keep' }, { system: MRN, value: 'new' }] });
    expect(updated.telecomPhone).toBeUndefined();
    expect(updated.birthDate).toBe('1980-05-05');
    expect(await getPatient(patient.id)).toEqual(updated);
    expect(await findPatientByIdentifier(MRN, 'old')).toBeUndefined();
    expect(await findPatientByIdentifier(MRN, 'new')).toBe(patient.id);
    expect(await findPatientByIdentifier(MRN, 'keep')).toBe(patient.id);

    const other = await makePatient({ identifiers: [{ system: MRN, value: 'other' }] });
    await expect(updatePatient(patient.id, { nameGiven: 'Nope', identifiers: [{ system: MRN, value: 'other' }] })).rejects.toMatchObject({ status: 409 });
    expect(await getPatient(patient.id)).toEqual(updated);
    expect(await findPatientByIdentifier(MRN, 'other')).toBe(other.id);
    await expect(updatePatient(987654, { nameGiven: 'x' })).rejects.toMatchObject({ status: 404 });
  });

  it('adds one identifier idempotently (the portal call), 409 for another patient’s', async () => {
    const patient = await makePatient({ identifiers: [{ system: MRN, value: 'mine' }] });
    const other = await makePatient({ identifiers: [{ system: 'https://ehr.example.test', value: 'theirs' }] });
    const once = await addPatientIdentifier(patient.id, { system: 'https://ehr.example.test', value: 'p-1' });
    const twice = await addPatientIdentifier(patient.id, { system: 'https://ehr.example.test', value: 'p-1' });
    expect(twice.identifiers).toEqual(once.identifiers);
    expect(once.identifiers).toEqual([{ system: MRN, value: 'mine' }, { system: 'https://ehr.example.test', value: 'p-1' }]);
    await expect(addPatientIdentifier(patient.id, { system: 'https://ehr.example.test', value: 'theirs' })).rejects.toMatchObject({ status: 409 });
    expect(await findPatientByIdentifier('https://ehr.example.test', 'theirs')).toBe(other.id);
  });

  it('joins and leaves organizations; leaving one ends its studies and their consents', async () => {
    const a = await makeOrganization();
    const b = await makeOrganization();
    const patient = await makePatient({ organizations: [a] });
    await addPatientToOrganization(patient.id, b.id);
    await expect(addPatientToOrganization(patient.id, b.id)).rejects.toMatchObject({ status: 409 });
    await expect(addPatientToOrganization(987654, b.id)).rejects.toMatchObject({ status: 404 });
    await expect(addPatientToOrganization(patient.id, 987654)).rejects.toMatchObject({ status: 404 });
    const studyA = await makeStudy({ organization: a, codes: ['omh:heart-rate:2.0'], patients: [patient], consent: true });
    const studyB = await makeStudy({ organization: b, codes: ['omh:step-count:3.0'], patients: [patient], consent: true });
    expect((await getPatient(patient.id))?.studyIds).toEqual([studyA.id, studyB.id]);

    await removePatientFromOrganization(patient.id, a.id);
    const after = await getPatient(patient.id);
    expect(after?.organizationIds).toEqual([b.id]);
    expect(after?.studyIds).toEqual([studyB.id]);
    expect(await listStudyPatientIds(studyA.id)).toEqual([]);
    expect((await listConsents(patient.id)).map((c) => c.studyId)).toEqual([studyB.id]);
    expect(await listPatientIdsOfOrganization(a.id)).toEqual([]);
    await expect(removePatientFromOrganization(patient.id, a.id)).rejects.toMatchObject({ status: 404 });
  });

  it('never loses a membership to a concurrent update of the patient', async () => {
    const orgs = await Promise.all(Array.from({ length: 6 }, () => makeOrganization()));
    const patient = await makePatient();
    await Promise.allSettled([
      ...orgs.map((o) => addPatientToOrganization(patient.id, o.id)),
      ...orgs.map((_, i) => updatePatient(patient.id, { nameGiven: `Name ${i}` })),
    ]);
    expect((await getPatient(patient.id))?.organizationIds).toEqual(orgs.map((o) => o.id));
  });

  it('gives an existing patient a login once', async () => {
    const patient = await makePatient();
    const user = await createPatientAccount(patient.id, { email: 'late@example.test' });
    expect((await getPatient(patient.id))?.userId).toBe(user.id);
    expect(user).toMatchObject({ kind: 'patient', patientId: patient.id });
    await expect(createPatientAccount(patient.id, { email: 'again@example.test' })).rejects.toMatchObject({ status: 409 });
    expect(await getUserByEmail('again@example.test')).toBeUndefined();
  });

  it('deletes a patient with everything that hangs off them', async () => {
    const org = await makeOrganization();
    const patient = await makePatient({ organizations: [org], login: true, identifiers: [{ system: MRN, value: 'gone' }], email: 'gone@example.test' });
    const study = await makeStudy({ organization: org, codes: ['omh:heart-rate:2.0'], patients: [patient], consent: true });
    await deletePatient(patient.id);
    expect(await getPatient(patient.id)).toBeUndefined();
    expect(await getUser(patient.userId!)).toBeUndefined();
    expect(await getUserByEmail('gone@example.test')).toBeUndefined();
    expect(await findPatientByIdentifier(MRN, 'gone')).toBeUndefined();
    expect(await listPatientIdsOfOrganization(org.id)).toEqual([]);
    expect(await listStudyPatientIds(study.id)).toEqual([]);
    expect(await listConsents(patient.id)).toEqual([]);
    expect(await getPatients([patient.id])).toEqual([]);
    await expect(deletePatient(patient.id)).rejects.toMatchObject({ status: 404 });
    // The identifier and email are free again.
    await makePatient({ identifiers: [{ system: MRN, value: 'gone' }], email: 'gone@example.test', login: true });
  });
});
