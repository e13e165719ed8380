/**
 * Studies on the directory table: the study item, its place in its organization's partition, and
 * in its own partition its enrolled patients, requested codes, data sources and apps (the last two
 * also on gsi1, to find the studies that use one).
 */
import { conflict, type HttpError } from '../../http/errors';
import { getItem, put, queryAll, remove, transact, transactInChunks, type Write } from '../../store/directory-table';
import { entityStore } from '../../store/directory-entity';
import { newId } from '../ids';
import { idFromSortKey, indexes, keys, REL, type Key } from '../../store/directory-keys';
import type { Id, Study } from '../model';
import { consents } from './dynamo-consents';
import { mustExist, organizationMustExist, partitionDeletes, relatedIds, studyMustExist } from './dynamo-relations';
import { patientSetWrite } from './dynamo-patients';
import {
  clientNotLinked,
  codeNotRequested,
  dataSourceNotLinked,
  enrolledPatientNotFound,
  notInStudyOrganization,
  studyClientNotFound,
  studyDataSourceNotFound,
  studyNotFound,
  type StudyRecords,
} from './port';

const studyEntities = entityStore<Study, Id>({
  key: keys.study,
  toItem: (study) => ({ ...keys.study(study.id), ...study }),
  notFound: studyNotFound,
});

/** Deletes a link that must be there (404 otherwise). */
const unlink = (key: Key, refusal: () => HttpError) => transact([remove(key, { condition: 'attribute_exists(pk)' }, refusal)]);

/** Where gsi1 holds the studies that use one data source or client. */
type StudyLinks = ReturnType<typeof indexes.studiesOfDataSource>;

/** Ids of the studies that use a data source or client, ascending (read from gsi1). */
async function studiesLinkedOn(index: StudyLinks): Promise<Id[]> {
  const links = await queryAll({ index: index.name, pk: index.pk, skPrefix: index.skPrefix, attributes: ['gsi1sk'] });
  return links.map((l) => idFromSortKey(String(l.gsi1sk)));
}

/** Deletes every link of the studies that use a data source or client. */
async function unlinkEverywhere(index: StudyLinks, keyOf: (studyId: Id) => Key): Promise<void> {
  await transactInChunks((await studiesLinkedOn(index)).map((studyId) => remove(keyOf(studyId))));
}

async function unenrol(studyId: Id, patientId: Id): Promise<void> {
  await consents.remove(patientId, studyId);
  await transact([remove(keys.studyPatient(studyId, patientId)), patientSetWrite(patientId, 'DELETE', 'studyIds', studyId)]);
}

const patientIds = (studyId: Id) => relatedIds(keys.study(studyId), REL.patient);

export const studies: StudyRecords = {
  newId: () => newId('study'),
  insert: (study) =>
    transact([
      studyEntities.create(study, () => conflict('Study id collision.')),
      put({ ...keys.organizationStudy(study.organizationId, study.id) }),
      organizationMustExist(study.organizationId),
    ]),
  get: studyEntities.get,
  getMany: studyEntities.getMany,
  read: studyEntities.read,
  update: ({ entity: current, version }, next) =>
    transact([
      studyEntities.replace(next, version),
      ...(next.organizationId !== current.organizationId
        ? [remove(keys.organizationStudy(current.organizationId, next.id)), put({ ...keys.organizationStudy(next.organizationId, next.id) }), organizationMustExist(next.organizationId)]
        : []),
    ]),
  remove: async (id) => {
    const { entity: study, version } = await studyEntities.read(id);
    await transact([studyEntities.remove(id, version), remove(keys.organizationStudy(study.organizationId, id))]);
    for (const patientId of await patientIds(id)) await unenrol(id, patientId);
    // What is left in its partition: requested codes, data sources and apps.
    await transactInChunks(await partitionDeletes(keys.study(id)));
  },
  enrol: (study, ids) =>
    transact([
      studyMustExist(study.id),
      ...ids.flatMap((patientId) => [
        put({ ...keys.studyPatient(study.id, patientId) }),
        patientSetWrite(patientId, 'ADD', 'studyIds', study.id, () => enrolledPatientNotFound(patientId)),
        mustExist(keys.organizationPatient(study.organizationId, patientId), () => notInStudyOrganization(patientId)),
      ]),
    ]),
  isEnrolled: async (studyId, patientId) => (await getItem(keys.studyPatient(studyId, patientId))) !== undefined,
  unenrol,
  patientIds,
  addCode: (studyId, code) => transact([put({ ...keys.studyCode(studyId, code.id), ...code }), studyMustExist(studyId)]),
  removeCode: async (studyId, codeId) => {
    await unlink(keys.studyCode(studyId, codeId), () => codeNotRequested(studyId, codeId));
    const decisions: Write[] = (await patientIds(studyId)).map((patientId) => remove(keys.consent(patientId, studyId, codeId)));
    await transactInChunks(decisions);
  },
  codes: async (studyId) => {
    const items = await queryAll({ pk: keys.study(studyId).pk, skPrefix: REL.code });
    return items.map((i) => ({ id: i.id as Id, system: i.system as string, code: i.code as string }));
  },
  addDataSource: (studyId, dataSourceId) =>
    transact([
      put({ ...keys.studyDataSource(studyId, dataSourceId), ...indexes.studyDataSource(studyId, dataSourceId) }),
      studyMustExist(studyId),
      mustExist(keys.dataSource(dataSourceId), () => studyDataSourceNotFound(dataSourceId)),
    ]),
  removeDataSource: (studyId, dataSourceId) => unlink(keys.studyDataSource(studyId, dataSourceId), () => dataSourceNotLinked(studyId, dataSourceId)),
  dataSourceIds: (studyId) => relatedIds(keys.study(studyId), REL.dataSource),
  usingDataSource: (dataSourceId) => studiesLinkedOn(indexes.studiesOfDataSource(dataSourceId)),
  unlinkDataSource: (dataSourceId) => unlinkEverywhere(indexes.studiesOfDataSource(dataSourceId), (studyId) => keys.studyDataSource(studyId, dataSourceId)),
  addClient: (studyId, clientNumber) =>
    transact([
      put({ ...keys.studyClient(studyId, clientNumber), ...indexes.studyClient(studyId, clientNumber) }),
      studyMustExist(studyId),
      mustExist(keys.oauthClientNumber(clientNumber), () => studyClientNotFound(clientNumber)),
    ]),
  removeClient: (studyId, clientNumber) => unlink(keys.studyClient(studyId, clientNumber), () => clientNotLinked(studyId, clientNumber)),
  clientIds: (studyId) => relatedIds(keys.study(studyId), REL.client),
  unlinkClient: (clientNumber) => unlinkEverywhere(indexes.studiesOfClient(clientNumber), (studyId) => keys.studyClient(studyId, clientNumber)),
};
