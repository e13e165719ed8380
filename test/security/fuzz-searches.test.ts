/**
 * Fuzzing every search with query strings of any shape: the Observation store (native, and
 * auxiliary through `_source`), the projections (Patient, Practitioner, Organization, Group,
 * Device), the auxiliary types and the `/api/v1/` lists; known parameters with modifiers, chains
 * and prefixes, hostile names and values, raw text that is not valid percent-encoding, and cursors
 * that are random, truncated or taken from real `next` links and edited. Every answer is a 200
 * searchset Bundle (or `/api/v1/` list), or a 4xx in its path's dialect, never a 5xx; a `next` link
 * the service gave is followed once and answers 200.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { FhirSource, Study } from '../../shared/directory/model';
import { sourceUri } from '../../shared/fhir/constants';
import { condition, postAuxiliary } from '../support/auxiliary';
import { makeDataSource, makeFhirSource, makeStudy } from '../support/directory';
import { CaseCount, expectSearchset, expectWellFormed, fuzz, fuzzTimeout, type Dialect } from '../support/fuzz';
import { hostileKey, hostileText, mutationsOf } from '../support/fuzz-inputs';
import { call, type TestResponse } from '../support/invoke';
import { observation, observationWorld, upload, type ObservationWorld } from '../support/observations';

let world: ObservationWorld;
let source: FhirSource;
let study: Study;
const cases = new CaseCount('searches');

beforeAll(async () => {
  world = await observationWorld();
  source = await makeFhirSource({ patient: world.patient, dataSource: await makeDataSource({ type: 'patient_app' }) });
  study = await makeStudy({ organization: world.organization, patients: [world.patient] });
  const readings = Array.from({ length: 6 }, (_, i) => observation(world, { at: Date.UTC(2025, 0, 1 + i), code: i % 2 ? 'omh:heart-rate:2.0' : 'omh:blood-pressure:4.0', form: i % 3 ? 'date_time' : 'start_end' }));
  expect((await upload(world.patient.token, readings)).status).toBe(200);
  for (const extra of [{}, { recordedDate: '2020-01-01' }, { id: 'upstream-1' }]) await postAuxiliary('Condition', condition(extra), world.patient.token, source.id);
  const labs = { resourceType: 'Observation', status: 'final', code: { text: 'HbA1c' }, subject: { reference: 'Patient/x' }, effectiveDateTime: '2024-05-01' };
  await postAuxiliary('Observation', labs, world.patient.token, source.id);
});
afterAll(() => console.log(cases.line()));

const QUICK = 15;
vi.setConfig({ testTimeout: fuzzTimeout(QUICK * 2) });

interface Search {
  name: string;
  path: string;
  dialect: Dialect;
  /** Parameters the search knows, to fuzz around. */
  params: readonly string[];
  /** Parameters every case carries (e.g. the `_source` that picks the store). */
  fixed?: () => string;
}

const PAGING = ['_count', '_cursor', '_sort', '_summary', '_total', '_elements', '_format', '_include', '_revinclude', '_id', '_lastUpdated', '_source', '_source:below'];
const SCOPING = ['patient', 'subject', 'patient.organization', 'patient.identifier', 'patient._has:Group:member:_id', '_has:Group:member:_id', 'patient:missing', 'patient.name'];
/** The value parameters of the native readings (docs/api.md#search-by-value). */
const VALUES = ['value-quantity', 'component-value-quantity', 'combo-value-quantity', 'component-code', 'combo-code', 'code-value-quantity', 'component-code-value-quantity', 'combo-code-value-quantity', 'value-quantity:missing'];
const PROJECTION = [...SCOPING, 'identifier', 'name', 'family', 'given', 'birthdate', 'name:exact', 'birthdate:missing', ...PAGING];

