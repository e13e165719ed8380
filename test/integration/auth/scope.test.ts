/**
 * Every rule of caller scoping (docs/access.md#who-sees-what-sharedauthscopets-used-by-every-read), on one small world:
 *
 *   A (root) > B (child)        C (separate)
 *   drA member of A, drA2 viewer of A, drB viewer of B, drC member of C, admin: superuser, no org
 *   p1 in A, p2 in B, p3 in A and B, p4 in C, p5 in no organization
 *   studies: sA (A: p1, p3; hr, bp; watch, app), sA2 (A: p3; steps; monitor), sB (B: p2, p3; hr; watch), sC (C: p4; other)
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { callerFromToken } from '../../../shared/auth/authenticate';
import { isPractitioner, type Caller, type PractitionerCaller } from '../../../shared/auth/caller';
import {
  assertCanReadDataSource,
  assertCanReadFhirSource,
  assertCanReadOrganization,
  assertCanReadPatient,
  assertCanReadPractitioner,
  assertCanReadStudy,
  assertCanReadStudyScope,
  assertCanUseFhirSource,
  assertCanWriteForPatient,
  dataSourceScope,
  organizationScope,
  parseIdentifierToken,
  patientScope,
  practitionerScope,
  referenceId,
  requireRole,
  requireSuperuser,
  studyScope,
  type ScopeFilter,
} from '../../../shared/auth/scope';
import type { Code, DataSource, FhirSource, Organization, Patient, Practitioner, Study } from '../../../shared/directory/model';
import { code, makeDataSource, makeFhirSource, makeOrganization, makePatient, makePractitioner, makeStudy } from '../../support/directory';

const MRN = 'https://hospital.example.test/mrn';
const OTHER = 'https://other.example.test/id';

let A: Organization, B: Organization, C: Organization;
let drA: Practitioner, drA2: Practitioner, drB: Practitioner, drC: Practitioner, admin: Practitioner;
let p1: Patient, p2: Patient, p3: Patient, p4: Patient, p5: Patient;
let sA: Study, sA2: Study, sB: Study, sC: Study;
let watch: DataSource, app: DataSource, monitor: DataSource, other: DataSource;
let src1: FhirSource, src2: FhirSource, src4: FhirSource;
let hr: Code, bp: Code, steps: Code;
const as: Record<string, Caller> = {};

beforeAll(async () => {
  A = await makeOrganization({ name: 'A' });
  B = await makeOrganization({ name: 'B', partOf: A });
  C = await makeOrganization({ name: 'C' });
  const doctors = {
    drA: await makePractitioner({ organizations: [A], role: 'member' }),
    drA2: await makePractitioner({ organizations: [A], role: 'viewer' }),
    drB: await makePractitioner({ organizations: [B], role: 'viewer' }),
    drC: await makePractitioner({ organizations: [C], role: 'member' }),
    admin: await makePractitioner({ superuser: true }),
  };
  ({ drA, drA2, drB, drC, admin } = doctors);
  const patients = {
    p1: await makePatient({ organizations: [A], login: true, identifiers: [{ system: MRN, value: 'p1' }] }),
    p2: await makePatient({ organizations: [B], login: true }),
    p3: await makePatient({ organizations: [A, B], login: true, identifiers: [{ system: MRN, value: 'dup' }] }),
    p4: await makePatient({ organizations: [C], login: true, identifiers: [{ system: MRN, value: 'p4' }, { system: OTHER, value: 'dup' }] }),
    p5: await makePatient({ login: true }),
  };
  ({ p1, p2, p3, p4, p5 } = patients);
  for (const [name, who] of Object.entries({ ...doctors, ...patients })) as[name] = await callerFromToken(who.token!);
  [hr, bp, steps] = (await Promise.all(['omh:heart-rate:2.0', 'omh:blood-pressure:4.0', 'omh:step-count:3.0'].map(code))) as [Code, Code, Code];
  watch = await makeDataSource({ name: 'watch' });
  app = await makeDataSource({ name: 'app', type: 'patient_app' });
  monitor = await makeDataSource({ name: 'monitor', type: 'medical_device' });
  other = await makeDataSource({ name: 'other' });
  sA = await makeStudy({ organization: A, codes: [hr.code, bp.code], patients: [p1, p3], dataSources: [watch, app] });
  sA2 = await makeStudy({ organization: A, codes: [steps.code], patients: [p3], dataSources: [monitor] });
  sB = await makeStudy({ organization: B, codes: [hr.code], patients: [p2, p3], dataSources: [watch] });
  sC = await makeStudy({ organization: C, patients: [p4], dataSources: [other] });
  src1 = await makeFhirSource({ patient: p1, dataSource: watch });
  src2 = await makeFhirSource({ patient: p2, dataSource: watch });
  src4 = await makeFhirSource({ patient: p4, dataSource: watch });
});

const ids = (...xs: { id: number }[]) => xs.map((x) => x.id).sort((a, b) => a - b);
const forbidden = expect.objectContaining({ status: 403 });
const notFound = expect.objectContaining({ status: 404 });
const patientsOf = async (who: string, filter: ScopeFilter = {}) => (await patientScope(as[who]!, filter)).patientIds;

/** Single reads: each `[caller, id]` of `visible` is returned, each of `hidden` is a 404. */
async function expectReads(
  read: (caller: Caller, id: number) => Promise<{ id: number }>,
  visible: ReadonlyArray<readonly [string, number]>,
  hidden: ReadonlyArray<readonly [string, number]>,
) {
  for (const [who, id] of visible) expect((await read(as[who]!, id)).id, `${who} reads ${id}`).toBe(id);
  for (const [who, id] of hidden) await expect(read(as[who]!, id), `${who} reads ${id}`).rejects.toEqual(notFound);
}

