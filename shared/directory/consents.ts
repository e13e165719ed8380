/**
 * A patient's consent decisions: per study, per requested code, consented or declined, with the
 * time of the decision. A decision needs the patient enrolled in the study and the study to request
 * the code; the store checks both in the writing transaction.
 */
import { badRequest } from '../http/errors';
import { getCodes } from './code-table';
import { check, MAX_TRANSACTION, now, put, queryAll, remove, transact, transactInChunks, type Write } from './db';
import { keys, REL } from './keys';
import type { Consent, Id } from './model';

export interface ConsentDecision {
  studyId: Id;
  codeId: Id;
  consented: boolean;
}

/** Records decisions (a later decision for the same study and code replaces the earlier one). */
export async function recordConsents(patientId: Id, decisions: readonly ConsentDecision[]): Promise<Consent[]> {
  const codes = new Map((await getCodes([...new Set(decisions.map((d) => d.codeId))])).map((c) => [c.id, c]));
  const at = now();
  const consents: Consent[] = [];
  const writes: Write[] = [];
  const checked = new Set<string>();
  const unique = [...new Map(decisions.map((d) => [`${d.studyId}/${d.codeId}`, d])).values()];
  for (const decision of unique) {
    const code = codes.get(decision.codeId);
    if (!code) throw badRequest(`Code ${decision.codeId} not found.`, 'not-found', { fields: { codingCode: [`Unknown code ${decision.codeId}.`] } });
    const consent: Consent = { patientId, studyId: decision.studyId, code: { id: code.id, system: code.system, code: code.code }, consented: decision.consented, consentedAt: at };
    consents.push(consent);
    writes.push(put({ ...keys.consent(patientId, decision.studyId, code.id), ...consent }));
    writes.push(
      check(keys.studyCode(decision.studyId, code.id), 'attribute_exists(pk)', {}, () =>
        badRequest(`Study ${decision.studyId} does not request code ${code.system}|${code.code}.`, 'business-rule'),
      ),
    );
    const enrolment = `${decision.studyId}`;
    if (!checked.has(enrolment)) {
      checked.add(enrolment);
      writes.push(
        check(keys.studyPatient(decision.studyId, patientId), 'attribute_exists(pk)', {}, () =>
          badRequest(`Patient ${patientId} is not enrolled in study ${decision.studyId}.`, 'business-rule'),
        ),
      );
    }
  }
  if (writes.length > MAX_TRANSACTION) throw badRequest('Too many consent decisions in one request.', 'too-costly');
  await transact(writes);
  return consents;
}

/** Every decision of the patient, by study then code. */
export async function listConsents(patientId: Id): Promise<Consent[]> {
  const items = await queryAll({ pk: keys.patient(patientId).pk, skPrefix: REL.consent });
  return items.map((i) => ({
    patientId: i.patientId as Id,
    studyId: i.studyId as Id,
    code: i.code as Consent['code'],
    consented: i.consented as boolean,
    consentedAt: i.consentedAt as string,
  }));
}

/** Deletes the patient's decisions (for one study, or all). */
export async function deleteConsents(patientId: Id, studyId?: Id): Promise<void> {
  const prefix = studyId === undefined ? REL.consent : keys.consentsOfStudy(studyId);
  const items = await queryAll({ pk: keys.patient(patientId).pk, skPrefix: prefix, attributes: ['pk', 'sk'] });
  const writes = items.map((i) => remove({ pk: i.pk as string, sk: i.sk as string }));
  await transactInChunks(writes);
}

/** Ids of the codes the patient has consented to in at least one study (what uploads may carry). */
export async function consentedCodeIds(patientId: Id): Promise<Set<Id>> {
  return new Set((await listConsents(patientId)).filter((c) => c.consented).map((c) => c.code.id));
}

/** Deletes these decisions of the patient (absent ones are skipped: deleting twice is harmless). */
export async function deleteConsentDecisions(patientId: Id, decisions: ReadonlyArray<{ studyId: Id; codeId: Id }>): Promise<void> {
  const writes = decisions.map((d) => remove(keys.consent(patientId, d.studyId, d.codeId)));
  await transactInChunks(writes);
}
