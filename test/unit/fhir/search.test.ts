import { beforeAll, describe, expect, it } from 'vitest';
import { isHttpError } from '../../../shared/http/errors';
import {
  compareBySort,
  extractSearchIndex,
  matchesAll,
  parseSearch,
  parseSort,
  rejectUnknown,
  searchParamCapabilities,
  type SearchIndex,
} from '../../../shared/fhir/search';

type Json = Record<string, any>;

const patients: Json[] = [
  {
    resourceType: 'Patient',
    id: 'p1',
    meta: { lastUpdated: '2024-05-01T10:00:00Z', source: 'https://cdx.example.org/fhir/fhir-source/12' },
    identifier: [{ system: 'urn:oid:1.2.3', value: 'MRN-1', type: { text: 'Medical record number' } }],
    name: [{ family: 'Müller', given: ['Zoë', 'Anne'] }],
    gender: 'female',
    birthDate: '1980-02',
    telecom: [{ system: 'email', value: 'zoe@example.org' }],
    generalPractitioner: [{ reference: 'Practitioner/dr1' }],
    managingOrganization: { reference: 'https://cdx.example.org/fhir/R5/Organization/o1' },
  },
  {
    resourceType: 'Patient',
    id: 'p2',
    meta: { lastUpdated: '2024-05-03T10:00:00+02:00', source: 'https://cdx.example.org/fhir/fhir-source/13' },
    name: [{ family: 'Muller', given: ['Bob'] }],
    gender: 'male',
    birthDate: '1975-06-30',
    managingOrganization: { identifier: { system: 'urn:ietf:rfc:3986', value: 'urn:oid:9.9' } },
  },
  { resourceType: 'Patient', id: 'p3', name: [{ text: 'Nobody' }] },
];

const observations: Json[] = [
  {
    resourceType: 'Observation',
    id: 'o1',
    status: 'final',
    code: { coding: [{ system: 'http://loinc.org', code: '8867-4', display: 'Heart rate' }], text: 'Pulse' },
    subject: { reference: 'Patient/p1' },
    effectiveDateTime: '2024-03-01T10:00:00+01:00',
    valueQuantity: { value: 72, unit: 'beats/minute', system: 'http://unitsofmeasure.org', code: '/min' },
  },
  {
    resourceType: 'Observation',
    id: 'o2',
    status: 'amended',
    code: { coding: [{ system: 'http://loinc.org', code: '85354-9', display: 'Blood pressure panel' }] },
    subject: { reference: 'Patient/p2' },
    effectivePeriod: { start: '2024-03-01', end: '2024-03-03' },
    component: [
      { code: { coding: [{ system: 'http://loinc.org', code: '8480-6' }] }, valueQuantity: { value: 120, system: 'http://unitsofmeasure.org', code: 'mm[Hg]' } },
      { code: { coding: [{ system: 'http://loinc.org', code: '8462-4' }] }, valueQuantity: { value: 80, system: 'http://unitsofmeasure.org', code: 'mm[Hg]' } },
    ],
  },
  {
    resourceType: 'Observation',
    id: 'o3',
    status: 'final',
    code: { coding: [{ code: 'local-1' }] },
    subject: { reference: 'Group/g1' },
    valueQuantity: { value: 99.6 },
  },
];

const indexes = new Map<string, SearchIndex>();

beforeAll(async () => {
  for (const r of [...patients, ...observations]) indexes.set(r.id, await extractSearchIndex(r, { localBases: ['https://cdx.example.org/fhir/R5'] }));
});

function search(type: string, query: string): string[] {
  const parsed = parseSearch(type, new URLSearchParams(query));
  expect(parsed.unknown).toEqual([]);
  const pool = (type === 'Patient' ? patients : observations).map((r) => r.id as string);
  const matched = pool.filter((id) => matchesAll(indexes.get(id)!, parsed.criteria, Date.parse('2024-06-01T00:00:00Z')));
  const sort = parsed.results.find((r) => r.name === '_sort');
  if (sort) {
    const specs = parseSort(type, sort.value);
    matched.sort((a, b) => compareBySort(indexes.get(a)!, indexes.get(b)!, specs));
  }
  return matched;
}

function badRequestOf(fn: () => unknown): string {
  try {
    fn();
  } catch (e) {
    if (isHttpError(e) && e.status === 400) return e.message;
    throw e;
  }
  throw new Error('expected a 400');
}

