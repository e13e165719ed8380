/**
 * `/api/v1/patients/<id>/consents`: the overview, recording (idempotent), deleting (idempotent),
 * who may decide, and that no bad entry ever ends in a 500 or a partial write.
 *
 *   A: mA member, vA viewer; C: mC member. p1 (login) and p2 in A; p1 in studies s1 (hr, bp) and s2 (steps); p2 in s1.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { listConsents } from '../../../shared/directory/consents';
import type { Organization, Patient, Practitioner, Study } from '../../../shared/directory/model';
import { OMH_SYSTEM } from '../../../shared/fhir/constants';
import { refused, send } from '../../support/api';
import { makeDataSource, makeOrganization, makePatient, makePractitioner, makeStudy } from '../../support/directory';

type Who = { token: string };
let A: Organization, C: Organization;
let mA: Practitioner & Who, vA: Practitioner & Who, mC: Practitioner & Who;
let p1: Patient & Partial<Who>, p2: Patient & Partial<Who>;
let s1: Study, s2: Study, sOther: Study;

const HR = 'omh:heart-rate:2.0';
const BP = 'omh:blood-pressure:4.0';
const STEPS = 'omh:step-count:3.0';
const decision = (code: string, consented: boolean) => ({ coding_system: OMH_SYSTEM, coding_code: code, consented });

beforeAll(async () => {
  A = await makeOrganization({ name: 'A' });
  C = await makeOrganization({ name: 'C' });
  mA = await makePractitioner({ organizations: [A] });
  vA = await makePractitioner({ organizations: [A], role: 'viewer' });
  mC = await makePractitioner({ organizations: [C] });
  p1 = await makePatient({ organizations: [A], login: true });
  p2 = await makePatient({ organizations: [A], login: true });
  const watch = await makeDataSource({ name: 'watch' });
  s1 = await makeStudy({ organization: A, name: 'S1', codes: [HR, BP], patients: [p1, p2], dataSources: [watch] });
  s2 = await makeStudy({ organization: A, name: 'S2', codes: [STEPS], patients: [p1] });
  sOther = await makeStudy({ organization: A, name: 'Other', codes: [HR] });
});

const url = (p: Patient) => `/api/v1/patients/${p.id}/consents`;

describe('consents', () => {
  it('starts with every requested code pending', async () => {
    const res = await send('GET', url(p1), p1.token);
    expect(res.status).toBe(200);
    expect(res.json.patient).toMatchObject({ id: p1.id });
    expect(res.json.consolidatedConsentedScopes).toEqual([]);
    expect(res.json.studies).toEqual([]);
    const pending = res.json.studiesPendingConsent;
    expect(pending.map((s: { id: number }) => s.id)).toEqual([s1.id, s2.id]);
    expect(pending[0]).toMatchObject({ name: 'S1', organization: { id: A.id, name: 'A' }, dataSources: [{ name: 'watch' }] });
    expect(pending[0].pendingScopeConsents.map((c: { code: { codingCode: string } }) => c.code.codingCode).sort()).toEqual([BP, HR].sort());
    expect(pending[0].pendingScopeConsents[0]).toMatchObject({ consented: null, consentedTime: null, code: { codingSystem: OMH_SYSTEM } });
  });

  it('records decisions (201), idempotently, and shows them', async () => {
    const body = { study_scope_consents: [{ study_id: s1.id, scope_consents: [decision(HR, true)] }] };
    const first = await send('POST', url(p1), p1.token, body);
    expect(first.status).toBe(201);
    expect(first.json.studyScopeConsents).toEqual([
      { studyId: s1.id, scopeConsents: [{ codingSystem: OMH_SYSTEM, codingCode: HR, text: 'Heart Rate', consented: true, consentedTime: expect.stringMatching(/Z$/) }] },
    ]);
    expect((await send('POST', url(p1), p1.token, body)).status).toBe(201);
    expect((await listConsents(p1.id)).filter((c) => c.studyId === s1.id)).toHaveLength(1);

    const patched = await send('PATCH', url(p1), p1.token, { studyScopeConsents: [{ studyId: s1.id, scopeConsents: [{ codingSystem: OMH_SYSTEM, codingCode: BP, consented: false }] }] });
    expect(patched.status).toBe(200);
    const overview = (await send('GET', url(p1), p1.token)).json;
    expect(overview.consolidatedConsentedScopes.map((c: { codingCode: string }) => c.codingCode)).toEqual([HR]);
    const decided = overview.studies.find((s: { id: number }) => s.id === s1.id);
    expect(decided.scopeConsents.map((c: { code: { codingCode: string }; consented: boolean }) => [c.code.codingCode, c.consented]).sort()).toEqual([
      [BP, false],
      [HR, true],
    ]);
    expect(overview.studiesPendingConsent.map((s: { id: number }) => s.id)).toEqual([s2.id]);
  });

  it('deletes decisions (204), idempotently, one code or a whole study', async () => {
    await send('POST', url(p2), p2.token, { study_scope_consents: [{ study_id: s1.id, scope_consents: [decision(HR, true), decision(BP, true)] }] });
    const one = { study_scope_consents: [{ study_id: s1.id, scope_consents: [{ coding_system: OMH_SYSTEM, coding_code: HR }] }] };
    expect((await send('DELETE', url(p2), p2.token, one)).status).toBe(204);
    expect((await send('DELETE', url(p2), p2.token, one)).status).toBe(204);
    expect((await listConsents(p2.id)).map((c) => c.code.code)).toEqual([BP]);
    expect((await send('DELETE', url(p2), p2.token, { study_scope_consents: [{ study_id: s1.id }] })).status).toBe(204);
    expect(await listConsents(p2.id)).toEqual([]);
  });

  it('lets a member of the study\'s organization decide; not a viewer, an outsider or another patient', async () => {
    const body = { study_scope_consents: [{ study_id: s2.id, scope_consents: [decision(STEPS, true)] }] };
    expect((await send('POST', url(p1), mA.token, body)).status).toBe(201);
    expect((await refused('POST', url(p1), vA.token, body)).status).toBe(403);
    expect((await refused('POST', url(p1), mC.token, body)).status).toBe(404);
    expect((await refused('POST', url(p1), p2.token, body)).status).toBe(404);
    expect((await refused('GET', url(p1), p2.token)).status).toBe(404);
    expect((await refused('DELETE', url(p1), p2.token, { study_scope_consents: [{ study_id: s2.id }] })).status).toBe(404);
  });

  it('refuses a study the patient is not in, unknown and unrequested codes and unknown fields, naming the entry', async () => {
    const notEnrolled = await refused('POST', url(p1), p1.token, { study_scope_consents: [{ study_id: sOther.id, scope_consents: [decision(HR, true)] }] });
    expect(notEnrolled.json).toEqual({ 'studyScopeConsents.0.studyId': [`The patient is not enrolled in study ${sOther.id}.`] });
    const mixed = await refused('POST', url(p1), p1.token, {
      study_scope_consents: [{ study_id: s1.id, scope_consents: [decision(HR, false), decision('omh:nope:1.0', true), decision(STEPS, true)] }],
    });
    expect(mixed.status).toBe(400);
    expect(Object.keys(mixed.json)).toEqual(['studyScopeConsents.0.scopeConsents.1', 'studyScopeConsents.0.scopeConsents.2']);
    const unknown = await refused('POST', url(p1), p1.token, { study_scope_consents: [{ study_id: s1.id, scope_consents: [{ ...decision(HR, true), note: 'x' }] }], reset: true });
    expect(unknown.json).toEqual({ 'studyScopeConsents.0.scopeConsents.0.note': ['Unknown field.'], reset: ['Unknown field.'] });
    expect((await refused('POST', url(p1), p1.token, { study_scope_consents: [] })).json).toEqual({ studyScopeConsents: ['This list may not be empty.'] });
    expect((await refused('POST', url(p1), p1.token, { study_scope_consents: [{ study_id: '1 OR 1=1', scope_consents: [decision(HR, 'yes' as never)] }] })).status).toBe(400);
  });
});