describe('filter parsing', () => {
  it('reads ids, references and identifier tokens', () => {
    expect(referenceId('12', 'Patient')).toBe(12);
    expect(referenceId('Patient/12', 'Patient')).toBe(12);
    expect(referenceId('https://x.test/FHIR/R5/Patient/12', 'Patient')).toBe(12);
    expect(referenceId('Group/12', 'Patient')).toBeUndefined();
    expect(referenceId('12abc', 'Patient')).toBeUndefined();
    expect(parseIdentifierToken('sys|val')).toEqual({ system: 'sys', value: 'val' });
    expect(parseIdentifierToken('val')).toEqual({ value: 'val' });
    expect(parseIdentifierToken('|val')).toEqual({ value: 'val' });
  });
});

describe('patients a read may return', () => {
  it('a patient: only themselves, whatever they name; alternatives out of reach drop out; never a 403', async () => {
    expect(await patientsOf('p1')).toEqual([p1.id]);
    expect(await patientsOf('p1', { patient: p1.id })).toEqual([p1.id]);
    expect(await patientsOf('p1', { patient: `Patient/${p1.id}` })).toEqual([p1.id]);
    expect(await patientsOf('p1', { patient: p2.id })).toEqual([]);
    expect(await patientsOf('p1', { patient: [p1.id, p2.id] })).toEqual([p1.id]);
    expect(await patientsOf('p1', { organization: [B.id, A.id] })).toEqual([p1.id]);
    expect(await patientsOf('p1', { study: [sB.id, sA.id] })).toEqual([p1.id]);
    expect(await patientsOf('p1', { organization: A.id, study: sB.id })).toEqual([]);
    expect(await patientsOf('p1', { patient: 'abc' })).toEqual([]);
    expect(await patientsOf('p1', { organization: A.id })).toEqual([p1.id]);
    expect(await patientsOf('p1', { organization: B.id })).toEqual([]);
    expect(await patientsOf('p1', { study: sA.id })).toEqual([p1.id]);
    expect(await patientsOf('p1', { study: sB.id })).toEqual([]);
    expect(await patientsOf('p1', { identifier: { system: MRN, value: 'p1' } })).toEqual([p1.id]);
    expect(await patientsOf('p1', { identifier: { system: MRN, value: 'p4' } })).toEqual([]);
    expect(await patientsOf('p5')).toEqual([p5.id]);
  });

  it('a patient’s study filter carries the study’s requested codes', async () => {
    const scope = await patientScope(as.p1!, { study: sA.id });
    expect(scope.codesByPatient?.get(p1.id)?.map((c) => c.id)).toEqual(ids(hr, bp));
    expect((await patientScope(as.p1!)).codesByPatient).toBeUndefined();
  });

  it('a practitioner: patients sharing any of their organizations, directly (no inheritance, any role)', async () => {
    expect(await patientsOf('drA')).toEqual(ids(p1, p3));
    expect(await patientsOf('drA2')).toEqual(ids(p1, p3));
    expect(await patientsOf('drB')).toEqual(ids(p2, p3));
    expect(await patientsOf('drC')).toEqual(ids(p4));
    expect(await patientsOf('admin')).toEqual([]);
  });

  it('`patient`: 403 when any named patient is out of reach (or missing)', async () => {
    expect(await patientsOf('drA', { patient: p1.id })).toEqual([p1.id]);
    expect(await patientsOf('drA', { patient: [p1.id, p3.id] })).toEqual(ids(p1, p3));
    await expect(patientsOf('drA', { patient: p2.id })).rejects.toEqual(forbidden);
    await expect(patientsOf('drA', { patient: [p1.id, p2.id] })).rejects.toEqual(forbidden);
    await expect(patientsOf('drA', { patient: p5.id })).rejects.toEqual(forbidden);
    await expect(patientsOf('drA', { patient: 987654 })).rejects.toEqual(forbidden);
    await expect(patientsOf('drA', { patient: 'abc' })).rejects.toEqual(forbidden);
    await expect(patientsOf('admin', { patient: p1.id })).rejects.toEqual(forbidden);
  });

  it('`patient.organization`: the organization’s patients; 403 outside the caller’s organizations', async () => {
    expect(await patientsOf('drA', { organization: A.id })).toEqual(ids(p1, p3));
    expect(await patientsOf('drA', { organization: `Organization/${A.id}` })).toEqual(ids(p1, p3));
    await expect(patientsOf('drA', { organization: B.id })).rejects.toEqual(forbidden);
    await expect(patientsOf('drA', { organization: C.id })).rejects.toEqual(forbidden);
    await expect(patientsOf('drA', { organization: [A.id, C.id] })).rejects.toEqual(forbidden);
    expect(await patientsOf('drB', { organization: B.id })).toEqual(ids(p2, p3));
  });

  it('`_has:Group:member:_id`: the study’s patients and, per patient, the study’s codes; 403 for other studies', async () => {
    const scope = await patientScope(as.drA!, { study: sA.id });
    expect(scope.patientIds).toEqual(ids(p1, p3));
    expect(scope.codesByPatient?.get(p1.id)?.map((c) => c.code)).toEqual([hr, bp].sort((a, b) => a.id - b.id).map((c) => c.code));
    const both = await patientScope(as.drA!, { study: [sA.id, sA2.id] });
    expect(both.patientIds).toEqual(ids(p1, p3));
    expect(both.codesByPatient?.get(p1.id)?.map((c) => c.id)).toEqual(ids(hr, bp));
    expect(both.codesByPatient?.get(p3.id)?.map((c) => c.id)).toEqual(ids(hr, bp, steps));
    await expect(patientsOf('drA', { study: sB.id })).rejects.toEqual(forbidden);
    await expect(patientsOf('drA', { study: 987654 })).rejects.toEqual(forbidden);
    expect(await patientsOf('drB', { study: sB.id })).toEqual(ids(p2, p3));
  });

  it('`identifier`: matches only what the caller may see, and never answers 403', async () => {
    expect(await patientsOf('drA', { identifier: { system: MRN, value: 'p1' } })).toEqual([p1.id]);
    expect(await patientsOf('drA', { identifier: { system: MRN, value: 'p4' } })).toEqual([]);
    expect(await patientsOf('drA', { identifier: { value: 'dup' } })).toEqual([p3.id]);
    expect(await patientsOf('drC', { identifier: { value: 'dup' } })).toEqual([p4.id]);
    expect(await patientsOf('drA', { identifier: [{ system: MRN, value: 'p1' }, { value: 'dup' }] })).toEqual(ids(p1, p3));
    expect(await patientsOf('drA', { identifier: { system: MRN, value: 'nobody' } })).toEqual([]);
  });

  it('several parameters must all hold', async () => {
    expect(await patientsOf('drA', { organization: A.id, patient: p1.id })).toEqual([p1.id]);
    expect(await patientsOf('drA', { organization: A.id, study: sA2.id })).toEqual([p3.id]);
    expect(await patientsOf('drA', { study: sA.id, identifier: { system: MRN, value: 'p1' } })).toEqual([p1.id]);
    expect(await patientsOf('drA', { patient: p1.id, study: sA2.id })).toEqual([]);
  });
});

