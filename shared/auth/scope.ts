/**
 * Caller scoping: THE module every read and write of patient data asks "may this caller see or
 * change that?". The rules:
 *
 * - A patient sees only themselves: their Patient, their observations and auxiliary rows, the
 *   studies (Group) they are enrolled in, those studies' data sources (Device), their organizations
 *   and the practitioners of those organizations. Filters only narrow this; naming anything else
 *   yields nothing (never a 403 that would tell another patient's id from a missing one).
 * - A practitioner sees the patients who share any of their organizations (direct membership; no
 *   inheritance down the tree; the role does not matter for reads), the studies of their
 *   organizations and those studies' data sources, their organizations, and the practitioners of
 *   their organizations (and themselves). Naming a patient, organization or study outside that is
 *   a 403; an identifier never is (it just matches nothing). Superusers get no more on these reads.
 * - Writing for a patient needs the patient themselves, or a practitioner with at least the
 *   `member` role in one of the patient's organizations (a `viewer` only reads).
 * - A single read of something invisible is a 404, indistinguishable from a missing id.
 *
 * Cost: key reads only (GetItem, BatchGetItem, Query on a key), about one per organization or study
 * involved; never a scan.
 */
import { getDataSource } from '../directory/data-sources';
import { getFhirSource } from '../directory/fhir-sources';
import { parseId } from '../directory/ids';
import { membersOfOrganizations } from '../directory/memberships';
import { roleAtLeast, type CodeRef, type DataSource, type FhirSource, type Id, type Organization, type OrgRole, type Patient, type Practitioner, type Study } from '../directory/model';
import { getOrganization } from '../directory/organizations';
import { findPatientByIdentifier, findPatientsByIdentifierValue, getPatient, getPatients, listPatientIdsOfOrganization } from '../directory/patients';
import { directoryStore } from '../directory/store/current';
import { getStudies, getStudy, listStudyCodes, listStudyDataSourceIds, listStudyIdsOfOrganization, listStudyPatientIds } from '../directory/studies';
import { getPractitioner } from '../directory/users';
import { badRequest, forbidden, notFound } from '../http/errors';
import { isPatient, type Caller, type PractitionerCaller } from './caller';

/** Ids as they arrive (text or numbers, or references such as `Patient/12`); several = OR. */
export type IdValues = string | number | readonly (string | number)[];

export interface IdentifierValue {
  system?: string;
  value: string;
}

/**
 * The scoping search parameters (docs/access.md#who-sees-what-sharedauthscopets-used-by-every-read). Each field is one parameter; values within it are
 * alternatives (FHIR's comma); different fields must all hold (AND).
 */
export interface ScopeFilter {
  /** `patient` */
  patient?: IdValues;
  /** `patient.organization` */
  organization?: IdValues;
  /** `patient._has:Group:member:_id` or `_has:Group:member:_id` */
  study?: IdValues;
  /** `patient.identifier` (or `identifier` on Patient): `system|value` or a bare value. */
  identifier?: IdentifierValue | readonly IdentifierValue[];
}

export interface PatientScope {
  /** The patients the read may return, ascending. */
  patientIds: Id[];
  /**
   * Only with a study filter: for each patient, the observation codes the study (or studies) they
   * are enrolled in request. Observations outside these codes are not part of the study's data.
   */
  codesByPatient?: ReadonlyMap<Id, readonly CodeRef[]>;
}

// --- parsing -----------------------------------------------------------------------------------

const list = <T>(v: T | readonly T[] | undefined): T[] => (v === undefined ? [] : Array.isArray(v) ? [...(v as readonly T[])] : [v as T]);

/** An id from `12`, `Patient/12` or `https://host/FHIR/R5/Patient/12`; `undefined` when it is none. */
export function referenceId(raw: string | number, type: string): Id | undefined {
  if (typeof raw === 'number') return parseId(raw);
  const match = new RegExp(`^(?:.*/)?${type}/([^/]+)$`).exec(raw.trim());
  return parseId(match ? match[1] : raw.trim());
}

/** Splits a token search value `system|value` (or a bare value) into an identifier filter. */
export function parseIdentifierToken(raw: string): IdentifierValue {
  const bar = raw.indexOf('|');
  if (bar < 0) return { value: raw };
  const system = raw.slice(0, bar);
  return system ? { system, value: raw.slice(bar + 1) } : { value: raw.slice(bar + 1) };
}

const byId = (a: Id, b: Id) => a - b;
const sorted = (ids: Iterable<Id>) => [...new Set(ids)].sort(byId);
const intersect = (a: ReadonlySet<Id>, b: Iterable<Id>) => new Set([...b].filter((x) => a.has(x)));