const SEARCHES: Search[] = [
  { name: 'Observation', path: '/FHIR/R5/Observation', dialect: 'fhir', params: [...SCOPING, 'code', 'code:not', 'code:text', 'date', 'date:missing', 'status', 'identifier', 'category', ...VALUES, ...PAGING] },
  // $lastn answers a searchset too; its patient is fixed so most cases get past the first refusal.
  { name: 'Observation/$lastn', path: '/FHIR/R5/Observation/$lastn', dialect: 'fhir', params: [...SCOPING, 'code', 'category', 'max', 'date', ...VALUES, ...PAGING], fixed: () => `patient=${world.patient.id}` },
  {
    name: 'Observation _source',
    path: '/FHIR/R5/Observation',
    dialect: 'fhir',
    params: [...SCOPING, 'code', 'date', 'status', 'category', 'value-quantity', ...PAGING],
    fixed: () => `_source=${encodeURIComponent(sourceUri(source.id))}`,
  },
  ...['Patient', 'Practitioner', 'Organization', 'Group', 'Device'].map((type) => ({ name: type, path: `/FHIR/R5/${type}`, dialect: 'fhir' as const, params: PROJECTION })),
  { name: 'Condition', path: '/FHIR/R5/Condition', dialect: 'fhir', params: [...SCOPING, 'clinical-status', 'code', 'recorded-date', 'onset-date', 'encounter', 'category', 'code:text', ...PAGING] },
  { name: 'QuestionnaireResponse', path: '/FHIR/R5/QuestionnaireResponse', dialect: 'fhir', params: [...SCOPING, 'authored', 'questionnaire', 'status', ...PAGING] },
  { name: '/api/v1/patients', path: '/api/v1/patients', dialect: 'api', params: ['page', 'page_size', 'pageSize', 'organization_id', 'study_id', 'patient_identifier_value', 'patient_identifier_system', 'search', 'ordering'] },
  { name: '/api/v1/studies', path: '/api/v1/studies', dialect: 'api', params: ['page', 'page_size', 'organization_id'] },
  { name: '/api/v1/organizations', path: '/api/v1/organizations', dialect: 'api', params: ['page', 'page_size', 'part_of'] },
  { name: '/api/v1/data_sources', path: '/api/v1/data_sources', dialect: 'api', params: ['page', 'page_size'] },
  { name: '/api/v1/fhir_sources', path: '/api/v1/fhir_sources', dialect: 'api', params: ['page', 'page_size'] },
  { name: '/api/v1/practitioners', path: '/api/v1/practitioners', dialect: 'api', params: ['page', 'page_size'] },
  { name: '/api/v1/studies/{id}/patients', path: '', dialect: 'api', params: ['page', 'page_size'] },
];
/** The study's patient list needs the study, made in beforeAll. */
const pathOf = (s: Search) => (s.name === '/api/v1/studies/{id}/patients' ? `/api/v1/studies/${study.id}/patients` : s.path);

const PREFIXES = ['', 'eq', 'ne', 'gt', 'lt', 'ge', 'le', 'sa', 'eb', 'ap', 'xx'];
const DATES = ['2025', '2025-01', '2025-01-03', '2025-01-03T10:00', '2025-01-03T10:00:00Z', '2025-01-03T10:00:00.123+05:30', '2025-02-30', '-2025', '275760-09-13', '1e99'];

/** Values shaped like each kind the parameters take, and hostile ones. */
const value = fc.oneof(
  { weight: 3, arbitrary: hostileText },
  { weight: 2, arbitrary: fc.tuple(fc.constantFrom(...PREFIXES), fc.constantFrom(...DATES)).map(([p, d]) => p + d) },
  { weight: 2, arbitrary: fc.constantFrom('https://w3id.org/openmhealth|omh:heart-rate:2.0', 'omh:heart-rate:2.0', '|x', 'x|', '|', 'a,b,,c', 'date', '-date', '_lastUpdated', '-_lastUpdated', 'count', 'true', 'false') },
  { weight: 1, arbitrary: fc.oneof(fc.integer({ min: -5, max: 2000 }).map(String), fc.constantFrom('1e99', '0x10', '007', '9007199254740993')) },
  {
    weight: 2,
    arbitrary: fc.oneof(
      fc.tuple(fc.constantFrom(...PREFIXES), fc.constantFrom('120', '119.5', '-0', '1e308', '1e-320', 'NaN', 'Infinity'), fc.constantFrom('', '|http://unitsofmeasure.org|kg', '||lb', '||[degF]', '|http://unitsofmeasure.org|[stone_av]', '||__proto__', '||constructor', '|x|', `||${'m/'.repeat(200)}`, '||(((((', '|http://loinc.org|8867-4')).map((parts) => parts.join('')),
      fc.constantFrom('http://loinc.org|8867-4$gt120', 'http://loinc.org|8480-6$ge140||mm[Hg]', 'omh:heart-rate:2.0$lt60', '$', '$$', 'x$', '$gt1', 'http://loinc.org|8867-4$gt120$x', 'vital-signs', 'activity', '101', '0'),
    ),
  },
  { weight: 1, arbitrary: fc.constantFrom(() => `Patient/${world.patient.id}`, () => String(world.patient.id), () => String(world.organization.id), () => String(study.id), () => sourceUri(source.id)).map((f) => f()) },
);

/** `name=value` pairs, each encoded, raw, or broken. */
function queryOf(names: readonly string[]): fc.Arbitrary<string> {
  const name = fc.oneof({ weight: 4, arbitrary: fc.constantFrom(...names) }, { weight: 1, arbitrary: hostileKey });
  const pair = fc.tuple(name, value, fc.constantFrom('encoded', 'encoded', 'raw', 'no-value')).map(([n, v, how]) => {
    if (how === 'no-value') return encodeURIComponent(n);
    return how === 'raw' ? `${n}=${v}` : `${encodeURIComponent(n)}=${encodeURIComponent(v)}`;
  });
  return fc.oneof(
    { weight: 5, arbitrary: fc.array(pair, { maxLength: 6 }).map((pairs) => pairs.join('&')) },
    {
      weight: 1,
      arbitrary: fc.constantFrom(
        '%', '%zz', '&&&', '===', '?a=b', 'a=%E0%A4%A', '#x', '_count=1&_count=2', '+'.repeat(500), 'a='.repeat(300),
        `${names[0]}=${'x,'.repeat(1000)}`, `${names[0]}=x&`.repeat(200), `_id=${Array.from({ length: 1500 }, (_, i) => i).join(',')}`, `date=${'ge2025,'.repeat(300)}`,
      ),
    },
  );
}