describe('single patient reads and writes', () => {
  it('reads: another patient’s id is a 404, the same as a missing one', async () => {
    await expectReads(
      assertCanReadPatient,
      [['p1', p1.id], ['drA', p3.id], ['drA2', p1.id]],
      [['p1', p2.id], ['drA', p2.id], ['drA', p4.id], ['drA', p5.id], ['drC', p1.id], ['admin', p1.id], ['drA', 987654], ['p1', 987654]],
    );
    expect((await assertCanReadPatient(as.drA!, `Patient/${p3.id}`)).id).toBe(p3.id);
    await expect(assertCanReadPatient(as.drA!, 'x')).rejects.toEqual(notFound);
  });

  it('writes: the patient, or a member (not a viewer) of one of their organizations; 403 otherwise', async () => {
    expect((await assertCanWriteForPatient(as.p1!, p1.id)).id).toBe(p1.id);
    expect((await assertCanWriteForPatient(as.drA!, p3.id)).id).toBe(p3.id);
    for (const [who, id] of [['p1', p2.id], ['drA2', p1.id], ['drB', p2.id], ['drA', p2.id], ['drA', 987654], ['p1', 987654], ['admin', p1.id]] as const) {
      await expect(assertCanWriteForPatient(as[who]!, id), `${who} -> ${id}`).rejects.toEqual(forbidden);
    }
  });

  it('FHIR Sources: missing or unknown 400, not yours 403', async () => {
    expect((await assertCanUseFhirSource(as.p1!, String(src1.id))).source.id).toBe(src1.id);
    expect((await assertCanUseFhirSource(as.drA!, src1.id)).patient.id).toBe(p1.id);
    for (const raw of [undefined, '', '  ', 'abc', '987654', '-1']) {
      await expect(assertCanUseFhirSource(as.p1!, raw), String(raw)).rejects.toMatchObject({ status: 400 });
    }
    await expect(assertCanUseFhirSource(as.p1!, src4.id)).rejects.toEqual(forbidden);
    await expect(assertCanUseFhirSource(as.drC!, src1.id)).rejects.toEqual(forbidden);
    await expect(assertCanUseFhirSource(as.drB!, src2.id)).rejects.toEqual(forbidden);
    await expect(assertCanUseFhirSource(as.p2!, src1.id)).rejects.toEqual(forbidden);
  });

  it('FHIR Source reads: own or a visible patient’s, else 404', async () => {
    await expectReads(
      assertCanReadFhirSource,
      [['p1', src1.id], ['drA', src1.id], ['drB', src2.id]],
      [['p1', src4.id], ['p2', src1.id], ['drA', src4.id], ['drA', 987654]],
    );
  });
});

