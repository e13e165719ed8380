/** Consent decisions beyond what the store records in one all-or-nothing write. */
import { describe, expect, it } from 'vitest';
import { createCode } from '../../../shared/directory/code-table';
import { listConsents, recordConsents } from '../../../shared/directory/consents';
import { addStudyCode } from '../../../shared/directory/studies';
import { makeOrganization, makePatient, makeStudy } from '../../support/directory';

describe('recordConsents', () => {
  it('refuses more decisions than one write holds (400 too-costly) and records none of them', async () => {
    const organization = await makeOrganization();
    const patient = await makePatient({ organizations: [organization] });
    const study = await makeStudy({ organization, patients: [patient] });
    const codes = [];
    for (let i = 0; i < 50; i += 1) codes.push(await createCode({ system: 'https://consents.test/codes', code: `limit-${i}`, display: `Limit ${i}` }));
    for (const c of codes) await addStudyCode(study.id, c.id);
    const decisions = codes.map((c) => ({ studyId: study.id, codeId: c.id, consented: true }));
    await expect(recordConsents(patient.id, decisions)).rejects.toMatchObject({ status: 400, message: 'Too many consent decisions in one request.' });
    expect(await listConsents(patient.id)).toEqual([]);
    // The most that fit (49 decisions and the study's enrolment check) are recorded together.
    expect(await recordConsents(patient.id, decisions.slice(0, 49))).toHaveLength(49);
    expect(await listConsents(patient.id)).toHaveLength(49);
  });
});
