/**
 * The read-only projections are valid R5 (checked by the validator built from the standard), carry
 * the fields docs/api.md#read-only-fhir-projections lists, and their search index answers the standard's string and date semantics.
 */
import { describe, expect, it } from 'vitest';
import type { DataSource, Organization, Patient, Practitioner, Study } from '../../../shared/directory/model';
import { deviceResource, groupResource, organizationResource, patientResource, practitionerResource } from '../../../shared/fhir/projections/resources';
import { patientIndex } from '../../../shared/fhir/projections/search-index';
import { matchesAll } from '../../../shared/fhir/search/match';
import { parseSearch } from '../../../shared/fhir/search/parse';
import { hasErrors, validateResource } from '../../../shared/fhir/validation';

const at = '2026-06-07T04:11:52.577Z';
const patient: Patient = {
  id: 7,
  userId: 3,
  nameFamily: 'Rivéra',
  nameGiven: 'Alex',
  birthDate: '1984-03-12',
  telecomPhone: '+1-555-0100',
  telecomEmail: 'alex@example.org',
  identifiers: [{ system: 'https://hospital.example.org/mrn', value: 'MRN-1' }],
  organizationIds: [1, 2],
  studyIds: [4],
  createdAt: at,
  updatedAt: at,
};
const practitioner = { id: 5, email: 'd@example.org', kind: 'practitioner', superuser: false, nameFamily: 'Morgan', nameGiven: 'Dana', active: true, roles: new Map(), createdAt: at, updatedAt: at } as Practitioner;
const organization: Organization = { id: 2, name: 'Cardiology', type: 'dept', partOf: 1, createdAt: at, updatedAt: at };
const study: Study = { id: 4, organizationId: 2, name: 'Heart Health', description: 'Home *measurements*.', createdAt: at, updatedAt: at };
const device: DataSource = { id: 9, name: 'Wearable', type: 'personal_device', createdAt: at, updatedAt: at };

const all = [patientResource(patient), patientResource({ ...patient, nameFamily: '', nameGiven: '', identifiers: [], birthDate: undefined, telecomEmail: undefined, telecomPhone: undefined } as Patient), practitionerResource(practitioner), organizationResource(organization), organizationResource({ ...organization, partOf: undefined } as Organization), groupResource(study), deviceResource(device)];

describe('projections', () => {
  it.each(all.map((r) => [`${r.resourceType}/${r.id}`, r] as const))('%s is valid R5', async (_name, resource) => {
    const issues = await validateResource(resource);
    expect(hasErrors(issues), JSON.stringify(issues)).toBe(false);
  });

  it('the validator used here does catch the shapes R5 refuses', async () => {
    expect(hasErrors(await validateResource({ ...deviceResource(device), name: 'Wearable' }))).toBe(true);
    expect(hasErrors(await validateResource({ ...groupResource(study), type: { coding: [{ code: 'study' }] } }))).toBe(true);
    const { membership: _m, ...withoutMembership } = groupResource(study);
    expect(hasErrors(await validateResource(withoutMembership))).toBe(true);
  });

  it('renders the Patient fields with meta.lastUpdated and meta.source', () => {
    expect(patientResource(patient)).toEqual({
      resourceType: 'Patient',
      id: '7',
      meta: { lastUpdated: at, source: 'https://cdx.example.org/fhir/native' },
      identifier: [{ system: 'https://hospital.example.org/mrn', value: 'MRN-1' }],
      active: true,
      name: [{ family: 'Rivéra', given: ['Alex'] }],
      telecom: [
        { system: 'phone', value: '+1-555-0100', use: 'mobile' },
        { system: 'email', value: 'alex@example.org', use: 'home' },
      ],
      birthDate: '1984-03-12',
    });
  });

  it('gives Device a list of named names and typed codings, Organization its parent, Group its organization', () => {
    expect(deviceResource(device)).toMatchObject({ name: [{ value: 'Wearable', type: 'user-friendly-name' }], type: [{ coding: [{ code: 'data-source' }] }, { coding: [{ code: 'personal_device' }] }] });
    expect(organizationResource(organization)).toMatchObject({ type: [{ coding: [{ code: 'dept' }] }], partOf: { reference: 'Organization/1' } });
    expect(groupResource(study)).toMatchObject({ type: 'person', membership: 'enumerated', managingEntity: { reference: 'Organization/2' } });
    expect(groupResource(study)).not.toHaveProperty('member');
  });
});

describe('Patient search semantics', () => {
  const matches = (qs: string) => matchesAll(patientIndex(patient), parseSearch('Patient', new URLSearchParams(qs)).criteria);

  it('names: starts-with, case- and accent-insensitive, over family and given', () => {
    expect(matches('family=riv')).toBe(true);
    expect(matches('family=RIVE')).toBe(true);
    expect(matches('family=rivé')).toBe(true);
    expect(matches('family=iver')).toBe(false);
    expect(matches('given=al')).toBe(true);
    expect(matches('name=alex')).toBe(true);
    expect(matches('name=rivera')).toBe(true);
    expect(matches('name=morgan')).toBe(false);
    expect(matches('family=xx,riv')).toBe(true); // comma = OR
    expect(matches('family=riv&family=xx')).toBe(false); // repetition = AND
  });

  it('birthdate: every prefix and partial dates', () => {
    const cases: Array<[string, boolean]> = [
      ['1984-03-12', true],
      ['eq1984', true],
      ['eq1984-03', true],
      ['eq1984-04', false],
      ['ne1984-03-12', false],
      ['ne1985', true],
      ['gt1984-03-11', true],
      ['gt1984-03-12', false],
      ['lt1984-03-13', true],
      ['lt1984', false],
      ['ge1984-03-12', true],
      ['le1984-03-11', false],
      ['sa1983', true],
      ['sa1984-03-12', false],
      ['eb1985', true],
      ['eb1984', false],
      ['ap1984-03-12', true],
    ];
    for (const [value, expected] of cases) expect(matches(`birthdate=${value}`), value).toBe(expected);
  });

  it('identifier, email and _id as tokens', () => {
    expect(matches('identifier=https://hospital.example.org/mrn|MRN-1')).toBe(true);
    expect(matches('identifier=MRN-1')).toBe(true);
    expect(matches('identifier=https://other.example.org|MRN-1')).toBe(false);
    expect(matches('email=alex@example.org')).toBe(true);
    expect(matches('_id=7')).toBe(true);
    expect(matches('_id=8')).toBe(false);
  });
});