// --- what a caller belongs to ---------------------------------------------------------------------

/** The patient record of a patient caller (their organizations and studies). */
async function selfRecord(caller: Caller): Promise<Patient | undefined> {
  return isPatient(caller) ? getPatient(caller.patientId) : undefined;
}

/** Organizations whose data the caller sees. */
async function visibleOrganizationIds(caller: Caller, self: Patient | undefined): Promise<Set<Id>> {
  return new Set(isPatient(caller) ? (self?.organizationIds ?? []) : caller.roles.keys());
}

/** Studies whose data the caller sees. */
async function visibleStudyIds(caller: Caller, self: Patient | undefined): Promise<Set<Id>> {
  if (isPatient(caller)) return new Set(self?.studyIds ?? []);
  const lists = await Promise.all([...caller.roles.keys()].map(listStudyIdsOfOrganization));
  return new Set(lists.flat());
}

function sharesOrganization(caller: PractitionerCaller, patient: Patient, minimum?: OrgRole): boolean {
  return patient.organizationIds.some((org) => (minimum ? roleAtLeast(caller.roles.get(org), minimum) : caller.roles.has(org)));
}

/** A patient sees the studies they are enrolled in; a practitioner those of their organizations. */
function studyVisible(caller: Caller, study: Study, self: Patient | undefined): boolean {
  return isPatient(caller) ? (self?.studyIds ?? []).includes(study.id) : caller.roles.has(study.organizationId);
}

function canSeePatient(caller: Caller, patient: Patient): boolean {
  return isPatient(caller) ? patient.id === caller.patientId : sharesOrganization(caller, patient);
}

// --- resolving a filter ----------------------------------------------------------------------------

/**
 * What the filter's fields name, reduced to what the caller may see. Each field's values are
 * alternatives (OR): for a patient caller, alternatives out of reach simply drop out (possibly all
 * of them, leaving an empty set); for a practitioner, naming anything out of reach is a 403.
 */
interface Resolved {
  /** Patients named by `patient` and/or `identifier` (visible ones), when either is given. */
  patients?: Patient[];
  /** Organizations named by `organization`, when given. */
  organizationIds?: Set<Id>;
  /** Studies named by `study`, when given. */
  studies?: Study[];
}

/** The visible part of what was named; 403 for a practitioner when that is not all of it. */
function reachable<T extends Id | { id: Id }>(caller: Caller, named: readonly (Id | undefined)[], visible: T[], what: string): T[] {
  const complete = !named.includes(undefined) && visible.length === new Set(named).size;
  if (!complete && !isPatient(caller)) throw forbidden(`You do not have access to this ${what}.`);
  return visible;
}

async function patientsByIdentifier(identifiers: readonly IdentifierValue[]): Promise<Id[]> {
  const found = await Promise.all(
    identifiers.map(async (i) => {
      if (i.system) {
        const id = await findPatientByIdentifier(i.system, i.value);
        return id === undefined ? [] : [id];
      }
      return findPatientsByIdentifierValue(i.value);
    }),
  );
  return sorted(found.flat());
}

const known = (ids: readonly (Id | undefined)[]) => sorted(ids.filter((id): id is Id => id !== undefined));

async function resolve(caller: Caller, filter: ScopeFilter, self: Patient | undefined): Promise<Resolved> {
  const out: Resolved = {};
  const patientValues = list(filter.patient);
  const identifiers = list(filter.identifier as IdentifierValue | IdentifierValue[] | undefined);
  if (patientValues.length > 0 || identifiers.length > 0) {
    let named: Set<Id> | undefined;
    const read = new Map<Id, Patient>();
    if (patientValues.length > 0) {
      const ids = patientValues.map((v) => referenceId(v, 'Patient'));
      const visible = (await getPatients(known(ids))).filter((p) => canSeePatient(caller, p));
      visible.forEach((p) => read.set(p.id, p));
      named = new Set(reachable(caller, ids, visible, 'patient').map((p) => p.id));
    }
    if (identifiers.length > 0) {
      const matching = await patientsByIdentifier(identifiers);
      named = named ? intersect(named, matching) : new Set(matching);
    }
    // Identifier matches outside the caller's reach silently drop out; patients read above are not read again.
    const unread = sorted(named ?? []).filter((id) => !read.has(id));
    (await getPatients(unread)).forEach((p) => read.set(p.id, p));
    out.patients = sorted(named ?? []).flatMap((id) => read.get(id) ?? []).filter((p) => canSeePatient(caller, p));
  }
  const orgValues = list(filter.organization);
  if (orgValues.length > 0) {
    const mine = await visibleOrganizationIds(caller, self);
    const ids = orgValues.map((v) => referenceId(v, 'Organization'));
    out.organizationIds = new Set(reachable(caller, ids, known(ids).filter((id) => mine.has(id)), 'organization'));
  }
  const studyValues = list(filter.study);
  if (studyValues.length > 0) {
    const ids = studyValues.map((v) => referenceId(v, 'Group'));
    const visible = (await getStudies(known(ids))).filter((s) => studyVisible(caller, s, self));
    out.studies = reachable(caller, ids, visible, 'study');
  }
  return out;
}

