/**
 * Studies (FHIR Group): each belongs to one organization and has enrolled patients, requested
 * codes ("scope requests"), data sources and apps (OAuth clients). Enrolled patients must be
 * members of the study's organization; the store checks it in the enrolling transaction.
 */
import { badRequest, conflict, notFound } from '../http/errors';
import { getCodes } from './code-table';
import { check, getItem, MAX_TRANSACTION, now, put, queryAll, remove, transact, transactInChunks, update, type Write } from './db';
import { entityStore } from './entity';
import { newId } from './ids';
import { idFromSortKey, indexes, keys, REL } from './keys';
import { organizationMustExist } from './memberships';
import type { CodeRef, Id, Study } from './model';
import { leaveStudy } from './patients';

export interface StudyInput {
  organizationId: Id;
  name: string;
  description?: string;
  iconUrl?: string;
}

export type StudyPatch = Partial<Omit<StudyInput, 'iconUrl'>> & { iconUrl?: string | null };

export const studyNotFound = (id: Id) => notFound(`Study ${id} not found.`);

const studies = entityStore<Study, Id>({
  key: keys.study,
  toItem: (study) => ({ ...keys.study(study.id), ...study }),
  notFound: studyNotFound,
});

const studyMustExist = (studyId: Id) => check(keys.study(studyId), 'attribute_exists(pk)', {}, () => studyNotFound(studyId));

export async function createStudy(input: StudyInput): Promise<Study> {
  const id = await newId('study');
  const at = now();
  const study: Study = {
    id,
    organizationId: input.organizationId,
    name: input.name,
    description: input.description ?? '',
    ...(input.iconUrl ? { iconUrl: input.iconUrl } : {}),
    createdAt: at,
    updatedAt: at,
  };
  await transact([
    studies.create(study, () => conflict('Study id collision.')),
    put({ ...keys.organizationStudy(input.organizationId, id) }),
    organizationMustExist(input.organizationId),
  ]);
  return study;
}

export const getStudy = studies.get;

/** Studies for ids, in the order given; unknown ids are skipped. */
export const getStudies = studies.getMany;

/** Changes a study; moving it to another organization is refused while patients are enrolled. */
export async function updateStudy(id: Id, patch: StudyPatch): Promise<Study> {
  const { entity: current, version } = await studies.read(id);
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
  await transact([
    studies.replace(next, version),
    ...(moved
      ? [remove(keys.organizationStudy(current.organizationId, id)), put({ ...keys.organizationStudy(next.organizationId, id) }), organizationMustExist(next.organizationId)]
      : []),
  ]);
  return next;
}

/**
 * Deletes a study: the study disappears first; then its enrolments (and the consents given for
 * it), requested codes, data sources and apps are cleared. Observations stay with their patients.
 */
export async function deleteStudy(id: Id): Promise<void> {
  const { entity: study, version } = await studies.read(id);
  await transact([studies.remove(id, version), remove(keys.organizationStudy(study.organizationId, id))]);
  for (const patientId of await listStudyPatientIds(id)) await leaveStudy(patientId, id);
  const rest = await queryAll({ pk: keys.study(id).pk, attributes: ['pk', 'sk'] });
  const deletions = rest.map((r) => remove({ pk: r.pk as string, sk: r.sk as string }));
  await transactInChunks(deletions);
}

async function relatedIds(studyId: Id, prefix: string): Promise<Id[]> {
  const items = await queryAll({ pk: keys.study(studyId).pk, skPrefix: prefix, attributes: ['sk'] });
  return items.map((i) => idFromSortKey(String(i.sk)));
}

/** Ids of an organization's studies, ascending (strongly consistent). */
export async function listStudyIdsOfOrganization(orgId: Id): Promise<Id[]> {
  const items = await queryAll({ pk: keys.organization(orgId).pk, skPrefix: REL.study, attributes: ['sk'] });
  return items.map((i) => idFromSortKey(String(i.sk)));
}

// --- enrolment -----------------------------------------------------------------------------------

/** Patients enrolled per transaction: 3 actions each, plus the study check. */
const ENROL_BATCH = Math.floor((MAX_TRANSACTION - 1) / 3);

/**
 * Enrols patients (idempotent per patient). Each must be a member of the study's organization,
 * else 400 and nothing is written (all or nothing up to 33 patients per call; larger lists are
 * written in batches of 33, each all or nothing).
 */
export async function enrollPatients(studyId: Id, patientIds: readonly Id[]): Promise<void> {
  const study = await getStudy(studyId);
  if (!study) throw studyNotFound(studyId);
  const unique = [...new Set(patientIds)];
  for (let i = 0; i < unique.length; i += ENROL_BATCH) {
    await transact([
      studyMustExist(studyId),
      ...unique.slice(i, i + ENROL_BATCH).flatMap((patientId) => [
        put({ ...keys.studyPatient(studyId, patientId) }),
        update(keys.patient(patientId), 'ADD #studies :study', { condition: 'attribute_exists(pk)', names: { '#studies': 'studyIds' }, values: { ':study': new Set([studyId]) } }, () =>
          badRequest(`Patient ${patientId} not found.`, 'not-found', { fields: { patientIds: [`Invalid pk "${patientId}" - object does not exist.`] } }),
        ),
        check(keys.organizationPatient(study.organizationId, patientId), 'attribute_exists(pk)', {}, () =>
          badRequest(`Patient ${patientId} is not a member of the study's organization.`, 'business-rule', {
            fields: { patientIds: [`Patient ${patientId} is not a member of the study's organization.`] },
          }),
        ),
      ]),
    ]);
  }
}

