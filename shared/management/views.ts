/**
 * How `/api/v1/` shows directory entities: camelCase JSON in the shapes existing clients read. Pure
 * functions of the entity and the related entities passed in; what is passed in has already been
 * limited to what the caller may see (a patient's organizations outside the caller's reach never
 * appear).
 */
import type { Code, CodeRef, DataSource, FhirSource, Id, Organization, OrgRole, Patient, Practitioner, Study, User } from '../directory/model';

export interface CodeView {
  id: Id;
  codingSystem: string;
  codingCode: string;
  text: string;
}

export const codeView = (code: Code): CodeView => ({ id: code.id, codingSystem: code.system, codingCode: code.code, text: code.display });

/** A code reference shown with its display text, when the table still has it. */
export function codeRefView(ref: CodeRef, table: ReadonlyMap<Id, Code>): CodeView {
  return { id: ref.id, codingSystem: ref.system, codingCode: ref.code, text: table.get(ref.id)?.display ?? '' };
}

export const organizationSummary = (org: Organization) => ({ id: org.id, name: org.name, type: org.type, partOf: org.partOf ?? null });

export interface OrganizationView extends ReturnType<typeof organizationSummary> {
  currentUserRole: OrgRole | null;
  children: OrganizationView[];
}

export function organizationView(org: Organization, role: OrgRole | undefined, children: OrganizationView[] = []): OrganizationView {
  return { ...organizationSummary(org), currentUserRole: role ?? null, children };
}

const present = <T>(orgIds: readonly Id[], orgs: ReadonlyMap<Id, T>): T[] =>
  orgIds.flatMap((id) => {
    const org = orgs.get(id);
    return org ? [org] : [];
  });

export function patientView(patient: Patient, visibleOrganizations: ReadonlyMap<Id, Organization>) {
  return {
    id: patient.id,
    jheUserId: patient.userId ?? null,
    identifiers: patient.identifiers.map((i) => ({ system: i.system, value: i.value })),
    nameFamily: patient.nameFamily,
    nameGiven: patient.nameGiven,
    birthDate: patient.birthDate ?? null,
    telecomPhone: patient.telecomPhone ?? null,
    telecomEmail: patient.telecomEmail ?? null,
    organizations: present(patient.organizationIds, visibleOrganizations).map(organizationSummary),
    lastUpdated: patient.updatedAt,
  };
}

export type PatientView = ReturnType<typeof patientView>;

export function practitionerView(practitioner: Practitioner, organizations: ReadonlyMap<Id, Organization>) {
  return {
    id: practitioner.id,
    jheUserId: practitioner.id,
    nameFamily: practitioner.nameFamily,
    nameGiven: practitioner.nameGiven,
    telecomEmail: practitioner.email,
    isSuperuser: practitioner.superuser,
    organizations: present([...practitioner.roles.keys()].sort((a, b) => a - b), organizations).map((org) => ({
      ...organizationSummary(org),
      role: practitioner.roles.get(org.id)!,
    })),
  };
}

/** A practitioner as a member of one organization. */
export function memberView(user: User, role: OrgRole) {
  return { id: user.id, email: user.email, firstName: user.nameGiven, lastName: user.nameFamily, role };
}

/** A study with its organization (reads). */
export function studyView(study: Study, organization: Organization | undefined) {
  return {
    id: study.id,
    name: study.name,
    description: study.description,
    organization: organization ? { id: organization.id, name: organization.name, type: organization.type } : { id: study.organizationId },
    iconUrl: study.iconUrl ?? null,
  };
}

/** A study as written (the organization by id). */
export function studyWriteView(study: Study) {
  return { id: study.id, name: study.name, description: study.description, organization: study.organizationId, iconUrl: study.iconUrl ?? null };
}

export const dataSourceSummary = (source: DataSource) => ({ id: source.id, name: source.name, type: source.type });

export function dataSourceView(source: DataSource, supported: readonly CodeView[]) {
  return { ...dataSourceSummary(source), supportedScopes: supported, lastUpdated: source.updatedAt };
}

/** Spec 2.5. */
export function fhirSourceView(source: FhirSource) {
  return {
    id: source.id,
    patient: source.patientId,
    dataSource: source.dataSourceId,
    label: source.label,
    fhirBaseUrl: source.fhirBaseUrl,
    lastUpdated: source.updatedAt,
  };
}