function expectAnswer(res: TestResponse, search: Search, what: string): void {
  expectWellFormed(res, search.dialect, what);
  if (res.status !== 200) return;
  if (search.dialect === 'fhir') expectSearchset(res, what);
  else expect(Array.isArray(res.json?.results) || Array.isArray(res.json), what).toBe(true);
}

/** A search as a caller, then its `next` link once, if it gave one. */
async function searched(search: Search, query: string, token: string): Promise<void> {
  cases.tried(search.name);
  const fixed = search.fixed?.();
  const url = `${pathOf(search)}?${[fixed, query].filter(Boolean).join('&')}`;
  const res = await call('GET', url, { token });
  expectAnswer(res, search, `GET ${url}`);
  const next = res.status === 200 && search.dialect === 'fhir' ? (res.json.link ?? []).find((l: { relation: string }) => l.relation === 'next') : undefined;
  if (next) {
    const link = new URL(next.url);
    const page = await call('GET', `${link.pathname}${link.search}`, { token });
    expect(page.status, `next of ${url}: ${page.text.slice(0, 300)}`).toBe(200);
    expectSearchset(page, `next of ${url}`);
  }
}

const caller = fc.constantFrom(() => world.patient.token, () => world.practitioner.token);

describe.each(SEARCHES)('$name', (search) => {
  it('answers any query string well, as a patient and as a practitioner', async () => {
    await fuzz(QUICK, fc.tuple(queryOf(search.params), caller), async ([query, token]) => {
      await searched(search, query, token());
    });
  });
});

/** The cursor of a search's first page of one row, as the service wrote it. */
async function realCursor(search: Search): Promise<string | undefined> {
  const fixed = search.fixed?.();
  const res = await call('GET', `${pathOf(search)}?${[fixed, '_count=1'].filter(Boolean).join('&')}`, { token: world.practitioner.token });
  const next = (res.json?.link ?? []).find((l: { relation: string }) => l.relation === 'next');
  return next ? (new URL(next.url).searchParams.get('_cursor') ?? undefined) : undefined;
}

describe('cursors', () => {
  const paged = SEARCHES.filter((s) => s.dialect === 'fhir');

  it('answers edited, truncated and made-up cursors well on every FHIR search', async () => {
    const cursors = new Map<string, string | undefined>();
    for (const s of paged) cursors.set(s.name, await realCursor(s));
    const search = fc.constantFrom(...paged);
    const edited = search.chain((s) => {
      const real = cursors.get(s.name);
      const decoded = real === undefined ? ['n', 1] : JSON.parse(Buffer.from(real, 'base64url').toString('utf8'));
      const cursor = fc.oneof(
        mutationsOf(() => decoded).map((v) => Buffer.from(JSON.stringify(v), 'utf8').toString('base64url')),
        fc.nat().map((n) => (real ?? 'abc').slice(0, n % ((real ?? 'abc').length + 1))),
        hostileText.map((t) => Buffer.from(t, 'utf8').toString('base64url')),
        hostileText,
      );
      return fc.tuple(fc.constant(s), cursor, fc.constantFrom('', '_count=1', '_count=0', '_sort=-date', '_summary=count'));
    });
    await fuzz(QUICK * 4, edited, async ([s, cursor, extra]) => {
      await searched(s, [`_cursor=${encodeURIComponent(cursor)}`, extra].filter(Boolean).join('&'), world.practitioner.token);
    });
  });
});

describe('Observation/$stats', () => {
  const PARAMS = ['subject', 'patient', 'code', 'system', 'coding', 'duration', 'period', 'statistic', 'include', 'limit', 'interval', ...VALUES];
  const STATISTICS = fc.constantFrom('count', 'minimum,maximum', 'median,4-lower,4-upper', 'std-dev', 'skew', 'nope', '');
  const query = fc.tuple(queryOf(PARAMS), STATISTICS, fc.constantFrom('duration=24', 'duration=1e9', 'period=2025-01-01/2025-01-31', 'period=2025/2024', 'duration=-1', ''));

  it('answers any parameters well (a Parameters or a 4xx OperationOutcome, never a 5xx), as a patient and as a practitioner', async () => {
    await fuzz(QUICK * 2, fc.tuple(query, caller), async ([[extra, statistic, period], token]) => {
      cases.tried('Observation/$stats');
      const url = `/FHIR/R5/Observation/$stats?${[`subject=Patient/${world.patient.id}`, 'code=omh:heart-rate:2.0', `statistic=${statistic}`, period, extra].filter(Boolean).join('&')}`;
      const res = await call('GET', url, { token: token() });
      expectWellFormed(res, 'fhir', `GET ${url}`);
      if (res.status === 200) expect(res.json.resourceType, url).toBe('Parameters');
    });
  });
});
