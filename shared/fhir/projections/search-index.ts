/**
 * Search index values of the projections, built straight from the entity for the parameters each
 * type supports, in the form the standard's matcher and sorter read (`shared/fhir/search`): so
 * `family=rIV` matches Rivera the way every other string search does (starts-with, case and accents
 * folded), and `birthdate=ge1984-03` compares ranges with every prefix the standard defines.
 */
import type { DataSource, Organization, Patient, Practitioner, Study } from '../../directory/model';
import { ORGANIZATION_TYPE_SYSTEM } from '../../directory/model';
import { dateRange } from '../search/dates';
import type { ReferenceValue, SearchIndex, StringValue, TokenValue } from '../search/index-values';
import { normaliseText } from '../search/text';
import { dataSourceCode, studyCode } from './resources';
import { modelCodeSystem } from '../constants';

const str = (...values: string[]): StringValue[] => values.filter((v) => v.length > 0).map((v) => ({ v, n: normaliseText(v) }));
const date = (text: string | undefined) => {
  const range = text === undefined ? undefined : dateRange(text);
  return range ? [range] : [];
};
const token = (system: string | undefined, code: string): TokenValue => ({ ...(system ? { s: system } : {}), c: code });
const reference = (type: string, id: number): ReferenceValue => ({ r: `${type}/${id}`, t: type, i: String(id) });

/** What every projection is searched by: `_id` and `_lastUpdated`. */
function common(entity: { id: number; updatedAt: string }): SearchIndex {
  return { _id: [token(undefined, String(entity.id))], _lastUpdated: date(entity.updatedAt) };
}

function names(family: string, given: string): SearchIndex {
  return { family: str(family), given: str(given), name: str(family, given) };
}

export function patientIndex(patient: Patient): SearchIndex {
  return {
    ...common(patient),
    ...names(patient.nameFamily, patient.nameGiven),
    birthdate: date(patient.birthDate),
    identifier: patient.identifiers.map((i) => token(i.system, i.value)),
    email: patient.telecomEmail ? [token('email', patient.telecomEmail)] : [],
    phone: patient.telecomPhone ? [token('phone', patient.telecomPhone)] : [],
    active: [token(undefined, 'true')],
  };
}

export function practitionerIndex(practitioner: Practitioner): SearchIndex {
  return { ...common(practitioner), ...names(practitioner.nameFamily, practitioner.nameGiven), identifier: [], active: [token(undefined, String(practitioner.active))] };
}

export function organizationIndex(org: Organization): SearchIndex {
  return {
    ...common(org),
    name: str(org.name),
    type: [token(ORGANIZATION_TYPE_SYSTEM, org.type)],
    partof: org.partOf === undefined ? [] : [reference('Organization', org.partOf)],
    identifier: [],
  };
}

/** The token of one of the model's codings, from the same value the resource carries. */
const codingToken = ({ system, code }: { system: string; code: string }) => token(system, code);

export function groupIndex(study: Study): SearchIndex {
  return {
    ...common(study),
    name: str(study.name),
    code: [codingToken(studyCode())],
    type: [token('http://hl7.org/fhir/group-type', 'person')],
    membership: [token('http://hl7.org/fhir/group-membership-basis', 'enumerated')],
    'managing-entity': [reference('Organization', study.organizationId)],
    identifier: [],
  };
}

export function deviceIndex(source: DataSource): SearchIndex {
  return {
    ...common(source),
    'device-name': str(source.name),
    type: [codingToken(dataSourceCode()), token(modelCodeSystem(), source.type)],
    status: [token('http://hl7.org/fhir/FHIR-device-status', 'active')],
    identifier: [],
  };
}
