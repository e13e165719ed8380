/**
 * A patient's consent decisions: per study, per requested code, consented or declined, with the
 * time of the decision. A decision needs the patient enrolled in the study and the study to request
 * the code; the store checks both in the write that records it.
 */
import { badRequest } from '../http/errors';
import { getCodes } from './code-table';
import { now } from './fields';
import type { Consent, Id } from './model';
import { directoryStore } from './store/current';
import { fitsOneWrite } from './store/port';

export interface ConsentDecision {
  studyId: Id;
  codeId: Id;
  consented: boolean;
}

/** Records decisions (a later decision for the same study and code replaces the earlier one). */
export async function recordConsents(patientId: Id, decisions: readonly ConsentDecision[]): Promise<Consent[]> {
  const codes = new Map((await getCodes([...new Set(decisions.map((d) => d.codeId))])).map((c) => [c.id, c]));
  const at = now();
  const unique = [...new Map(decisions.map((d) => [`${d.studyId}/${d.codeId}`, d])).values()];
  const consents = unique.map((decision): Consent => {
    const code = codes.get(decision.codeId);
    if (!code) throw badRequest(`Code ${decision.codeId} not found.`, 'not-found', { fields: { codingCode: [`Unknown code ${decision.codeId}.`] } });
    return { patientId, studyId: decision.studyId, code: { id: code.id, system: code.system, code: code.code }, consented: decision.consented, consentedAt: at };
  });
  if (!fitsOneWrite.consents(consents.length, new Set(consents.map((c) => c.studyId)).size)) {
    throw badRequest('Too many consent decisions in one request.', 'too-costly');
  }
  await directoryStore().consents.record(patientId, consents);
  return consents;
}

/** Every decision of the patient, by study then code. */
export const listConsents = (patientId: Id): Promise<Consent[]> => directoryStore().consents.list(patientId);

/** Deletes the patient's decisions (for one study, or all). */
export const deleteConsents = (patientId: Id, studyId?: Id): Promise<void> => directoryStore().consents.remove(patientId, studyId);

/** Ids of the codes the patient has consented to in at least one study (what uploads may carry). */
export async function consentedCodeIds(patientId: Id): Promise<Set<Id>> {
  return new Set((await listConsents(patientId)).filter((c) => c.consented).map((c) => c.code.id));
}

/** Deletes these decisions of the patient (absent ones are skipped: deleting twice is harmless). */
export const deleteConsentDecisions = (patientId: Id, decisions: ReadonlyArray<{ studyId: Id; codeId: Id }>): Promise<void> =>
  directoryStore().consents.removeDecisions(patientId, decisions);
