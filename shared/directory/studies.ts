/**
 * Studies (FHIR Group): each belongs to one organization and has enrolled patients, requested
 * codes ("scope requests"), data sources and apps (OAuth clients). Enrolled patients must be
 * members of the study's organization; the store checks it in the enrolling transaction.
 */
import { badRequest, conflict, notFound } from '../http/errors';
import { getCodes } from './code-table';
import { now } from './fields';
import type { CodeRef, Id, Study } from './model';
import { directoryStore } from './store/current';
import { MAX_ENROLMENTS, studyNotFound } from './store/port';

export { studyNotFound } from './store/port';

export interface StudyInput {
  organizationId: Id;
  name: string;
  description?: string;
  iconUrl?: string;
}

export type StudyPatch = Partial<Omit<StudyInput, 'iconUrl'>> & { iconUrl?: string | null };

export async function createStudy(input: StudyInput): Promise<Study> {
  const { studies } = directoryStore();
  const at = now();
  const study: Study = {
    id: await studies.newId(),
    organizationId: input.organizationId,
    name: input.name,
    description: input.description ?? '',
    ...(input.iconUrl ? { iconUrl: input.iconUrl } : {}),
    createdAt: at,
    updatedAt: at,
  };
  await studies.insert(study);
  return study;
}

export const getStudy = (id: Id): Promise<Study | undefined> => directoryStore().studies.get(id);

/** Studies for ids, in the order given; unknown ids are skipped. */
export const getStudies = (ids: readonly Id[]): Promise<Study[]> => directoryStore().studies.getMany(ids);

/** Changes a study; moving it to another organization is refused while patients are enrolled. */
export async function updateStudy(id: Id, patch: StudyPatch): Promise<Study> {
  const { studies } = directoryStore();
  const read = await studies.read(id);
  const current = read.entity;
  const { iconUrl: _icon, ...base } = current;
  const iconUrl = patch.iconUrl === undefined ? current.iconUrl : (patch.iconUrl ?? undefined);
  const next: Study = {
    ...base,
    ...(patch.name !== undefined ? { name: patch.name } : {}),
    ...(patch.description !== undefined ? { description: patch.description } : {}),
    ...(patch.organizationId !== undefined ? { organizationId: patch.organizationId } : {}),
    ...(iconUrl ? { iconUrl } : {}),
    updatedAt: now(),
  };
  const moved = next.organizationId !== current.organizationId;
  if (moved && (await listStudyPatientIds(id)).length > 0) {
    throw conflict('A study with enrolled patients cannot move to another organization.');
  }
  await studies.update(read, next);
  return next;
}

/**
 * Deletes a study: the study disappears first; then its enrolments (and the consents given for
 * it), requested codes, data sources and apps are cleared. Observations stay with their patients.
 */
export const deleteStudy = (id: Id): Promise<void> => directoryStore().studies.remove(id);

/** Ids of an organization's studies, ascending (strongly consistent). */
export const listStudyIdsOfOrganization = (orgId: Id): Promise<Id[]> => directoryStore().organizations.studyIds(orgId);

// --- enrolment -----------------------------------------------------------------------------------

/**
 * Enrols patients (idempotent per patient). Each must be a member of the study's organization,
 * else 400 and nothing is written (all or nothing up to 33 patients per call; larger lists are
 * written in batches of 33, each all or nothing).
 */
export async function enrollPatients(studyId: Id, patientIds: readonly Id[]): Promise<void> {
  const { studies } = directoryStore();
  const study = await studies.get(studyId);
  if (!study) throw studyNotFound(studyId);
  const unique = [...new Set(patientIds)];
  for (let i = 0; i < unique.length; i += MAX_ENROLMENTS) await studies.enrol(study, unique.slice(i, i + MAX_ENROLMENTS));
}

/** Ends an enrolment (and deletes the consents given for the study); 404 when not enrolled. */
export async function unenrollPatient(studyId: Id, patientId: Id): Promise<void> {
  const { studies } = directoryStore();
  if (!(await studies.isEnrolled(studyId, patientId))) throw notFound(`Patient ${patientId} is not enrolled in study ${studyId}.`);
  await studies.unenrol(studyId, patientId);
}

/** Ids of the enrolled patients, ascending (strongly consistent). */
export const listStudyPatientIds = (studyId: Id): Promise<Id[]> => directoryStore().studies.patientIds(studyId);

// --- requested codes ("scope requests") -------------------------------------------------------------

/** Adds a requested code (idempotent); 400 when the code is not in the code table. */
export async function addStudyCode(studyId: Id, codeId: Id): Promise<CodeRef> {
  const [code] = await getCodes([codeId]);
  if (!code) throw badRequest(`Code ${codeId} not found.`, 'not-found', { fields: { scopeCodeId: [`Invalid pk "${codeId}" - object does not exist.`] } });
  const ref: CodeRef = { id: code.id, system: code.system, code: code.code };
  await directoryStore().studies.addCode(studyId, ref);
  return ref;
}

/** Removes a requested code, and with it the consents given for that code in this study. */
export const removeStudyCode = (studyId: Id, codeId: Id): Promise<void> => directoryStore().studies.removeCode(studyId, codeId);

/** The codes a study requests, in code id order. */
export const listStudyCodes = (studyId: Id): Promise<CodeRef[]> => directoryStore().studies.codes(studyId);

// --- data sources and apps ----------------------------------------------------------------------------

/** Links a data source to a study (idempotent). */
export const addStudyDataSource = (studyId: Id, dataSourceId: Id): Promise<void> => directoryStore().studies.addDataSource(studyId, dataSourceId);

export const removeStudyDataSource = (studyId: Id, dataSourceId: Id): Promise<void> => directoryStore().studies.removeDataSource(studyId, dataSourceId);

export const listStudyDataSourceIds = (studyId: Id): Promise<Id[]> => directoryStore().studies.dataSourceIds(studyId);

/** Links an app (OAuth client, by numeric id) to a study (idempotent). */
export const addStudyClient = (studyId: Id, clientNumber: Id): Promise<void> => directoryStore().studies.addClient(studyId, clientNumber);

export const removeStudyClient = (studyId: Id, clientNumber: Id): Promise<void> => directoryStore().studies.removeClient(studyId, clientNumber);

export const listStudyClientIds = (studyId: Id): Promise<Id[]> => directoryStore().studies.clientIds(studyId);
