/** Consent decisions on the directory table: in the patient's partition, by study then code. */
import { put, queryAll, remove, transact, transactInChunks, type Write } from '../../store/directory-table';
import { keys, REL } from '../../store/directory-keys';
import type { Consent, Id } from '../model';
import { mustExist, partitionDeletes } from './dynamo-relations';
import { consentCodeNotRequested, notEnrolled, type ConsentRecords } from './port';

export const consents: ConsentRecords = {
  record: (patientId, decisions) => {
    const writes: Write[] = [];
    const checked = new Set<Id>();
    for (const consent of decisions) {
      const { studyId, code } = consent;
      writes.push(put({ ...keys.consent(patientId, studyId, code.id), ...consent }));
      writes.push(mustExist(keys.studyCode(studyId, code.id), () => consentCodeNotRequested(studyId, code)));
      if (!checked.has(studyId)) {
        checked.add(studyId);
        writes.push(mustExist(keys.studyPatient(studyId, patientId), () => notEnrolled(patientId, studyId)));
      }
    }
    return transact(writes);
  },
  list: async (patientId) => {
    const items = await queryAll({ pk: keys.patient(patientId).pk, skPrefix: REL.consent });
    return items.map((i) => ({
      patientId: i.patientId as Id,
      studyId: i.studyId as Id,
      code: i.code as Consent['code'],
      consented: i.consented as boolean,
      consentedAt: i.consentedAt as string,
    }));
  },
  remove: async (patientId, studyId) =>
    transactInChunks(await partitionDeletes(keys.patient(patientId), studyId === undefined ? REL.consent : keys.consentsOfStudy(studyId))),
  removeDecisions: (patientId, decisions) => transactInChunks(decisions.map((d) => remove(keys.consent(patientId, d.studyId, d.codeId)))),
};
