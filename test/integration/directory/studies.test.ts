import { describe, expect, it } from 'vitest';
import { consentedCodeIds, deleteConsents, listConsents, recordConsents } from '../../../shared/directory/consents';
import { getPatient } from '../../../shared/directory/patients';
import {
  addStudyClient,
  addStudyCode,
  addStudyDataSource,
  createStudy,
  deleteStudy,
  enrollPatients,
  getStudies,
  getStudy,
  listStudyClientIds,
  listStudyCodes,
  listStudyDataSourceIds,
  listStudyIdsOfOrganization,
  listStudyPatientIds,
  removeStudyClient,
  removeStudyCode,
  removeStudyDataSource,
  unenrollPatient,
  updateStudy,
} from '../../../shared/directory/studies';
import { createOAuthClient } from '../../../shared/directory/oauth-clients';
import { code, makeDataSource, makeOrganization, makePatient, makeStudy } from '../../support/directory';

describe('studies', () => {
  it('creates, reads, lists, updates and moves a study', async () => {
    const org = await makeOrganization();
    const other = await makeOrganization();
    const study = await createStudy({ organizationId: org.id, name: 'Sleep', description: 'Sleep study', iconUrl: 'https://x.test/i.png' });
    expect(await getStudy(study.id)).toEqual(study);
    expect(await listStudyIdsOfOrganization(org.id)).toEqual([study.id]);
    const updated = await updateStudy(study.id, { name: 'Sleep 2', iconUrl: null });
    expect(updated.iconUrl).toBeUndefined();
    expect(await getStudy(study.id)).toEqual(updated);
    const moved = await updateStudy(study.id, { organizationId: other.id });
    expect(moved.organizationId).toBe(other.id);
    expect(await listStudyIdsOfOrganization(org.id)).toEqual([]);
    expect(await listStudyIdsOfOrganization(other.id)).toEqual([study.id]);
    expect((await getStudies([study.id, 987654])).map((s) => s.id)).toEqual([study.id]);
    await expect(createStudy({ organizationId: 987654, name: 'x' })).rejects.toMatchObject({ status: 404 });
    await expect(updateStudy(study.id, { organizationId: 987654 })).rejects.toMatchObject({ status: 404 });
    expect((await getStudy(study.id))?.organizationId).toBe(other.id);
  });

  it('enrols only members of the study’s organization, and refuses to move a study with patients', async () => {
    const org = await makeOrganization();
    const elsewhere = await makeOrganization();
    const member = await makePatient({ organizations: [org] });
    const outsider = await makePatient({ organizations: [elsewhere] });
    const study = await makeStudy({ organization: org });
    await enrollPatients(study.id, [member.id, member.id]);
    await enrollPatients(study.id, [member.id]);
    await expect(enrollPatients(study.id, [outsider.id])).rejects.toMatchObject({ status: 400 });
    const second = await makePatient({ organizations: [org] });
    await expect(enrollPatients(study.id, [second.id, outsider.id])).rejects.toMatchObject({ status: 400 });
    expect((await getPatient(second.id))?.studyIds).toEqual([]);
    await expect(enrollPatients(study.id, [987654])).rejects.toMatchObject({ status: 400 });
    await expect(enrollPatients(987654, [member.id])).rejects.toMatchObject({ status: 404 });
    expect(await listStudyPatientIds(study.id)).toEqual([member.id]);
    expect((await getPatient(outsider.id))?.studyIds).toEqual([]);
    expect((await getPatient(member.id))?.studyIds).toEqual([study.id]);
    await expect(updateStudy(study.id, { organizationId: elsewhere.id })).rejects.toMatchObject({ status: 409 });
    await unenrollPatient(study.id, member.id);
    expect(await listStudyPatientIds(study.id)).toEqual([]);
    expect((await getPatient(member.id))?.studyIds).toEqual([]);
    await expect(unenrollPatient(study.id, member.id)).rejects.toMatchObject({ status: 404 });
  });

  it('keeps requested codes, data sources and apps', async () => {
    const org = await makeOrganization();
    const study = await makeStudy({ organization: org });
    const hr = await code('omh:heart-rate:2.0');
    const bp = await code('omh:blood-pressure:4.0');
    await addStudyCode(study.id, hr.id);
    await addStudyCode(study.id, bp.id);
    await addStudyCode(study.id, hr.id);
    expect(await listStudyCodes(study.id)).toEqual(
      [hr, bp].sort((a, b) => a.id - b.id).map((c) => ({ id: c.id, system: c.system, code: c.code })),
    );
    await expect(addStudyCode(study.id, 987654)).rejects.toMatchObject({ status: 400 });
    await expect(addStudyCode(987654, hr.id)).rejects.toMatchObject({ status: 404 });

    const ds = await makeDataSource();
    await addStudyDataSource(study.id, ds.id);
    expect(await listStudyDataSourceIds(study.id)).toEqual([ds.id]);
    await expect(addStudyDataSource(study.id, 987654)).rejects.toMatchObject({ status: 400 });
    await removeStudyDataSource(study.id, ds.id);
    expect(await listStudyDataSourceIds(study.id)).toEqual([]);
    await expect(removeStudyDataSource(study.id, ds.id)).rejects.toMatchObject({ status: 404 });

    const app = await createOAuthClient({ name: 'App', type: 'public', redirectUris: ['https://app.test/cb'] });
    await addStudyClient(study.id, app.id);
    expect(await listStudyClientIds(study.id)).toEqual([app.id]);
    await expect(addStudyClient(study.id, 987654)).rejects.toMatchObject({ status: 400 });
    await removeStudyClient(study.id, app.id);
    expect(await listStudyClientIds(study.id)).toEqual([]);
    await expect(removeStudyClient(study.id, app.id)).rejects.toMatchObject({ status: 404 });
  });

  it('records consents only for enrolled patients and requested codes', async () => {
    const org = await makeOrganization();
    const patient = await makePatient({ organizations: [org] });
    const notEnrolled = await makePatient({ organizations: [org] });
    const study = await makeStudy({ organization: org, codes: ['omh:heart-rate:2.0', 'omh:blood-pressure:4.0'], patients: [patient] });
    const hr = await code('omh:heart-rate:2.0');
    const bp = await code('omh:blood-pressure:4.0');
    const steps = await code('omh:step-count:3.0');
    const recorded = await recordConsents(patient.id, [
      { studyId: study.id, codeId: hr.id, consented: true },
      { studyId: study.id, codeId: bp.id, consented: false },
    ]);
    expect(recorded).toHaveLength(2);
    expect(await listConsents(patient.id)).toEqual(
      expect.arrayContaining([
        { patientId: patient.id, studyId: study.id, code: { id: hr.id, system: hr.system, code: hr.code }, consented: true, consentedAt: expect.any(String) },
        expect.objectContaining({ code: expect.objectContaining({ id: bp.id }), consented: false }),
      ]),
    );
    expect(await consentedCodeIds(patient.id)).toEqual(new Set([hr.id]));
    // A later decision replaces the earlier one.
    await recordConsents(patient.id, [{ studyId: study.id, codeId: bp.id, consented: true }]);
    expect(await consentedCodeIds(patient.id)).toEqual(new Set([hr.id, bp.id]));

    await expect(recordConsents(patient.id, [{ studyId: study.id, codeId: steps.id, consented: true }])).rejects.toMatchObject({ status: 400 });
    await expect(recordConsents(notEnrolled.id, [{ studyId: study.id, codeId: hr.id, consented: true }])).rejects.toMatchObject({ status: 400 });
    await expect(recordConsents(patient.id, [{ studyId: study.id, codeId: 987654, consented: true }])).rejects.toMatchObject({ status: 400 });
    expect(await listConsents(notEnrolled.id)).toEqual([]);

    // Dropping a requested code drops the consents given for it.
    await removeStudyCode(study.id, bp.id);
    expect(await consentedCodeIds(patient.id)).toEqual(new Set([hr.id]));
    await expect(removeStudyCode(study.id, bp.id)).rejects.toMatchObject({ status: 404 });
    await deleteConsents(patient.id, study.id);
    expect(await listConsents(patient.id)).toEqual([]);
  });

  it('deletes a study with its enrolments, consents and links', async () => {
    const org = await makeOrganization();
    const patient = await makePatient({ organizations: [org] });
    const ds = await makeDataSource();
    const study = await makeStudy({ organization: org, codes: ['omh:heart-rate:2.0'], patients: [patient], consent: true, dataSources: [ds] });
    await deleteStudy(study.id);
    expect(await getStudy(study.id)).toBeUndefined();
    expect(await listStudyIdsOfOrganization(org.id)).toEqual([]);
    expect(await listStudyPatientIds(study.id)).toEqual([]);
    expect(await listStudyCodes(study.id)).toEqual([]);
    expect(await listStudyDataSourceIds(study.id)).toEqual([]);
    expect((await getPatient(patient.id))?.studyIds).toEqual([]);
    expect(await listConsents(patient.id)).toEqual([]);
    await expect(deleteStudy(study.id)).rejects.toMatchObject({ status: 404 });
  });
});