describe('Group (studies)', () => {
  it('unfiltered: a patient’s studies; a practitioner’s organizations’ studies', async () => {
    expect(await studyScope(as.p1!)).toEqual(ids(sA));
    expect(await studyScope(as.p3!)).toEqual(ids(sA, sA2, sB));
    expect(await studyScope(as.p5!)).toEqual([]);
    expect(await studyScope(as.drA!)).toEqual(ids(sA, sA2));
    expect(await studyScope(as.drB!)).toEqual(ids(sB));
    expect(await studyScope(as.admin!)).toEqual([]);
  });

  it('the rows of the scoping table', async () => {
    expect(await studyScope(as.drA!, { study: sA.id })).toEqual(ids(sA));
    expect(await studyScope(as.drA!, { patient: p3.id })).toEqual(ids(sA, sA2));
    expect(await studyScope(as.drB!, { patient: p3.id })).toEqual(ids(sB));
    expect(await studyScope(as.drA!, { organization: A.id })).toEqual(ids(sA, sA2));
    expect(await studyScope(as.drA!, { identifier: { system: MRN, value: 'p1' } })).toEqual(ids(sA));
    await expect(studyScope(as.drA!, { study: sB.id })).rejects.toEqual(forbidden);
    await expect(studyScope(as.drA!, { patient: p2.id })).rejects.toEqual(forbidden);
    await expect(studyScope(as.drA!, { organization: B.id })).rejects.toEqual(forbidden);
    expect(await studyScope(as.p1!, { study: sB.id })).toEqual([]);
    expect(await studyScope(as.p1!, { patient: p2.id })).toEqual([]);
    expect(await studyScope(as.p3!, { organization: B.id })).toEqual(ids(sB));
  });

  it('single reads', async () => {
    await expectReads(assertCanReadStudy, [['p1', sA.id], ['drA', sA2.id]], [['p1', sB.id], ['drA', sB.id], ['drA', sC.id], ['drA', 987654]]);
  });

  it('a study read with its scope: the same reads, and the scope `patientScope` gives with the study', async () => {
    const withScope = (caller: Caller, id: number) => assertCanReadStudyScope(caller, id).then((r) => r.study);
    await expectReads(withScope, [['p1', sA.id], ['drA', sA2.id]], [['p1', sB.id], ['drA', sB.id], ['drA', sC.id], ['drA', 987654]]);
    for (const [who, study] of [['drA', sA], ['drA', sA2], ['drB', sB], ['p1', sA], ['p3', sB]] as const) {
      const { scope } = await assertCanReadStudyScope(as[who]!, study.id);
      expect(scope, `${who} in ${study.name}`).toEqual(await patientScope(as[who]!, { study: study.id }));
      expect(scope.patientIds.length, `${who} in ${study.name}`).toBeGreaterThan(0);
    }
    expect((await assertCanReadStudyScope(as.drA!, sA.id)).scope.codesByPatient?.get(p3.id)?.map((c) => c.id)).toEqual(ids(hr, bp));
  });
});