describe('extraction', () => {
  it('stores small, serialisable values per parameter', () => {
    const idx = indexes.get('p1')!;
    expect(JSON.parse(JSON.stringify(idx))).toEqual(idx);
    expect(idx.family).toEqual([{ v: 'Müller', n: 'muller' }]);
    expect(idx.birthdate).toEqual([{ lo: Date.parse('1980-02-01T00:00:00Z'), hi: Date.parse('1980-03-01T00:00:00Z') }]);
    expect(idx.organization).toEqual([{ r: 'Organization/o1', t: 'Organization', i: 'o1' }]);
    expect(idx._id).toEqual([{ c: 'p1' }]);
    expect(indexes.get('o1')!['value-quantity']).toEqual([{ lo: 72, hi: 72, s: 'http://unitsofmeasure.org', c: '/min', u: 'beats/minute' }]);
    expect(indexes.get('o2')!.date).toEqual([{ lo: Date.parse('2024-03-01T00:00:00Z'), hi: Date.parse('2024-03-04T00:00:00Z') }]);
  });

  it('refuses what is not an R5 resource', async () => {
    await expect(extractSearchIndex({ resourceType: 'Spaceship' })).rejects.toMatchObject({ status: 400 });
  });

  it('follows resolve() in the standard expressions: patient only for Patient subjects', () => {
    expect(indexes.get('o1')!.patient).toEqual([{ r: 'Patient/p1', t: 'Patient', i: 'p1' }]);
    expect(indexes.get('o3')!.patient).toBeUndefined();
    expect(indexes.get('o3')!.subject).toEqual([{ r: 'Group/g1', t: 'Group', i: 'g1' }]);
  });
});

describe('token search', () => {
  it('matches system|code, code, system| and |code', () => {
    expect(search('Observation', 'code=http://loinc.org|8867-4')).toEqual(['o1']);
    expect(search('Observation', 'code=8867-4')).toEqual(['o1']);
    expect(search('Observation', 'code=http://loinc.org|')).toEqual(['o1', 'o2']);
    expect(search('Observation', 'code=|local-1')).toEqual(['o3']);
    expect(search('Observation', 'code=|8867-4')).toEqual([]);
    expect(search('Observation', 'code=http://snomed.info/sct|8867-4')).toEqual([]);
  });

  it('supports :not (including resources without the value) and :text', () => {
    expect(search('Observation', 'status:not=final')).toEqual(['o2']);
    expect(search('Patient', 'gender:not=male')).toEqual(['p1', 'p3']);
    expect(search('Observation', 'code:text=heart')).toEqual(['o1']);
    expect(search('Observation', 'code:text=pulse')).toEqual(['o1']);
    expect(search('Observation', 'code:text=rate')).toEqual(['o1']);
    expect(search('Observation', 'code:text=ate')).toEqual([]);
    expect(search('Patient', 'identifier:text=medical')).toEqual(['p1']);
  });

  it('matches identifiers and _id', () => {
    expect(search('Patient', 'identifier=urn:oid:1.2.3|MRN-1')).toEqual(['p1']);
    expect(search('Patient', 'identifier=MRN-1')).toEqual(['p1']);
    expect(search('Patient', '_id=p2,p3')).toEqual(['p2', 'p3']);
    expect(search('Patient', 'email=zoe@example.org')).toEqual(['p1']);
  });
});

describe('string search', () => {
  it('is a case- and accent-insensitive starts-with, with :exact and :contains', () => {
    expect(search('Patient', 'family=muller')).toEqual(['p1', 'p2']);
    expect(search('Patient', 'family=MÜL')).toEqual(['p1', 'p2']);
    expect(search('Patient', 'family:exact=Müller')).toEqual(['p1']);
    expect(search('Patient', 'family:exact=muller')).toEqual([]);
    expect(search('Patient', 'given=zoe')).toEqual(['p1']);
    expect(search('Patient', 'name=ann')).toEqual(['p1']);
    expect(search('Patient', 'name:contains=bod')).toEqual(['p3']);
    expect(search('Patient', 'name=bod')).toEqual([]);
  });
});

