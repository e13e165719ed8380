/**
 * The five read-only projection types as FHIR registry entries: read and search (GET, and POST
 * `_search`); create, update, patch and delete answer 405 pointing at the `/api/v1/` resource that
 * manages them. Device shares its type with the Devices FHIR Sources send (`device-entry.ts`).
 */
import {
  assertCanReadDataSource,
  assertCanReadOrganization,
  assertCanReadPatient,
  assertCanReadPractitioner,
  assertCanReadStudy,
  dataSourceScope,
  organizationScope,
  patientScope,
  practitionerScope,
  studyScope,
} from '../../auth/scope';
import { getDataSources } from '../../directory/data-sources';
import type { Id } from '../../directory/model';
import { getOrganizations } from '../../directory/organizations';
import { getPatients } from '../../directory/patients';
import { getStudies } from '../../directory/studies';
import { getPractitioners } from '../../directory/users';
import { searchParamsOf } from '../definitions';
import type { FhirTypeEntry, SearchParamCapability } from '../registry';
import { deviceResource, groupResource, organizationResource, patientResource, practitionerResource } from './resources';
import { readProjection, searchProjection, type Projection } from './search';
import { deviceIndex, groupIndex, organizationIndex, patientIndex, practitionerIndex } from './search-index';

const COMMON = ['_id', '_lastUpdated'];

const SCOPING_DOCS: Record<string, string> = {
  patient: 'Resources of this patient.',
  'patient.organization': 'Resources of patients in this organization.',
  'patient._has:Group:member:_id': 'Resources of patients enrolled in this study.',
  '_has:Group:member:_id': 'Resources of patients enrolled in this study.',
  'patient.identifier': 'Resources of the patient with this identifier, system|value.',
};

function capabilities(projection: Projection<{ id: Id }>): SearchParamCapability[] {
  const own = searchParamsOf(projection.type)
    .filter((p) => (projection.params.includes(p.code) || Object.hasOwn(projection.extraScoping ?? {}, p.code)) && !COMMON.includes(p.code))
    .map((p) => ({ name: p.code, type: p.type, definition: p.url, ...(p.documentation ? { documentation: p.documentation } : {}) }));
  const scoping = Object.entries(SCOPING_DOCS).map(([name, documentation]) => ({
    name,
    type: name === 'patient.identifier' ? ('token' as const) : ('reference' as const),
    documentation,
  }));
  return [...scoping, ...own];
}

function entry<T extends { id: Id }>(projection: Projection<T>, managedAt: string): FhirTypeEntry {
  return {
    type: projection.type,
    readOnlyHint: `${projection.type} is a read-only projection here; manage it through ${managedAt}.`,
    documentation: `Read-only projection; managed through ${managedAt}.`,
    searchParams: () => capabilities(projection as unknown as Projection<{ id: Id }>),
    auth: 'caller',
    handlers: {
      read: (req, id) => readProjection(projection, req, id),
      search: (req, params) => searchProjection(projection, req, params),
    },
  };
}

const NAMES = ['family', 'given', 'name'];

export const patientEntry = entry(
  {
    type: 'Patient',
    params: [...COMMON, ...NAMES, 'birthdate', 'email', 'phone', 'active'],
    extraScoping: { identifier: 'identifier', organization: 'organization' },
    scope: async (caller, filter) => (await patientScope(caller, filter)).patientIds,
    load: getPatients,
    readOne: assertCanReadPatient,
    resource: patientResource,
    index: patientIndex,
    patientOf: (patient) => patient.id,
  },
  '/api/v1/patients',
);

export const practitionerEntry = entry(
  {
    type: 'Practitioner',
    params: [...COMMON, ...NAMES, 'identifier', 'active'],
    scope: practitionerScope,
    load: getPractitioners,
    readOne: assertCanReadPractitioner,
    resource: practitionerResource,
    index: practitionerIndex,
  },
  '/api/v1/practitioners',
);

export const organizationEntry = entry(
  {
    type: 'Organization',
    params: [...COMMON, 'name', 'type', 'partof', 'identifier'],
    scope: organizationScope,
    load: getOrganizations,
    readOne: assertCanReadOrganization,
    resource: organizationResource,
    index: organizationIndex,
  },
  '/api/v1/organizations',
);

export const groupEntry = entry(
  {
    type: 'Group',
    params: [...COMMON, 'name', 'code', 'type', 'membership', 'managing-entity', 'identifier'],
    scope: studyScope,
    load: getStudies,
    readOne: assertCanReadStudy,
    resource: groupResource,
    index: groupIndex,
  },
  '/api/v1/studies',
);

/** The data sources as Devices (numeric ids); `device-entry.ts` adds the Devices sent through FHIR Sources. */
export const deviceProjectionEntry = entry(
  {
    type: 'Device',
    params: [...COMMON, 'device-name', 'type', 'status', 'identifier'],
    scope: dataSourceScope,
    load: getDataSources,
    readOne: assertCanReadDataSource,
    resource: deviceResource,
    index: deviceIndex,
  },
  '/api/v1/data_sources',
);