describe('Device (data sources)', () => {
  it('the data sources of the studies the caller sees, per the scoping table', async () => {
    expect(await dataSourceScope(as.drA!)).toEqual(ids(watch, app, monitor));
    expect(await dataSourceScope(as.drA!, { study: sA.id })).toEqual(ids(watch, app));
    expect(await dataSourceScope(as.drA!, { patient: p1.id })).toEqual(ids(watch, app));
    expect(await dataSourceScope(as.drA!, { organization: A.id })).toEqual(ids(watch, app, monitor));
    expect(await dataSourceScope(as.drB!)).toEqual(ids(watch));
    expect(await dataSourceScope(as.drC!)).toEqual(ids(other));
    expect(await dataSourceScope(as.p1!)).toEqual(ids(watch, app));
    expect(await dataSourceScope(as.p1!, { study: sB.id })).toEqual([]);
    await expect(dataSourceScope(as.drA!, { study: sC.id })).rejects.toEqual(forbidden);
  });

  it('single reads', async () => {
    await expectReads(
      assertCanReadDataSource,
      [['drA', monitor.id], ['p1', app.id]],
      [['drA', other.id], ['p1', monitor.id], ['drB', app.id], ['drA', 987654]],
    );
  });
});

describe('Organization', () => {
  it('the caller’s organizations, per the scoping table', async () => {
    expect(await organizationScope(as.drA!)).toEqual(ids(A));
    expect(await organizationScope(as.drB!)).toEqual(ids(B));
    expect(await organizationScope(as.p3!)).toEqual(ids(A, B));
    expect(await organizationScope(as.p5!)).toEqual([]);
    expect(await organizationScope(as.drA!, { study: sA.id })).toEqual(ids(A));
    expect(await organizationScope(as.drA!, { patient: p3.id })).toEqual(ids(A));
    expect(await organizationScope(as.drA!, { organization: A.id })).toEqual(ids(A));
    expect(await organizationScope(as.p3!, { study: sB.id })).toEqual(ids(B));
    expect(await organizationScope(as.p1!, { organization: B.id })).toEqual([]);
    await expect(organizationScope(as.drA!, { organization: B.id })).rejects.toEqual(forbidden);
    await expect(organizationScope(as.drA!, { study: sB.id })).rejects.toEqual(forbidden);
    await expect(organizationScope(as.drA!, { patient: p4.id })).rejects.toEqual(forbidden);
  });

  it('single reads', async () => {
    await expectReads(assertCanReadOrganization, [['drA', A.id], ['p3', B.id]], [['drA', B.id], ['p1', C.id], ['admin', A.id]]);
  });
});