/** Ends an enrolment (and deletes the consents given for the study); 404 when not enrolled. */
export async function unenrollPatient(studyId: Id, patientId: Id): Promise<void> {
  if (!(await getItem(keys.studyPatient(studyId, patientId)))) throw notFound(`Patient ${patientId} is not enrolled in study ${studyId}.`);
  await leaveStudy(patientId, studyId);
}

/** Ids of the enrolled patients, ascending (strongly consistent). */
export function listStudyPatientIds(studyId: Id): Promise<Id[]> {
  return relatedIds(studyId, REL.patient);
}

// --- requested codes ("scope requests") -------------------------------------------------------------

/** Adds a requested code (idempotent); 400 when the code is not in the code table. */
export async function addStudyCode(studyId: Id, codeId: Id): Promise<CodeRef> {
  const [code] = await getCodes([codeId]);
  if (!code) throw badRequest(`Code ${codeId} not found.`, 'not-found', { fields: { scopeCodeId: [`Invalid pk "${codeId}" - object does not exist.`] } });
  const ref: CodeRef = { id: code.id, system: code.system, code: code.code };
  await transact([put({ ...keys.studyCode(studyId, codeId), ...ref }), studyMustExist(studyId)]);
  return ref;
}

/** Removes a requested code, and with it the consents given for that code in this study. */
export async function removeStudyCode(studyId: Id, codeId: Id): Promise<void> {
  await transact([
    remove(keys.studyCode(studyId, codeId), { condition: 'attribute_exists(pk)' }, () => notFound(`Study ${studyId} does not request code ${codeId}.`)),
  ]);
  const consents = (await listStudyPatientIds(studyId)).map((patientId) => remove(keys.consent(patientId, studyId, codeId)));
  await transactInChunks(consents);
}

/** The codes a study requests, in code id order. */
export async function listStudyCodes(studyId: Id): Promise<CodeRef[]> {
  const items = await queryAll({ pk: keys.study(studyId).pk, skPrefix: REL.code });
  return items.map((i) => ({ id: i.id as Id, system: i.system as string, code: i.code as string }));
}

// --- data sources and apps ----------------------------------------------------------------------------

/** Links a data source to a study (idempotent). */
export async function addStudyDataSource(studyId: Id, dataSourceId: Id): Promise<void> {
  await transact([
    put({ ...keys.studyDataSource(studyId, dataSourceId), ...indexes.studyDataSource(studyId, dataSourceId) }),
    studyMustExist(studyId),
    check(keys.dataSource(dataSourceId), 'attribute_exists(pk)', {}, () =>
      badRequest(`Data source ${dataSourceId} not found.`, 'not-found', { fields: { dataSourceId: [`Invalid pk "${dataSourceId}" - object does not exist.`] } }),
    ),
  ]);
}

export async function removeStudyDataSource(studyId: Id, dataSourceId: Id): Promise<void> {
  await transact([
    remove(keys.studyDataSource(studyId, dataSourceId), { condition: 'attribute_exists(pk)' }, () =>
      notFound(`Data source ${dataSourceId} is not used by study ${studyId}.`),
    ),
  ]);
}

export function listStudyDataSourceIds(studyId: Id): Promise<Id[]> {
  return relatedIds(studyId, REL.dataSource);
}

/** Links an app (OAuth client, by numeric id) to a study (idempotent). */
export async function addStudyClient(studyId: Id, clientNumber: Id): Promise<void> {
  await transact([
    put({ ...keys.studyClient(studyId, clientNumber), ...indexes.studyClient(studyId, clientNumber) }),
    studyMustExist(studyId),
    check(keys.oauthClientNumber(clientNumber), 'attribute_exists(pk)', {}, () =>
      badRequest(`Client ${clientNumber} not found.`, 'not-found', { fields: { clientId: [`Invalid pk "${clientNumber}" - object does not exist.`] } }),
    ),
  ]);
}

export async function removeStudyClient(studyId: Id, clientNumber: Id): Promise<void> {
  await transact([
    remove(keys.studyClient(studyId, clientNumber), { condition: 'attribute_exists(pk)' }, () =>
      notFound(`Client ${clientNumber} is not used by study ${studyId}.`),
    ),
  ]);
}

export function listStudyClientIds(studyId: Id): Promise<Id[]> {
  return relatedIds(studyId, REL.client);
}

/** Writes that unlink a removed data source or client from every study (used by their delete). */
export async function unlinkFromStudies(index: { name: string; pk: string; skPrefix: string }, keyOf: (studyId: Id) => { pk: string; sk: string }): Promise<void> {
  const links = await queryAll({ index: index.name, pk: index.pk, skPrefix: index.skPrefix, attributes: ['gsi1sk'] });
  const writes: Write[] = links.map((l) => remove(keyOf(idFromSortKey(String(l.gsi1sk)))));
  await transactInChunks(writes);
}
