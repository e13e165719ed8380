/** The in-memory twin of the studies: enrolments (read from the patients' `studyIds`), requested codes, data sources and apps. */
import { ascending, counter } from '../../store/memory';
import type { Id } from '../model';
import { deleteConsents, isEnrolled } from './memory-consents';
import { assertOrganization } from './memory-organizations';
import { consentKey, type MemoryTables } from './memory-tables';
import {
  clientNotLinked,
  codeNotRequested,
  concurrentChange,
  dataSourceNotLinked,
  enrolledPatientNotFound,
  notInStudyOrganization,
  studyClientNotFound,
  studyDataSourceNotFound,
  type StudyRecords,
} from './port';

export function memoryStudies(t: MemoryTables): StudyRecords {
  const { studies, patients } = t;
  const patientIds = (studyId: Id) => patients.all().filter((p) => p.studyIds.includes(studyId)).map((p) => p.id);
  const unenrol = (studyId: Id, patientId: Id) => {
    deleteConsents(t, patientId, studyId);
    if (!patients.has(patientId)) throw concurrentChange();
    const patient = patients.stored(patientId);
    patient.studyIds = patient.studyIds.filter((id) => id !== studyId);
  };
  /** Deletes a link that must be there. */
  const unlink = (linked: { delete(studyId: Id, member: Id): boolean }, studyId: Id, member: Id, refusal: () => Error) => {
    if (!linked.delete(studyId, member)) throw refusal();
  };

  return {
    newId: counter(),
    insert: async (study) => {
      assertOrganization(t, study.organizationId);
      studies.insert(study);
    },
    get: studies.get,
    getMany: studies.getMany,
    read: studies.read,
    update: async (read, next) => {
      studies.assertAt(read);
      if (next.organizationId !== read.entity.organizationId) assertOrganization(t, next.organizationId);
      studies.replace(read, next);
    },
    remove: async (id) => {
      studies.stored(id);
      studies.remove(id);
      for (const patientId of patientIds(id)) unenrol(id, patientId);
      for (const linked of [t.studyCodes, t.studyDataSources, t.studyClients]) linked.clear(id);
    },
    enrol: async (study, ids) => {
      studies.stored(study.id);
      for (const patientId of ids) {
        if (!patients.has(patientId)) throw enrolledPatientNotFound(patientId);
        if (!patients.stored(patientId).organizationIds.includes(study.organizationId)) throw notInStudyOrganization(patientId);
      }
      for (const patientId of ids) {
        const patient = patients.stored(patientId);
        patient.studyIds = ascending(new Set([...patient.studyIds, study.id]));
      }
    },
    isEnrolled: async (studyId, patientId) => isEnrolled(t, studyId, patientId),
    unenrol: async (studyId, patientId) => unenrol(studyId, patientId),
    patientIds: async (studyId) => patientIds(studyId),
    addCode: async (studyId, code) => {
      studies.stored(studyId);
      t.studyCodes.set(studyId, code.id, { id: code.id, system: code.system, code: code.code });
    },
    removeCode: async (studyId, codeId) => {
      unlink(t.studyCodes, studyId, codeId, () => codeNotRequested(studyId, codeId));
      for (const patientId of patientIds(studyId)) t.consents.get(patientId)?.delete(consentKey(studyId, codeId));
    },
    codes: async (studyId) => t.studyCodes.values(studyId),
    addDataSource: async (studyId, dataSourceId) => {
      const source = await t.catalog.dataSources.get(dataSourceId);
      studies.stored(studyId);
      if (!source) throw studyDataSourceNotFound(dataSourceId);
      t.studyDataSources.set(studyId, dataSourceId, true);
    },
    removeDataSource: async (studyId, dataSourceId) => unlink(t.studyDataSources, studyId, dataSourceId, () => dataSourceNotLinked(studyId, dataSourceId)),
    dataSourceIds: async (studyId) => t.studyDataSources.ids(studyId),
    usingDataSource: async (dataSourceId) => t.studyDataSources.containersOf(dataSourceId),
    unlinkDataSource: async (dataSourceId) => t.studyDataSources.unlinkEverywhere(dataSourceId),
    addClient: async (studyId, clientNumber) => {
      const client = await t.catalog.oauthClients.getById(clientNumber);
      studies.stored(studyId);
      if (!client) throw studyClientNotFound(clientNumber);
      t.studyClients.set(studyId, clientNumber, true);
    },
    removeClient: async (studyId, clientNumber) => unlink(t.studyClients, studyId, clientNumber, () => clientNotLinked(studyId, clientNumber)),
    clientIds: async (studyId) => t.studyClients.ids(studyId),
    unlinkClient: async (clientNumber) => t.studyClients.unlinkEverywhere(clientNumber),
  };
}