describe('Practitioner', () => {
  it('practitioners of the caller’s organizations, per the scoping table', async () => {
    expect(await practitionerScope(as.drA!)).toEqual(ids(drA, drA2));
    expect(await practitionerScope(as.drB!)).toEqual(ids(drB));
    expect(await practitionerScope(as.admin!)).toEqual(ids(admin));
    expect(await practitionerScope(as.p1!)).toEqual(ids(drA, drA2));
    expect(await practitionerScope(as.p3!)).toEqual(ids(drA, drA2, drB));
    expect(await practitionerScope(as.p4!)).toEqual(ids(drC));
    expect(await practitionerScope(as.p5!)).toEqual([]);
    expect(await practitionerScope(as.drA!, { study: sA.id })).toEqual(ids(drA, drA2));
    expect(await practitionerScope(as.drA!, { patient: p3.id })).toEqual(ids(drA, drA2));
    expect(await practitionerScope(as.drA!, { organization: A.id })).toEqual(ids(drA, drA2));
    expect(await practitionerScope(as.p3!, { organization: B.id })).toEqual(ids(drB));
    await expect(practitionerScope(as.drA!, { organization: B.id })).rejects.toEqual(forbidden);
  });

  it('single reads', async () => {
    await expectReads(
      assertCanReadPractitioner,
      [['drA', drA2.id], ['drA', drA.id], ['admin', admin.id], ['p1', drA.id]],
      [['drA', drB.id], ['p1', drC.id], ['drA', p1.userId!]],
    );
  });
});

describe('roles for management writes', () => {
  it('checks superuser and per-organization roles', () => {
    // Asked of practitioners only: a route for practitioners refuses a patient where it is dispatched (test/integration/auth/route-auth.test.ts).
    const practitioner = (who: string): PractitionerCaller => {
      const caller = as[who]!;
      if (!isPractitioner(caller)) throw new Error(`${who} is not a practitioner`);
      return caller;
    };
    expect(requireRole(practitioner('drA'), A.id, 'member').userId).toBe(drA.id);
    expect(() => requireRole(practitioner('drA'), A.id, 'manager')).toThrow(forbidden);
    expect(() => requireRole(practitioner('drB'), B.id, 'member')).toThrow(forbidden);
    expect(() => requireRole(practitioner('drA'), B.id, 'viewer')).toThrow(forbidden);
    expect(() => requireRole(practitioner('admin'), A.id, 'viewer')).toThrow(forbidden);
    expect(() => requireSuperuser(practitioner('drA'))).toThrow(forbidden);
    expect(requireSuperuser(practitioner('admin')).userId).toBe(admin.id);
  });
});