/**
 * Studies through `/api/v1/`: read where the scoping rules allow (members of the study's
 * organization, enrolled patients); written by practitioners with the member role in the study's
 * organization, including its patients, requested codes ("scope requests") and data sources.
 */
import type { Caller, PractitionerCaller } from '../auth/caller';
import { assertCanReadStudy, requireRole, studyScope } from '../auth/scope';
import { getCodes } from '../directory/code-table';
import { getDataSources } from '../directory/data-sources';
import type { Code, Id, Page, Paging, Study } from '../directory/model';
import { getOrganizations } from '../directory/organizations';
import { pageOfIds } from '../directory/paging';
import { getPatients } from '../directory/patients';
import {
  addStudyCode,
  addStudyDataSource,
  createStudy,
  deleteStudy,
  enrollPatients,
  getStudies,
  listStudyCodes,
  listStudyDataSourceIds,
  listStudyPatientIds,
  removeStudyCode,
  removeStudyDataSource,
  unenrollPatient,
  updateStudy,
  type StudyInput,
  type StudyPatch,
} from '../directory/studies';
import { fieldErrors } from '../http/errors';
import { codeTable } from './data-sources';
import { patientViews } from './patients';
import { codeRefView, codeView, dataSourceSummary, studyView, studyWriteView, type PatientView } from './views';

export async function studyViews(studies: readonly Study[]) {
  const orgs = new Map((await getOrganizations([...new Set(studies.map((s) => s.organizationId))])).map((o) => [o.id, o]));
  return studies.map((s) => studyView(s, orgs.get(s.organizationId)));
}

export async function listStudies(caller: Caller, organizationId: Id | undefined, paging: Paging) {
  const ids = await studyScope(caller, organizationId === undefined ? {} : { organization: organizationId });
  const page = await pageOfIds(ids, paging, getStudies);
  return { count: page.count, items: await studyViews(page.items) };
}

export async function createStudyBy(caller: PractitionerCaller, input: StudyInput) {
  requireRole(caller, input.organizationId, 'member');
  return studyWriteView(await createStudy(input));
}

export async function readStudy(caller: Caller, studyId: Id) {
  return (await studyViews([await assertCanReadStudy(caller, studyId)]))[0]!;
}

/** The study, if the caller may change it (member role in its organization); 404 when out of sight. */
async function studyToManage(caller: PractitionerCaller, studyId: Id): Promise<Study> {
  const study = await assertCanReadStudy(caller, studyId);
  requireRole(caller, study.organizationId, 'member');
  return study;
}

export async function updateStudyBy(caller: PractitionerCaller, studyId: Id, patch: StudyPatch) {
  await studyToManage(caller, studyId);
  if (patch.organizationId !== undefined) requireRole(caller, patch.organizationId, 'member');
  return studyWriteView(await updateStudy(studyId, patch));
}

export async function deleteStudyBy(caller: PractitionerCaller, studyId: Id): Promise<void> {
  await studyToManage(caller, studyId);
  await deleteStudy(studyId);
}

// --- enrolled patients ------------------------------------------------------------------------

/** For practitioners only: patients never see who else takes part. */
export async function listStudyPatients(caller: PractitionerCaller, studyId: Id, paging: Paging): Promise<Page<PatientView>> {
  await assertCanReadStudy(caller, studyId);
  const page = await pageOfIds(await listStudyPatientIds(studyId), paging, getPatients);
  return { count: page.count, items: await patientViews(caller, page.items) };
}

/**
 * 400 unless every patient is a member of the study's organization. Missing and out-of-reach
 * patients get the very same message, so the answer tells nothing about other organizations.
 */
async function assertOrganizationMembers(study: Study, patientIds: readonly Id[]): Promise<void> {
  const members = new Set((await getPatients(patientIds)).filter((p) => p.organizationIds.includes(study.organizationId)).map((p) => p.id));
  const strangers = patientIds.filter((id) => !members.has(id));
  if (strangers.length > 0) {
    throw fieldErrors({ patientIds: strangers.map((id) => `Patient ${id} is not a member of the study's organization.`) });
  }
}

export async function enrollPatientsBy(caller: PractitionerCaller, studyId: Id, patientIds: readonly Id[]) {
  const study = await studyToManage(caller, studyId);
  const unique = [...new Set(patientIds)];
  await assertOrganizationMembers(study, unique);
  await enrollPatients(studyId, unique);
  return { studyPatients: unique.map((patient) => ({ study: studyId, patient })) };
}

/** Ends enrolments; patients not enrolled are skipped (deleting twice is harmless). */
export async function unenrollPatientsBy(caller: PractitionerCaller, studyId: Id, patientIds: readonly Id[]): Promise<void> {
  const study = await studyToManage(caller, studyId);
  const unique = [...new Set(patientIds)];
  await assertOrganizationMembers(study, unique);
  const enrolled = new Set(await listStudyPatientIds(studyId));
  for (const patientId of unique) if (enrolled.has(patientId)) await unenrollPatient(studyId, patientId);
}

// --- requested codes ("scope requests") and data sources -------------------------------------------

function scopeRequestView(studyId: Id, code: Code) {
  return { study: studyId, scopeCode: codeView(code) };
}

export async function listScopeRequests(caller: Caller, studyId: Id) {
  await assertCanReadStudy(caller, studyId);
  const table = await codeTable();
  return (await listStudyCodes(studyId)).map((ref) => ({ study: studyId, scopeCode: codeRefView(ref, table) }));
}

export async function addScopeRequest(caller: PractitionerCaller, studyId: Id, codeId: Id) {
  await studyToManage(caller, studyId);
  await addStudyCode(studyId, codeId);
  const [code] = await getCodes([codeId]);
  return scopeRequestView(studyId, code!);
}

export async function removeScopeRequest(caller: PractitionerCaller, studyId: Id, codeId: Id): Promise<void> {
  await studyToManage(caller, studyId);
  await removeStudyCode(studyId, codeId);
}

export async function listStudyDataSources(caller: Caller, studyId: Id) {
  await assertCanReadStudy(caller, studyId);
  return (await getDataSources(await listStudyDataSourceIds(studyId))).map(dataSourceSummary);
}

export async function addStudyDataSourceBy(caller: PractitionerCaller, studyId: Id, dataSourceId: Id): Promise<void> {
  await studyToManage(caller, studyId);
  await addStudyDataSource(studyId, dataSourceId);
}

export async function removeStudyDataSourceBy(caller: PractitionerCaller, studyId: Id, dataSourceId: Id): Promise<void> {
  await studyToManage(caller, studyId);
  await removeStudyDataSource(studyId, dataSourceId);
}

