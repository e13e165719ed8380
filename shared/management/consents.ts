/**
 * A patient's consent decisions through `/api/v1/patients/<id>/consents`. The patient decides for
 * themselves; a practitioner with the member role in a study's organization may record decisions
 * for that study. Every decision names a study the patient is enrolled in and a code the study
 * requests; anything else is a 400 naming the entry, never a failure half-way. Recording the same
 * decision again, or deleting one that is gone, changes nothing and succeeds.
 */
import { isPatient, type Caller } from '../auth/caller';
import { assertCanReadPatient, requireRole } from '../auth/scope';
import { findCode } from '../directory/code-table';
import { deleteConsentDecisions, listConsents, recordConsents, type ConsentDecision } from '../directory/consents';
import { getDataSources } from '../directory/data-sources';
import type { Code, Consent, Id, Patient, Study } from '../directory/model';
import { getOrganizations } from '../directory/organizations';
import { getStudies, listStudyCodes, listStudyDataSourceIds } from '../directory/studies';
import { fieldErrors, type FieldErrors } from '../http/errors';
import { codeTable } from './data-sources';
import { patientViewFor } from './patients';
import { codeRefView, dataSourceSummary, type CodeView } from './views';

export interface CodingInput {
  codingSystem: string;
  codingCode: string;
}

export interface StudyConsentsInput {
  studyId: Id;
  scopeConsents: Array<CodingInput & { consented: boolean }>;
}

export interface StudyConsentsRemoval {
  studyId: Id;
  /** The decisions to delete; all of the study's when absent. */
  scopeConsents?: CodingInput[];
}

/** The studies of the patient whose consents the caller may see: all for the patient, their organizations' for a practitioner. */
async function visibleStudies(caller: Caller, patient: Patient): Promise<Study[]> {
  const studies = await getStudies(patient.studyIds);
  return isPatient(caller) ? studies : studies.filter((s) => caller.roles.has(s.organizationId));
}

export async function consentOverview(caller: Caller, patientId: Id) {
  const patient = await assertCanReadPatient(caller, patientId);
  const [studies, consents, table] = await Promise.all([visibleStudies(caller, patient), listConsents(patient.id), codeTable()]);
  const orgs = new Map((await getOrganizations([...new Set(studies.map((s) => s.organizationId))])).map((o) => [o.id, o]));
  const described = await Promise.all(
    studies.map(async (study) => {
      const [requested, dataSources] = await Promise.all([listStudyCodes(study.id), listStudyDataSourceIds(study.id).then(getDataSources)]);
      const org = orgs.get(study.organizationId);
      const decided = consents.filter((c) => c.studyId === study.id);
      const decidedCodes = new Set(decided.map((c) => c.code.id));
      const base = {
        id: study.id,
        name: study.name,
        description: study.description,
        organization: org ? { id: org.id, name: org.name, type: org.type } : { id: study.organizationId },
        dataSources: dataSources.map(dataSourceSummary),
      };
      return {
        base,
        pending: requested.filter((c) => !decidedCodes.has(c.id)).map((c) => ({ code: codeRefView(c, table), consented: null, consentedTime: null })),
        decided: decided.map((c) => decisionView(c, table)),
      };
    }),
  );
  const consented = new Map<Id, CodeView>();
  for (const c of consents) if (c.consented && studies.some((s) => s.id === c.studyId)) consented.set(c.code.id, codeRefView(c.code, table));
  return {
    patient: await patientViewFor(caller, patient),
    consolidatedConsentedScopes: [...consented.values()].sort((a, b) => a.id - b.id),
    studiesPendingConsent: described.filter((d) => d.pending.length > 0).map((d) => ({ ...d.base, pendingScopeConsents: d.pending })),
    studies: described.filter((d) => d.decided.length > 0).map((d) => ({ ...d.base, scopeConsents: d.decided })),
  };
}