// --- patients ------------------------------------------------------------------------------------------

/** Each study's enrolled patients, read once for a scope (its members and its codes' patients both need them); none for a patient caller, who sees only themself. */
async function enrolmentsOf(caller: Caller, studies: readonly Study[]): Promise<Map<Id, Id[]>> {
  if (isPatient(caller)) return new Map();
  return new Map(await Promise.all(studies.map(async (s) => [s.id, await listStudyPatientIds(s.id)] as const)));
}

/** Enrolled patients of a study who are (still) members of its organization. */
async function studyMembers(study: Study, enrolled: readonly Id[]): Promise<Id[]> {
  return directoryStore().organizations.membersAmong(study.organizationId, enrolled);
}

/**
 * The patients a read may return under the scoping filter (docs/access.md#who-sees-what-sharedauthscopets-used-by-every-read), and with a study filter
 * the codes that filter allows per patient. 403 for a practitioner naming what they cannot access.
 */
export async function patientScope(caller: Caller, filter: ScopeFilter = {}): Promise<PatientScope> {
  const self = await selfRecord(caller);
  return scopeOf(caller, await resolve(caller, filter, self), self);
}

/**
 * A study the caller may read (else 404, as `assertCanReadStudy`) and `patientScope` with that
 * study (and the rest of `filter`): its participants and the codes it requests of each, the study
 * and the caller's own record read once for both.
 */
export async function assertCanReadStudyScope(caller: Caller, studyId: Id, filter: Omit<ScopeFilter, 'study'> = {}): Promise<{ study: Study; scope: PatientScope }> {
  const { study, self } = await readableStudy(caller, studyId);
  return { study, scope: await scopeOf(caller, { ...(await resolve(caller, filter, self)), studies: [study] }, self) };
}

/** The patients a resolved filter leaves the caller (`patientScope`'s rule). */
async function scopeOf(caller: Caller, resolved: Resolved, self: Patient | undefined): Promise<PatientScope> {
  const sets: Set<Id>[] = [];
  const enrolments = await enrolmentsOf(caller, resolved.studies ?? []);
  if (resolved.patients) sets.push(new Set(resolved.patients.map((p) => p.id)));
  if (isPatient(caller)) {
    // `resolve` kept only the patient's own organizations and studies: any left include the patient.
    const outOfReach = resolved.organizationIds?.size === 0 || resolved.studies?.length === 0;
    if (!self || outOfReach) return { patientIds: [] };
    sets.push(new Set([self.id]));
  } else {
    if (resolved.organizationIds) {
      const lists = await Promise.all([...resolved.organizationIds].map(listPatientIdsOfOrganization));
      sets.push(new Set(lists.flat()));
    }
    if (resolved.studies) sets.push(new Set((await Promise.all(resolved.studies.map((s) => studyMembers(s, enrolments.get(s.id) ?? [])))).flat()));
    if (sets.length === 0) {
      const lists = await Promise.all([...caller.roles.keys()].map(listPatientIdsOfOrganization));
      sets.push(new Set(lists.flat()));
    }
  }
  const patientIds = sorted(sets.reduce((acc, s) => intersect(acc, s)));
  if (!resolved.studies) return { patientIds };
  return { patientIds, codesByPatient: await studyCodesByPatient(caller, resolved.studies, enrolments, patientIds, self) };
}

async function studyCodesByPatient(caller: Caller, studies: readonly Study[], enrolments: ReadonlyMap<Id, readonly Id[]>, patientIds: readonly Id[], self: Patient | undefined): Promise<Map<Id, CodeRef[]>> {
  const perStudy = await Promise.all(
    studies.map(async (s) => ({
      codes: await listStudyCodes(s.id),
      patients: new Set(isPatient(caller) ? (self?.studyIds.includes(s.id) ? [self.id] : []) : (enrolments.get(s.id) ?? [])),
    })),
  );
  const out = new Map<Id, CodeRef[]>();
  for (const patientId of patientIds) {
    const codes = new Map<Id, CodeRef>();
    for (const study of perStudy) if (study.patients.has(patientId)) for (const c of study.codes) codes.set(c.id, c);
    out.set(patientId, [...codes.values()].sort((a, b) => a.id - b.id));
  }
  return out;
}

