/**
 * The read-only FHIR R5 projections of directory entities (docs/api.md#read-only-fhir-projections): Patient, Practitioner,
 * Organization, Group (a study) and Device (a data source). Pure functions; every result is valid
 * R5 (the tests run each through the validator). Empty values are left out rather than rendered
 * empty, as R5 requires (`ele-1`).
 */
import { ORGANIZATION_TYPES, ORGANIZATION_TYPE_SYSTEM, type DataSource, type DataSourceType, type Organization, type Patient, type Practitioner, type Study } from '../../directory/model';
import { modelCodeSystem, nativeSourceUri } from '../constants';

export type FhirResource = Record<string, unknown> & { resourceType: string; id: string };

function meta(updatedAt: string) {
  return { lastUpdated: updatedAt, source: nativeSourceUri() };
}

function humanName(family: string, given: string) {
  const name = { ...(family ? { family } : {}), ...(given ? { given: [given] } : {}) };
  return Object.keys(name).length > 0 ? { name: [name] } : {};
}

export function patientResource(patient: Patient): FhirResource {
  const telecom = [
    ...(patient.telecomPhone ? [{ system: 'phone', value: patient.telecomPhone, use: 'mobile' }] : []),
    ...(patient.telecomEmail ? [{ system: 'email', value: patient.telecomEmail, use: 'home' }] : []),
  ];
  return {
    resourceType: 'Patient',
    id: String(patient.id),
    meta: meta(patient.updatedAt),
    ...(patient.identifiers.length > 0 ? { identifier: patient.identifiers.map((i) => ({ system: i.system, value: i.value })) } : {}),
    active: true,
    ...humanName(patient.nameFamily, patient.nameGiven),
    ...(telecom.length > 0 ? { telecom } : {}),
    ...(patient.birthDate ? { birthDate: patient.birthDate } : {}),
  };
}

export function practitionerResource(practitioner: Practitioner): FhirResource {
  return {
    resourceType: 'Practitioner',
    id: String(practitioner.id),
    meta: meta(practitioner.updatedAt),
    active: practitioner.active,
    ...humanName(practitioner.nameFamily, practitioner.nameGiven),
  };
}

export function organizationResource(org: Organization): FhirResource {
  return {
    resourceType: 'Organization',
    id: String(org.id),
    meta: meta(org.updatedAt),
    active: true,
    type: [{ coding: [{ system: ORGANIZATION_TYPE_SYSTEM, code: org.type, display: ORGANIZATION_TYPES[org.type] }] }],
    name: org.name,
    ...(org.partOf !== undefined ? { partOf: { reference: `Organization/${org.partOf}` } } : {}),
  };
}

/** The model code of a study (`Group.code`), and of every data source (`Device.type`). */
export const studyCode = () => ({ system: modelCodeSystem(), code: 'study', display: 'Study' });
export const dataSourceCode = () => ({ system: modelCodeSystem(), code: 'data-source', display: 'Data source' });

const DATA_SOURCE_TYPE_DISPLAY: Record<DataSourceType, string> = {
  personal_device: 'Personal device',
  medical_device: 'Medical device',
  patient_app: 'Patient app',
};

/**
 * A study as a Group of persons with an enumerated membership, managed by its organization. The
 * members are not listed: a patient reading the Group must not learn who else takes part, and a
 * practitioner finds them with `Patient?_has:Group:member:_id=<id>`.
 */
export function groupResource(study: Study): FhirResource {
  return {
    resourceType: 'Group',
    id: String(study.id),
    meta: meta(study.updatedAt),
    active: true,
    type: 'person',
    membership: 'enumerated',
    code: { coding: [studyCode()] },
    name: study.name,
    ...(study.description ? { description: study.description } : {}),
    managingEntity: { reference: `Organization/${study.organizationId}` },
  };
}

export function deviceResource(source: DataSource): FhirResource {
  return {
    resourceType: 'Device',
    id: String(source.id),
    meta: meta(source.updatedAt),
    displayName: source.name,
    name: [{ value: source.name, type: 'user-friendly-name' }],
    status: 'active',
    type: [
      { coding: [dataSourceCode()] },
      { coding: [{ system: modelCodeSystem(), code: source.type, display: DATA_SOURCE_TYPE_DISPLAY[source.type] }] },
    ],
  };
}