function decisionView(consent: Consent, table: ReadonlyMap<Id, Code>) {
  return { code: codeRefView(consent.code, table), consented: consent.consented, consentedTime: consent.consentedAt };
}

/**
 * Resolves entries to decisions: each study must be one the patient is enrolled in (and, for a
 * practitioner, of an organization where they hold the member role), each coding a code the study
 * requests. All problems are reported together, by entry.
 */
async function resolveEntries<E extends { studyId: Id; scopeConsents?: CodingInput[] }>(
  caller: Caller,
  patientId: Id,
  entries: readonly E[],
): Promise<Array<{ entry: E; codes: Array<Code | undefined> | undefined }>> {
  const patient = await assertCanReadPatient(caller, patientId);
  const studies = new Map((await getStudies([...new Set(entries.map((e) => e.studyId))])).map((s) => [s.id, s]));
  const errors: FieldErrors = {};
  const resolved = await Promise.all(
    entries.map(async (entry, i) => {
      const study = studies.get(entry.studyId);
      if (!study || !patient.studyIds.includes(study.id)) {
        errors[`studyScopeConsents.${i}.studyId`] = [`The patient is not enrolled in study ${entry.studyId}.`];
        return { entry, codes: undefined };
      }
      if (!isPatient(caller)) requireRole(caller, study.organizationId, 'member');
      const requested = (await listStudyCodes(study.id)).map((c) => c.id);
      const codes = entry.scopeConsents && (await Promise.all(entry.scopeConsents.map((c) => findCode(c.codingSystem, c.codingCode))));
      codes?.forEach((code, j) => {
        const coding = entry.scopeConsents![j]!;
        if (!code) errors[`studyScopeConsents.${i}.scopeConsents.${j}`] = [`Unknown code ${coding.codingSystem}|${coding.codingCode}.`];
        else if (!requested.includes(code.id)) {
          errors[`studyScopeConsents.${i}.scopeConsents.${j}`] = [`Study ${study.id} does not request ${coding.codingSystem}|${coding.codingCode}.`];
        }
      });
      return { entry, codes };
    }),
  );
  if (Object.keys(errors).length > 0) throw fieldErrors(errors);
  return resolved;
}

export async function recordConsentsBy(caller: Caller, patientId: Id, entries: readonly StudyConsentsInput[]) {
  const resolved = await resolveEntries(caller, patientId, entries);
  const decisions: ConsentDecision[] = resolved.flatMap(({ entry, codes }) =>
    entry.scopeConsents.map((c, j) => ({ studyId: entry.studyId, codeId: codes![j]!.id, consented: c.consented })),
  );
  const recorded = await recordConsents(patientId, decisions);
  const table = await codeTable();
  const byStudy = new Map<Id, ReturnType<typeof recordedView>[]>();
  for (const consent of recorded) byStudy.set(consent.studyId, [...(byStudy.get(consent.studyId) ?? []), recordedView(consent, table)]);
  return { studyScopeConsents: [...byStudy].map(([studyId, scopeConsents]) => ({ studyId, scopeConsents })) };
}

function recordedView(consent: Consent, table: ReadonlyMap<Id, Code>) {
  const code = codeRefView(consent.code, table);
  return { codingSystem: code.codingSystem, codingCode: code.codingCode, text: code.text, consented: consent.consented, consentedTime: consent.consentedAt };
}

export async function deleteConsentsBy(caller: Caller, patientId: Id, removals: readonly StudyConsentsRemoval[]): Promise<void> {
  const resolved = await resolveEntries(caller, patientId, removals);
  const existing = await listConsents(patientId);
  const targets = resolved.flatMap(({ entry, codes }) => {
    const codeIds = codes ? codes.map((c) => c!.id) : existing.filter((c) => c.studyId === entry.studyId).map((c) => c.code.id);
    return codeIds.map((codeId) => ({ studyId: entry.studyId, codeId }));
  });
  await deleteConsentDecisions(patientId, targets);
}