/**
 * Which of these patients the caller may still see, read by key (one BatchGetItem): for a work
 * item resolved earlier (an export's part) that must not outlive a change of access. With a study,
 * also only those still enrolled in it and members of its organization, as `study` scoping has it.
 */
export async function stillVisiblePatients(caller: Caller, ids: readonly Id[], study?: Pick<Study, 'id' | 'organizationId'>): Promise<Patient[]> {
  const patients = await getPatients(sorted(ids));
  return patients.filter(
    (p) => canSeePatient(caller, p) && (!study || (p.studyIds.includes(study.id) && p.organizationIds.includes(study.organizationId))),
  );
}

/** The patient, if the caller may read it; otherwise 404, exactly as for a missing patient. */
export async function assertCanReadPatient(caller: Caller, patientId: Id | string): Promise<Patient> {
  const id = typeof patientId === 'number' ? patientId : referenceId(patientId, 'Patient');
  const patient = id === undefined || (isPatient(caller) && id !== caller.patientId) ? undefined : await getPatient(id);
  if (!patient || !canSeePatient(caller, patient)) throw notFound(`Patient ${patientId} not found.`);
  return patient;
}

/**
 * The patient, if the caller may write data for them: the patient themselves, or a practitioner
 * with the `member` role or more in one of the patient's organizations. 403 otherwise (also for an
 * unknown patient, so a write never reveals who exists).
 */
export async function assertCanWriteForPatient(caller: Caller, patientId: Id | string): Promise<Patient> {
  const id = typeof patientId === 'number' ? patientId : referenceId(patientId, 'Patient');
  const denied = () => forbidden('You may not write data for this patient.');
  if (id === undefined || (isPatient(caller) && id !== caller.patientId)) throw denied();
  const patient = await getPatient(id);
  if (!patient) throw denied();
  if (!isPatient(caller) && !sharesOrganization(caller, patient, 'member')) throw denied();
  return patient;
}

/**
 * The FHIR Source named by a write (header value, or the id taken from `meta.source`), if the caller
 * may write through it: missing or unknown -> 400; another patient's (for a patient), or
 * a patient outside the practitioner's organizations -> 403.
 */
export async function assertCanUseFhirSource(caller: Caller, sourceId: string | number | undefined): Promise<{ source: FhirSource; patient: Patient }> {
  if (sourceId === undefined || String(sourceId).trim() === '') {
    throw badRequest('No FHIR Source given: send the X-SVC-FHIR-Source-ID header (or meta.source) naming one of your FHIR Sources.', 'required');
  }
  const id = parseId(typeof sourceId === 'number' ? sourceId : sourceId.trim());
  const source = id === undefined ? undefined : await getFhirSource(id);
  if (!source) throw badRequest(`Unknown FHIR Source ${String(sourceId)}.`, 'not-found');
  const refusal = () => forbidden(`You may not write through FHIR Source ${source.id}.`);
  if (isPatient(caller) && source.patientId !== caller.patientId) throw refusal();
  try {
    return { source, patient: await assertCanWriteForPatient(caller, source.patientId) };
  } catch {
    throw refusal();
  }
}

/** The FHIR Source, if the caller may read it (their own, or of a patient they may see); else 404. */
export async function assertCanReadFhirSource(caller: Caller, sourceId: Id): Promise<FhirSource> {
  const source = await getFhirSource(sourceId);
  if (source && !(isPatient(caller) && source.patientId !== caller.patientId)) {
    const patient = await getPatient(source.patientId);
    if (patient && canSeePatient(caller, patient)) return source;
  }
  throw notFound(`FHIR Source ${sourceId} not found.`);
}

// --- studies (Group), data sources (Device), organizations, practitioners --------------------------------

/**
 * Studies (FHIR Group) the read may return: `study` = that study; `patient` = the studies the
 * patient is enrolled in; `organization` = the studies of the organization; all within the studies
 * the caller sees. Ascending ids.
 */