describe('date search', () => {
  it('compares partial dates and periods as ranges, with every prefix', () => {
    expect(search('Observation', 'date=2024-03-01')).toEqual(['o1']); // o2's period runs to the 3rd
    expect(search('Observation', 'date=2024-03')).toEqual(['o1', 'o2']);
    expect(search('Observation', 'date=gt2024-03-01')).toEqual(['o2']);
    expect(search('Observation', 'date=ge2024-03-01')).toEqual(['o1', 'o2']);
    expect(search('Observation', 'date=lt2024-03-02')).toEqual(['o1', 'o2']);
    expect(search('Observation', 'date=sa2024-02-29')).toEqual(['o1', 'o2']);
    expect(search('Observation', 'date=sa2024-03-01')).toEqual([]);
    expect(search('Observation', 'date=eb2024-03-04')).toEqual(['o1', 'o2']);
    expect(search('Observation', 'date=ne2024-03-01')).toEqual(['o2']);
    // ap: within 10% of the distance from now (2024-06-01): about 8 days either side here.
    expect(search('Observation', 'date=ap2024-03-08')).toEqual(['o1', 'o2']);
    expect(search('Observation', 'date=ap2024-03-12')).toEqual(['o2']);
    expect(search('Observation', 'date=ap2023-01-01')).toEqual([]);
  });

  it('normalises offsets', () => {
    // o1 is 09:00 UTC.
    expect(search('Observation', 'date=2024-03-01T09:00:00Z')).toEqual(['o1']);
    expect(search('Observation', 'date=2024-03-01T10:00:00%2B01:00')).toEqual(['o1']);
    expect(search('Observation', 'date=lt2024-03-01T09:30:00-00:00&date=gt2024-03-01T08:30:00Z')).toEqual(['o1', 'o2']);
    expect(search('Patient', '_lastUpdated=2024-05-03')).toEqual(['p2']);
    expect(search('Patient', '_lastUpdated=ge2024-05-02')).toEqual(['p2']);
  });

  it('rejects malformed dates and prefixes with a 400', () => {
    expect(badRequestOf(() => parseSearch('Observation', [['date', '2024-02-30']]))).toContain("Invalid date '2024-02-30'");
    expect(badRequestOf(() => parseSearch('Observation', [['date', 'xx2024']]))).toContain("'xx' is not a search prefix");
    expect(badRequestOf(() => parseSearch('Observation', [['date', 'soon']]))).toContain("Invalid value 'soon'");
  });
});

describe('quantity, number, reference and uri search', () => {
  it('matches quantities by value precision and unit', () => {
    expect(search('Observation', 'value-quantity=72')).toEqual(['o1']);
    expect(search('Observation', 'value-quantity=100')).toEqual(['o3']); // 99.6 is 100 at that precision
    expect(search('Observation', 'value-quantity=100.0')).toEqual([]);
    expect(search('Observation', 'value-quantity=1e2')).toEqual(['o1', 'o3']);
    expect(search('Observation', 'value-quantity=gt80')).toEqual(['o3']);
    expect(search('Observation', 'value-quantity=le72|http://unitsofmeasure.org|/min')).toEqual(['o1']);
    expect(search('Observation', 'value-quantity=72||beats/minute')).toEqual(['o1']);
    expect(search('Observation', 'value-quantity=ap95')).toEqual(['o3']); // within 10%
    expect(search('Observation', 'value-quantity=ap90')).toEqual([]);
    expect(badRequestOf(() => parseSearch('Observation', [['value-quantity', '72|only-two']]))).toContain('Invalid quantity');
  });

  it('matches references by Type/id, bare id, type modifier, identifier and local absolute URLs', () => {
    expect(search('Observation', 'subject=Patient/p1')).toEqual(['o1']);
    expect(search('Observation', 'subject=p2')).toEqual(['o2']);
    expect(search('Observation', 'subject:Group=g1')).toEqual(['o3']);
    expect(search('Observation', 'patient=p1,p2')).toEqual(['o1', 'o2']);
    expect(search('Patient', 'organization=Organization/o1')).toEqual(['p1']);
    expect(search('Patient', 'organization:identifier=urn:ietf:rfc:3986|urn:oid:9.9')).toEqual(['p2']);
    expect(search('Patient', 'general-practitioner=Practitioner/dr1')).toEqual(['p1']);
    expect(badRequestOf(() => parseSearch('Observation', [['subject', 'Spaceship/1']]))).toContain('not a resource type');
  });

  it('matches uris exactly, :below and :above', () => {
    expect(search('Patient', '_source=https://cdx.example.org/fhir/fhir-source/12')).toEqual(['p1']);
    expect(search('Patient', '_source:below=https://cdx.example.org/fhir/fhir-source')).toEqual(['p1', 'p2']);
    expect(search('Patient', '_source:below=https://cdx.example.org/fhir/fhir-source/')).toEqual(['p1', 'p2']);
    expect(search('Patient', '_source:below=https://cdx.example.org/fhir/fhir-sour')).toEqual([]);
    expect(search('Patient', '_source:above=https://cdx.example.org/fhir/fhir-source/12/x')).toEqual(['p1']);
  });

  it('matches composites component by component within one occurrence', () => {
    expect(search('Observation', 'component-code-value-quantity=http://loinc.org|8480-6$gt110')).toEqual(['o2']);
    expect(search('Observation', 'component-code-value-quantity=http://loinc.org|8462-4$gt110')).toEqual([]);
    expect(search('Observation', 'code-value-quantity=8867-4$72')).toEqual(['o1']);
  });
});

