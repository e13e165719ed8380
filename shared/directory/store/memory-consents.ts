/** The in-memory twin of the consent decisions. */
import { copy, innerMap } from '../../store/memory';
import type { Consent, Id } from '../model';
import { consentKey, type MemoryTables } from './memory-tables';
import { consentCodeNotRequested, notEnrolled, type ConsentRecords } from './port';

export const isEnrolled = (t: MemoryTables, studyId: Id, patientId: Id): boolean => t.patients.has(patientId) && t.patients.stored(patientId).studyIds.includes(studyId);

/** Deletes a patient's decisions for one study, or all. */
export function deleteConsents(t: MemoryTables, patientId: Id, studyId?: Id): void {
  const decisions = t.consents.get(patientId);
  for (const [key, consent] of decisions ?? []) if (studyId === undefined || consent.studyId === studyId) decisions!.delete(key);
}

const byStudyThenCode = (a: Consent, b: Consent) => a.studyId - b.studyId || a.code.id - b.code.id;

export function memoryConsents(t: MemoryTables): ConsentRecords {
  return {
    record: async (patientId, consents) => {
      const checked = new Set<Id>();
      for (const { studyId, code } of consents) {
        if (!t.studyCodes.has(studyId, code.id)) throw consentCodeNotRequested(studyId, code);
        if (!checked.has(studyId) && !isEnrolled(t, studyId, patientId)) throw notEnrolled(patientId, studyId);
        checked.add(studyId);
      }
      const decisions = innerMap(t.consents, patientId);
      for (const consent of consents) decisions.set(consentKey(consent.studyId, consent.code.id), copy(consent));
    },
    list: async (patientId) => [...(t.consents.get(patientId)?.values() ?? [])].sort(byStudyThenCode).map(copy),
    remove: async (patientId, studyId) => deleteConsents(t, patientId, studyId),
    removeDecisions: async (patientId, decisions) => {
      for (const { studyId, codeId } of decisions) t.consents.get(patientId)?.delete(consentKey(studyId, codeId));
    },
  };
}
