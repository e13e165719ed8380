/** The directory store contract, studies with their enrolments, codes and links, consents and FHIR Sources (run by `directoryStoreContract`). */
import { describe, expect, it } from 'vitest';
import * as consents from '../../shared/directory/consents';
import { deleteDataSource } from '../../shared/directory/data-sources';
import * as fhir from '../../shared/directory/fhir-sources';
import { createOAuthClient, deleteOAuthClient } from '../../shared/directory/oauth-clients';
import { listStudyIdsOfOrganization } from '../../shared/directory/studies';
import * as studies from '../../shared/directory/studies';
import { getPatient } from '../../shared/directory/patients';
import { directoryStore } from '../../shared/directory/store/current';
import { missing, newCode, newDataSource, newOrganization, newPatient, newStudy, unique } from './directory-fixtures';

const refOf = ({ id, system, code }: { id: number; system: string; code: string }) => ({ id, system, code });

export function studiesContract(): void {
  describe('studies', () => {
    it('stores, reads, updates and moves a study between organizations, each listing its studies in id order', async () => {
      const [org, other] = [await newOrganization(), await newOrganization()];
      const study = await studies.createStudy({ organizationId: org.id, name: 'Sleep', description: 'About sleep', iconUrl: 'https://x.test/i.png' });
      const second = await newStudy(org.id);
      expect(study).toMatchObject({ organizationId: org.id, name: 'Sleep', description: 'About sleep', iconUrl: 'https://x.test/i.png' });
      expect(await studies.getStudy(study.id)).toEqual(study);
      expect(await studies.getStudies([second.id, missing, study.id])).toEqual([second, study]);
      expect(await listStudyIdsOfOrganization(org.id)).toEqual([study.id, second.id]);

      const updated = await studies.updateStudy(study.id, { name: 'Sleep 2', iconUrl: null });
      expect(updated).toMatchObject({ name: 'Sleep 2', description: 'About sleep', createdAt: study.createdAt });
      expect(updated.iconUrl).toBeUndefined();
      expect(await studies.getStudy(study.id)).toEqual(updated);
      const moved = await studies.updateStudy(study.id, { organizationId: other.id });
      expect(await listStudyIdsOfOrganization(org.id)).toEqual([second.id]);
      expect(await listStudyIdsOfOrganization(other.id)).toEqual([study.id]);

      await expect(studies.createStudy({ organizationId: missing, name: `x ${unique()}` })).rejects.toMatchObject({ status: 404, message: `Organization ${missing} not found.` });
      await expect(studies.updateStudy(study.id, { organizationId: missing })).rejects.toMatchObject({ status: 404, message: `Organization ${missing} not found.` });
      expect(await studies.getStudy(study.id)).toEqual(moved);
      await expect(studies.updateStudy(missing, { name: 'x' })).rejects.toMatchObject({ status: 404, message: `Study ${missing} not found.` });
    });

    it('enrols members of its organization only, all or nothing and idempotently, and ends enrolments', async () => {
      const [org, elsewhere] = [await newOrganization(), await newOrganization()];
      const [member, second] = [await newPatient({ organizationIds: [org.id] }), await newPatient({ organizationIds: [org.id] })];
      const outsider = await newPatient({ organizationIds: [elsewhere.id] });
      const study = await newStudy(org.id);
      await studies.enrollPatients(study.id, [second.id, member.id, second.id]);
      await studies.enrollPatients(study.id, [member.id]);
      expect(await studies.listStudyPatientIds(study.id)).toEqual([member.id, second.id]);
      expect((await getPatient(member.id))?.studyIds).toEqual([study.id]);

      const third = await newPatient({ organizationIds: [org.id] });
      const notMember = { status: 400, message: `Patient ${outsider.id} is not a member of the study's organization.`, fields: { patientIds: [`Patient ${outsider.id} is not a member of the study's organization.`] } };
      await expect(studies.enrollPatients(study.id, [third.id, outsider.id, missing])).rejects.toMatchObject(notMember);
      await expect(studies.enrollPatients(study.id, [third.id, missing, outsider.id])).rejects.toMatchObject({
        status: 400,
        message: `Patient ${missing} not found.`,
        fields: { patientIds: [`Invalid pk "${missing}" - object does not exist.`] },
      });
      await expect(studies.enrollPatients(missing, [third.id])).rejects.toMatchObject({ status: 404, message: `Study ${missing} not found.` });
      expect((await getPatient(third.id))?.studyIds).toEqual([]);
      expect(await studies.listStudyPatientIds(study.id)).toEqual([member.id, second.id]);
      await expect(studies.updateStudy(study.id, { organizationId: elsewhere.id })).rejects.toMatchObject({ status: 409 });

      await studies.unenrollPatient(study.id, member.id);
      expect(await studies.listStudyPatientIds(study.id)).toEqual([second.id]);
      expect((await getPatient(member.id))?.studyIds).toEqual([]);
      await expect(studies.unenrollPatient(study.id, member.id)).rejects.toMatchObject({ status: 404, message: `Patient ${member.id} is not enrolled in study ${study.id}.` });
    });

    it('keeps requested codes in code id order, data sources and apps, each removable once', async () => {
      const study = await newStudy((await newOrganization()).id);
      const [first, second] = [await newCode(), await newCode()];
      expect(await studies.addStudyCode(study.id, second.id)).toEqual(refOf(second));
      await studies.addStudyCode(study.id, first.id);
      await studies.addStudyCode(study.id, second.id);
      expect(await studies.listStudyCodes(study.id)).toEqual([refOf(first), refOf(second)]);
      await expect(studies.addStudyCode(missing, first.id)).rejects.toMatchObject({ status: 404, message: `Study ${missing} not found.` });
      await expect(studies.addStudyCode(study.id, missing)).rejects.toMatchObject({ status: 400 });
      await studies.removeStudyCode(study.id, first.id);
      expect(await studies.listStudyCodes(study.id)).toEqual([refOf(second)]);
      await expect(studies.removeStudyCode(study.id, first.id)).rejects.toMatchObject({ status: 404, message: `Study ${study.id} does not request code ${first.id}.` });

      const [ds, ds2] = [await newDataSource(), await newDataSource()];
      await studies.addStudyDataSource(study.id, ds2.id);
      await studies.addStudyDataSource(study.id, ds.id);
      await studies.addStudyDataSource(study.id, ds.id);
      expect(await studies.listStudyDataSourceIds(study.id)).toEqual([ds.id, ds2.id]);
      await expect(studies.addStudyDataSource(missing, missing)).rejects.toMatchObject({ status: 404, message: `Study ${missing} not found.` });
      await expect(studies.addStudyDataSource(study.id, missing)).rejects.toMatchObject({
        status: 400,
        message: `Data source ${missing} not found.`,
        fields: { dataSourceId: [`Invalid pk "${missing}" - object does not exist.`] },
      });
      await studies.removeStudyDataSource(study.id, ds2.id);
      expect(await studies.listStudyDataSourceIds(study.id)).toEqual([ds.id]);
      await expect(studies.removeStudyDataSource(study.id, ds2.id)).rejects.toMatchObject({ status: 404, message: `Data source ${ds2.id} is not used by study ${study.id}.` });

      const app = await createOAuthClient({ clientId: `app-${unique()}`, name: 'App', type: 'public' });
      await studies.addStudyClient(study.id, app.id);
      await studies.addStudyClient(study.id, app.id);
      expect(await studies.listStudyClientIds(study.id)).toEqual([app.id]);
      await expect(studies.addStudyClient(study.id, missing)).rejects.toMatchObject({ status: 400, message: `Client ${missing} not found.`, fields: { clientId: [expect.any(String)] } });
      await studies.removeStudyClient(study.id, app.id);
      expect(await studies.listStudyClientIds(study.id)).toEqual([]);
      await expect(studies.removeStudyClient(study.id, app.id)).rejects.toMatchObject({ status: 404, message: `Client ${app.id} is not used by study ${study.id}.` });
    });

    it('loses a deleted data source or app from every study that used it', async () => {
      const org = await newOrganization();
      const [a, b] = [await newStudy(org.id), await newStudy(org.id)];
      const [ds, kept] = [await newDataSource(), await newDataSource()];
      const app = await createOAuthClient({ clientId: `app-${unique()}`, name: 'App', type: 'public' });
      for (const study of [a, b]) {
        await studies.addStudyDataSource(study.id, ds.id);
        await studies.addStudyClient(study.id, app.id);
      }
      await studies.addStudyDataSource(b.id, kept.id);
      await deleteDataSource(ds.id);
      await deleteOAuthClient(app.clientId);
      expect(await studies.listStudyDataSourceIds(a.id)).toEqual([]);
      expect(await studies.listStudyDataSourceIds(b.id)).toEqual([kept.id]);
      expect(await studies.listStudyClientIds(a.id)).toEqual([]);
      expect(await studies.listStudyClientIds(b.id)).toEqual([]);
    });

    it('answers the studies that use a data source, ascending, as they are linked and unlinked, and after a deletion', async () => {
      const usingDataSource = (dataSourceId: number) => directoryStore().studies.usingDataSource(dataSourceId);
      const [org, other] = [await newOrganization(), await newOrganization()];
      const [first, second, third] = [await newStudy(org.id), await newStudy(other.id), await newStudy(org.id)];
      const [watch, scale] = [await newDataSource(), await newDataSource()];
      expect(await usingDataSource(watch.id)).toEqual([]);
      await studies.addStudyDataSource(third.id, watch.id);
      await studies.addStudyDataSource(first.id, watch.id);
      await studies.addStudyDataSource(first.id, watch.id);
      await studies.addStudyDataSource(second.id, scale.id);
      await studies.addStudyDataSource(second.id, watch.id);
      expect(await usingDataSource(watch.id)).toEqual([first.id, second.id, third.id]);
      expect(await usingDataSource(scale.id)).toEqual([second.id]);
      expect(await usingDataSource(missing)).toEqual([]);

      await studies.removeStudyDataSource(first.id, watch.id);
      expect(await usingDataSource(watch.id)).toEqual([second.id, third.id]);
      await studies.deleteStudy(third.id);
      expect(await usingDataSource(watch.id)).toEqual([second.id]);
      await deleteDataSource(scale.id);
      expect(await usingDataSource(scale.id)).toEqual([]);
      expect(await usingDataSource(watch.id)).toEqual([second.id]);
    });

    it('deletes a study with its enrolments, consents and links; 404 after', async () => {
      const org = await newOrganization();
      const patient = await newPatient({ organizationIds: [org.id] });
      const [study, kept] = [await newStudy(org.id), await newStudy(org.id)];
      const code = await newCode();
      for (const s of [study, kept]) {
        await studies.addStudyCode(s.id, code.id);
        await studies.enrollPatients(s.id, [patient.id]);
        await consents.recordConsents(patient.id, [{ studyId: s.id, codeId: code.id, consented: true }]);
      }
      await studies.addStudyDataSource(study.id, (await newDataSource()).id);
      await studies.deleteStudy(study.id);
      expect(await studies.getStudy(study.id)).toBeUndefined();
      expect(await listStudyIdsOfOrganization(org.id)).toEqual([kept.id]);
      for (const list of [studies.listStudyPatientIds, studies.listStudyCodes, studies.listStudyDataSourceIds]) expect(await list(study.id)).toEqual([]);
      expect((await getPatient(patient.id))?.studyIds).toEqual([kept.id]);
      expect((await consents.listConsents(patient.id)).map((c) => c.studyId)).toEqual([kept.id]);
      await expect(studies.deleteStudy(study.id)).rejects.toMatchObject({ status: 404, message: `Study ${study.id} not found.` });
    });
  });

  describe('consents', () => {
    it('records decisions of enrolled patients for requested codes, later ones replacing earlier, listed by study then code', async () => {
      const org = await newOrganization();
      const patient = await newPatient({ organizationIds: [org.id] });
      const [first, second] = [await newStudy(org.id), await newStudy(org.id)];
      const [hr, bp] = [await newCode(), await newCode()];
      for (const study of [first, second]) {
        for (const code of [bp, hr]) await studies.addStudyCode(study.id, code.id);
        await studies.enrollPatients(study.id, [patient.id]);
      }
      const recorded = await consents.recordConsents(patient.id, [
        { studyId: second.id, codeId: hr.id, consented: true },
        { studyId: first.id, codeId: bp.id, consented: false },
        { studyId: first.id, codeId: hr.id, consented: true },
        { studyId: first.id, codeId: bp.id, consented: true },
      ]);
      expect(recorded).toHaveLength(3);
      expect(recorded[0]).toEqual({ patientId: patient.id, studyId: second.id, code: refOf(hr), consented: true, consentedAt: expect.any(String) });
      expect((await consents.listConsents(patient.id)).map((c) => [c.studyId, c.code.id, c.consented])).toEqual([
        [first.id, hr.id, true],
        [first.id, bp.id, true],
        [second.id, hr.id, true],
      ]);
      expect(await consents.listConsents(patient.id)).toContainEqual(recorded[0]);
      await consents.recordConsents(patient.id, [{ studyId: first.id, codeId: hr.id, consented: false }]);
      expect(await consents.consentedCodeIds(patient.id)).toEqual(new Set([hr.id, bp.id]));
      expect((await consents.listConsents(patient.id)).find((c) => c.studyId === first.id && c.code.id === hr.id)?.consented).toBe(false);

      await studies.removeStudyCode(first.id, bp.id);
      expect((await consents.listConsents(patient.id)).map((c) => [c.studyId, c.code.id])).toEqual([
        [first.id, hr.id],
        [second.id, hr.id],
      ]);
      await consents.deleteConsentDecisions(patient.id, [{ studyId: second.id, codeId: hr.id }, { studyId: second.id, codeId: missing }]);
      expect((await consents.listConsents(patient.id)).map((c) => c.studyId)).toEqual([first.id]);
      await consents.deleteConsents(patient.id, first.id);
      expect(await consents.listConsents(patient.id)).toEqual([]);
    });

    it('refuses, writing nothing: a code the study does not request, then a patient it does not enrol', async () => {
      const org = await newOrganization();
      const [enrolled, outsider] = [await newPatient({ organizationIds: [org.id] }), await newPatient({ organizationIds: [org.id] })];
      const study = await newStudy(org.id);
      const [requested, other] = [await newCode(), await newCode()];
      await studies.addStudyCode(study.id, requested.id);
      await studies.enrollPatients(study.id, [enrolled.id]);
      const decide = (patientId: number, codeIds: number[]) => consents.recordConsents(patientId, codeIds.map((codeId) => ({ studyId: study.id, codeId, consented: true })));
      const notRequested = { status: 400, message: `Study ${study.id} does not request code ${other.system}|${other.code}.` };
      const notEnrolled = { status: 400, message: `Patient ${outsider.id} is not enrolled in study ${study.id}.` };
      await expect(decide(enrolled.id, [requested.id, other.id])).rejects.toMatchObject(notRequested);
      // Per decision, its code is checked, then (on the study's first decision) the enrolment.
      await expect(decide(outsider.id, [other.id, requested.id])).rejects.toMatchObject(notRequested);
      await expect(decide(outsider.id, [requested.id, other.id])).rejects.toMatchObject(notEnrolled);
      await expect(consents.recordConsents(enrolled.id, [{ studyId: study.id, codeId: missing, consented: true }])).rejects.toMatchObject({ status: 400, message: `Code ${missing} not found.` });
      expect(await consents.listConsents(enrolled.id)).toEqual([]);
      expect(await consents.listConsents(outsider.id)).toEqual([]);
    });
  });

  describe('FHIR Sources', () => {
    it('stores, lists a patient\'s newest first, updates and deletes a source', async () => {
      const patient = await newPatient();
      const [ds, other] = [await newDataSource(), await newDataSource()];
      const first = await fhir.createFhirSource({ patientId: patient.id, dataSourceId: ds.id, label: 'EHR', fhirBaseUrl: 'https://ehr.test/fhir' });
      const second = await fhir.createFhirSource({ patientId: patient.id, dataSourceId: ds.id });
      expect(second).toMatchObject({ patientId: patient.id, dataSourceId: ds.id, label: '', fhirBaseUrl: '' });
      expect(await fhir.getFhirSource(first.id)).toEqual(first);
      expect(await fhir.listFhirSourcesOfPatient(patient.id)).toEqual([second, first]);
      expect(await fhir.listFhirSourcesOfPatient(missing)).toEqual([]);

      const updated = await fhir.updateFhirSource(first.id, { label: 'Renamed', dataSourceId: other.id });
      expect(updated).toMatchObject({ id: first.id, label: 'Renamed', dataSourceId: other.id, fhirBaseUrl: first.fhirBaseUrl, createdAt: first.createdAt });
      expect(await fhir.getFhirSource(first.id)).toEqual(updated);
      await deleteDataSource(other.id);
      await expect(fhir.updateFhirSource(first.id, { dataSourceId: other.id, label: 'Not kept' })).rejects.toMatchObject({ status: 400 });
      expect((await fhir.updateFhirSource(first.id, { label: 'Kept' })).dataSourceId).toBe(other.id);

      await fhir.deleteFhirSource(second.id);
      expect(await fhir.getFhirSource(second.id)).toBeUndefined();
      expect((await fhir.listFhirSourcesOfPatient(patient.id)).map((s) => s.id)).toEqual([first.id]);
      await expect(fhir.deleteFhirSource(second.id)).rejects.toMatchObject({ status: 404, message: `FHIR Source ${second.id} not found.` });
      await expect(fhir.updateFhirSource(second.id, { label: 'x' })).rejects.toMatchObject({ status: 404 });
    });

    it('refuses an unknown data source (400) before an unknown patient (404)', async () => {
      const patient = await newPatient();
      const ds = await newDataSource();
      const unknownSource = { status: 400, message: `Data source ${missing} not found.`, fields: { dataSource: [`Invalid pk "${missing}" - object does not exist.`] } };
      await expect(fhir.createFhirSource({ patientId: missing, dataSourceId: missing })).rejects.toMatchObject(unknownSource);
      await expect(fhir.createFhirSource({ patientId: missing, dataSourceId: ds.id })).rejects.toMatchObject({ status: 404, message: `Patient ${missing} not found.` });
      expect(await fhir.listFhirSourcesOfPatient(patient.id)).toEqual([]);
      expect(await fhir.listFhirSourcesOfPatient(missing)).toEqual([]);
    });
  });
}