export async function studyScope(caller: Caller, filter: ScopeFilter = {}): Promise<Id[]> {
  const self = await selfRecord(caller);
  const resolved = await resolve(caller, filter, self);
  let result = await visibleStudyIds(caller, self);
  if (resolved.patients) result = intersect(result, resolved.patients.flatMap((p) => p.studyIds));
  if (resolved.organizationIds) {
    const lists = await Promise.all([...resolved.organizationIds].map(listStudyIdsOfOrganization));
    result = intersect(result, lists.flat());
  }
  if (resolved.studies) result = intersect(result, resolved.studies.map((s) => s.id));
  return sorted(result);
}

/** Data sources (FHIR Device) the read may return: those used by the studies of `studyScope`. */
export async function dataSourceScope(caller: Caller, filter: ScopeFilter = {}): Promise<Id[]> {
  const studies = await studyScope(caller, filter);
  return sorted((await Promise.all(studies.map(listStudyDataSourceIds))).flat());
}

/**
 * Organizations the read may return: `study` = the study's organization; `patient` = the patient's
 * organizations; `organization` = that organization; all within the caller's organizations.
 */
export async function organizationScope(caller: Caller, filter: ScopeFilter = {}): Promise<Id[]> {
  const self = await selfRecord(caller);
  const resolved = await resolve(caller, filter, self);
  let result = await visibleOrganizationIds(caller, self);
  if (resolved.patients) result = intersect(result, resolved.patients.flatMap((p) => p.organizationIds));
  if (resolved.organizationIds) result = intersect(result, resolved.organizationIds);
  if (resolved.studies) result = intersect(result, resolved.studies.map((s) => s.organizationId));
  return sorted(result);
}

/** Practitioners the read may return: those of the organizations of `organizationScope` (and a practitioner caller themselves when unfiltered). */
export async function practitionerScope(caller: Caller, filter: ScopeFilter = {}): Promise<Id[]> {
  const members = await membersOfOrganizations(await organizationScope(caller, filter));
  const unfiltered = !filter.patient && !filter.organization && !filter.study && !filter.identifier;
  return sorted(unfiltered && !isPatient(caller) ? [...members, caller.userId] : members);
}

/** The study when the caller may read it (else 404: another's study is not there), with the caller's own record. */
async function readableStudy(caller: Caller, studyId: Id): Promise<{ study: Study; self: Patient | undefined }> {
  const [study, self] = await Promise.all([getStudy(studyId), selfRecord(caller)]);
  if (!study || !studyVisible(caller, study, self)) throw notFound(`Group ${studyId} not found.`);
  return { study, self };
}

export async function assertCanReadStudy(caller: Caller, studyId: Id): Promise<Study> {
  return (await readableStudy(caller, studyId)).study;
}

export async function assertCanReadOrganization(caller: Caller, organizationId: Id): Promise<Organization> {
  const visible = await visibleOrganizationIds(caller, await selfRecord(caller));
  const org = visible.has(organizationId) ? await getOrganization(organizationId) : undefined;
  if (!org) throw notFound(`Organization ${organizationId} not found.`);
  return org;
}

export async function assertCanReadPractitioner(caller: Caller, practitionerId: Id): Promise<Practitioner> {
  const practitioner = await getPractitioner(practitionerId);
  const visible = await visibleOrganizationIds(caller, await selfRecord(caller));
  const self = !isPatient(caller) && caller.userId === practitionerId;
  if (!practitioner || !(self || [...practitioner.roles.keys()].some((org) => visible.has(org)))) {
    throw notFound(`Practitioner ${practitionerId} not found.`);
  }
  return practitioner;
}

export async function assertCanReadDataSource(caller: Caller, dataSourceId: Id): Promise<DataSource> {
  const source = await getDataSource(dataSourceId);
  if (source) {
    const studies = await directoryStore().studies.usingDataSource(dataSourceId);
    const visible = await visibleStudyIds(caller, await selfRecord(caller));
    if (studies.some((id) => visible.has(id))) return source;
  }
  throw notFound(`Device ${dataSourceId} not found.`);
}

// --- roles for management writes ----------------------------------------------------------------------------
// Asked of practitioners only: a route only practitioners may use declares it (`auth: 'practitioner'`),
// and a patient is refused where it is dispatched (shared/auth/authenticate.ts), before its handler runs.

export function requireSuperuser(caller: PractitionerCaller): PractitionerCaller {
  if (!caller.superuser) throw forbidden('Only superusers may do this.');
  return caller;
}

/** 403 unless the caller holds at least `minimum` in the organization (direct membership). */
export function requireRole(caller: PractitionerCaller, organizationId: Id, minimum: OrgRole): PractitionerCaller {
  if (!roleAtLeast(caller.roles.get(organizationId), minimum)) {
    throw forbidden(`This needs the ${minimum} role in organization ${organizationId}.`);
  }
  return caller;
}