describe('combining criteria', () => {
  it('ANDs repetitions and ORs comma lists', () => {
    expect(search('Observation', 'status=final,amended')).toEqual(['o1', 'o2', 'o3']);
    expect(search('Observation', 'status=final&code=8867-4')).toEqual(['o1']);
    expect(search('Observation', 'status=final&status=amended')).toEqual([]);
  });

  it('supports :missing', () => {
    expect(search('Patient', 'gender:missing=true')).toEqual(['p3']);
    expect(search('Patient', 'birthdate:missing=false')).toEqual(['p1', 'p2']);
    expect(badRequestOf(() => parseSearch('Patient', [['gender:missing', 'maybe']]))).toContain('use true or false');
  });

  it('handles escaped separators', () => {
    const parsed = parseSearch('Patient', [['identifier', 'urn:x|a\\,b,c\\|d']]);
    expect(parsed.criteria[0]).toMatchObject({ kind: 'token', values: [{ system: 'urn:x', code: 'a,b' }, { code: 'c|d' }] });
  });
});

describe('sorting', () => {
  it('orders by any parameter, missing values last both ways', () => {
    expect(search('Patient', '_sort=birthdate')).toEqual(['p2', 'p1', 'p3']);
    expect(search('Patient', '_sort=-birthdate')).toEqual(['p1', 'p2', 'p3']);
    expect(search('Patient', '_sort=family,-_id')).toEqual(['p2', 'p1', 'p3']); // Müller = Muller, then by id descending
    expect(search('Patient', '_sort=-_lastUpdated')).toEqual(['p2', 'p1', 'p3']);
    expect(search('Observation', '_sort=date')).toEqual(['o2', 'o1', 'o3']);
    // Descending uses a range's end: o2's period ends after o1.
    expect(search('Observation', '_sort=-date')).toEqual(['o2', 'o1', 'o3']);
    expect(badRequestOf(() => parseSort('Patient', 'shoe-size'))).toContain("Cannot sort Patient by 'shoe-size'");
  });
});

describe('parsing', () => {
  it('reports unknown parameters, result parameters and chains apart', () => {
    const parsed = parseSearch(
      'Observation',
      new URLSearchParams('shoe-size=9&_count=5&_summary=count&patient.organization=o1&patient._has:Group:member:_id=g1&_has:Group:member:_id=g2&_text=x'),
    );
    expect(parsed.unknown.map((u) => u.name)).toEqual(['shoe-size', '_text']);
    expect(parsed.results).toEqual([
      { name: '_count', value: '5' },
      { name: '_summary', value: 'count' },
    ]);
    expect(parsed.chained.map((c) => [c.name, c.param?.code, c.chain, c.values])).toEqual([
      ['patient.organization', 'patient', 'organization', ['o1']],
      ['patient._has:Group:member:_id', 'patient', '_has:Group:member:_id', ['g1']],
      ['_has:Group:member:_id', undefined, '_has:Group:member:_id', ['g2']],
    ]);
    expect(badRequestOf(() => rejectUnknown(parsed))).toContain('shoe-size');
  });

  it('accepts loosely spelled names and rejects unsupported modifiers', () => {
    expect(parseSearch('Condition', [['clinicalStatus', 'active']]).criteria[0]!.param.code).toBe('clinical-status');
    expect(badRequestOf(() => parseSearch('Observation', [['code:in', 'http://x']]))).toContain("Modifier ':in' is not supported");
    expect(badRequestOf(() => parseSearch('Observation', [['subject:Spaceship', '1']]))).toContain('Spaceship');
    expect(parseSearch('Observation', [['code', '']]).criteria).toEqual([]);
  });
});

describe('capabilities', () => {
  it('lists every searchable parameter of a type with the standard’s definition', () => {
    const caps = searchParamCapabilities('Observation');
    expect(caps.find((c) => c.name === 'code')).toEqual({
      name: 'code',
      type: 'token',
      definition: 'http://hl7.org/fhir/SearchParameter/clinical-code',
      documentation: 'The code of the observation type',
    });
    expect(caps.map((c) => c.name)).toEqual(expect.arrayContaining(['_id', '_lastUpdated', '_source', 'code-value-quantity']));
    expect(caps.map((c) => c.name)).not.toContain('_text');
  });
});
