/**
 * Auxiliary search through the real `fhir` handler, with the service's DynamoDB client refusing
 * every Scan: each parameter kind with its modifiers and prefixes, AND/OR, scoping, `_source`,
 * `_id`, `_lastUpdated`, sorting, paging both ways, `_summary=count`, `_total`, ignored and
 * malformed parameters, and cursors that cannot widen what a caller sees.
 */
import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import { beforeAll, describe, expect, it } from 'vitest';
import { createAuxiliaryResource } from '../../../shared/auxiliary/create';
import { auxiliaryPositions } from '../../../shared/auxiliary/search/order';
import { encodeCursor, searchDigest } from '../../../shared/fhir/searchset';
import { searchAuxiliary } from '../../../shared/auxiliary/search';
import { callerFromToken } from '../../../shared/auth/authenticate';
import type { FhirSource, Patient } from '../../../shared/directory/model';
import { nativeSourceUri, sourceUriPrefix } from '../../../shared/fhir/constants';
import { validateResource } from '../../../shared/fhir/validation';
import { dynamo } from '../../../shared/store/clients';
import { config } from '../../../shared/config';
import { auxiliaryWorld, condition, forbidScans, postAuxiliary, type AuxiliaryWorld } from '../../support/auxiliary';
import { makeDataSource, makeFhirSource, makeOrganization, makePatient, makePractitioner, makeStudy, type WithToken } from '../../support/directory';
import { call } from '../../support/invoke';

let w: AuxiliaryWorld;
let carol: Patient & WithToken;
let carolSource: FhirSource;
let study: { id: number };
const ids: Record<string, string> = {};
const IDENTIFIER = { system: 'https://hospital.example.test/mrn', value: 'MRN-ALICE' };

async function create(name: string, type: string, body: Record<string, unknown>, token: string, source: number) {
  const res = await postAuxiliary(type, { resourceType: type, ...body }, token, source);
  if (res.status !== 201) throw new Error(`${name}: ${res.status} ${res.text}`);
  ids[name] = res.json.id;
}

beforeAll(async () => {
  forbidScans();
  w = await auxiliaryWorld();
  // Alice's identifier and study, to search by them.
  await (await import('../../../shared/directory/patients')).addPatientIdentifier(w.alice.id, IDENTIFIER);
  study = await makeStudy({ organization: w.org, patients: [w.alice] });
  const elsewhere = await makeOrganization();
  carol = (await makePatient({ organizations: [elsewhere], login: true })) as Patient & WithToken;
  carolSource = await makeFhirSource({ patient: carol, dataSource: await makeDataSource() });

  const a = (name: string, body: Record<string, unknown>) => create(name, 'Condition', condition(body), w.alice.token, w.aliceSource.id);
  await a('c1', {
    code: { coding: [{ system: 'http://snomed.info/sct', code: '44054006', display: 'Diabetes mellitus type 2' }] },
    recordedDate: '2019-05-02T10:00:00+02:00',
    onsetPeriod: { start: '2019-01-01', end: '2019-03-31' },
    encounter: { reference: 'Encounter/enc-1' },
  });
  await a('c2', {
    code: { coding: [{ system: 'http://snomed.info/sct', code: '38341003', display: 'Hypertensive disorder' }] },
    clinicalStatus: { coding: [{ system: 'http://terminology.hl7.org/CodeSystem/condition-clinical', code: 'resolved' }] },
    recordedDate: '2021-11-30T23:30:00-05:00',
    onsetDateTime: '2021-11',
    abatementAge: { value: 50, unit: 'years', system: 'http://unitsofmeasure.org', code: 'a' },
  });
  await a('c3', {
    code: { coding: [{ code: 'custom-1' }], text: 'Süßes Blut' },
    clinicalStatus: { coding: [{ system: 'http://terminology.hl7.org/CodeSystem/condition-clinical', code: 'inactive' }] },
    recordedDate: undefined,
  });
  await create('c4', 'Condition', condition({ recordedDate: '2020-06-15' }), w.bob.token, w.bobSource.id);
  await create('c5', 'Condition', condition(), carol.token!, carolSource.id);
  const loc = (name: string, body: Record<string, unknown>) => create(name, 'Location', body, w.alice.token, w.aliceSource.id);
  await loc('l1', { name: 'Hôpital Saint-Éloi', address: { city: 'Montpellier', postalCode: '34090' } });
  await loc('l2', { name: 'Hospital General', address: { city: 'Valencia' } });
  await loc('l3', { name: 'Clinique du Parc' });
  await create(
    'p1',
    'CarePlan',
    { status: 'active', intent: 'plan', subject: { reference: 'Patient/upstream-1' }, instantiatesUri: ['http://example.org/protocol/diabetes/v2'] },
    w.alice.token,
    w.aliceSource.id,
  );
});

async function search(query: string, token = w.alice.token, headers: Record<string, string> = {}) {
  return call('GET', `/FHIR/R5/${query}`, { token, headers });
}

/** The names of the created resources a search returned, in order. */
async function found(query: string, token = w.alice.token): Promise<string[]> {
  const res = await search(query, token);
  if (res.status !== 200) throw new Error(`${query}: ${res.status} ${res.text}`);
  const names = Object.fromEntries(Object.entries(ids).map(([k, v]) => [v, k]));
  return res.json.entry.filter((e: any) => e.search.mode === 'match').map((e: any) => names[e.resource.id] ?? e.resource.id);
}

const sorted = async (query: string, token?: string) => (await found(query, token)).sort();

describe('token', () => {
  it('matches system|code, a bare code, system|, |code, :not and :text', async () => {
    expect(await sorted('Condition?code=http://snomed.info/sct|44054006')).toEqual(['c1']);
    expect(await sorted('Condition?code=44054006')).toEqual(['c1']);
    expect(await sorted('Condition?code=http://snomed.info/sct|')).toEqual(['c1', 'c2']);
    expect(await sorted('Condition?code=|custom-1')).toEqual(['c3']);
    expect(await sorted('Condition?code=http://loinc.org|44054006')).toEqual([]);
    expect(await sorted('Condition?clinical-status:not=active')).toEqual(['c2', 'c3']);
    expect(await sorted('Condition?code:text=diabetes')).toEqual(['c1']);
    expect(await sorted('Condition?code:text=SUSSES')).toEqual([]);
    expect(await sorted('Condition?code:text=süßes blut')).toEqual(['c3']);
    expect(await sorted('Condition?code:text=blut')).toEqual(['c3']);
    // Loose spelling of the name, as clients send it.
    expect(await sorted('Condition?clinicalStatus=resolved')).toEqual(['c2']);
  });

  it('reads the parameters of POST _search from a form body too', async () => {
    const res = await call('POST', '/FHIR/R5/Condition/_search?clinical-status=active', {
      token: w.alice.token,
      body: 'code=44054006',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    expect(res.status).toBe(200);
    expect(res.json.entry.map((e: any) => e.resource.id)).toEqual([ids.c1]);
  });

  it('ORs comma-separated values and ANDs repeated parameters', async () => {
    expect(await sorted('Condition?clinical-status=resolved,inactive')).toEqual(['c2', 'c3']);
    expect(await sorted('Condition?code=44054006,38341003')).toEqual(['c1', 'c2']);
    expect(await sorted('Condition?code=44054006,38341003&clinical-status=active')).toEqual(['c1']);
    expect(await sorted('Condition?code=44054006&clinical-status=resolved')).toEqual([]);
  });
});

describe('date', () => {
  it('compares with every prefix, partial dates as their span, offsets normalised to UTC', async () => {
    expect(await sorted('Condition?recorded-date=2019-05-02')).toEqual(['c1']);
    expect(await sorted('Condition?recorded-date=2019-05')).toEqual(['c1']);
    expect(await sorted('Condition?recorded-date=2019')).toEqual(['c1']);
    // 23:30 at -05:00 is the next day in UTC.
    expect(await sorted('Condition?recorded-date=2021-12-01')).toEqual(['c2']);
    expect(await sorted('Condition?recorded-date=2021-11-30')).toEqual([]);
    expect(await sorted('Condition?recorded-date=2019-05-02T08:00:00Z')).toEqual(['c1']);
    expect(await sorted('Condition?recorded-date=ge2020')).toEqual(['c2']);
    expect(await sorted('Condition?recorded-date=gt2019-05-02')).toEqual(['c2']);
    expect(await sorted('Condition?recorded-date=lt2020-01-01')).toEqual(['c1']);
    expect(await sorted('Condition?recorded-date=le2019-05-02')).toEqual(['c1']);
    expect(await sorted('Condition?recorded-date=ne2019-05-02')).toEqual(['c2']);
    expect(await sorted('Condition?recorded-date=ge2019-01-01&recorded-date=le2019-12-31')).toEqual(['c1']);
  });

  it('compares periods as ranges (sa, eb, ap and containment)', async () => {
    // onsetPeriod 2019-01-01 .. 2019-03-31 covers [Jan 1, Apr 1).
    expect(await sorted('Condition?onset-date=2019')).toEqual(['c1']);
    expect(await sorted('Condition?onset-date=2019-02')).toEqual([]);
    expect(await sorted('Condition?onset-date=le2019-01-15')).toEqual(['c1']);
    expect(await sorted('Condition?onset-date=sa2018-12-31')).toEqual(['c1', 'c2']);
    expect(await sorted('Condition?onset-date=eb2019-04-01')).toEqual(['c1']);
    expect(await sorted('Condition?onset-date=ap2019-02-15')).toEqual(['c1']);
    expect(await sorted('Condition?onset-date=2021-11-15')).toEqual([]);
    expect(await sorted('Condition?onset-date=2021')).toEqual(['c2']);
  });
});

describe('string, reference, quantity, uri', () => {
  it('string: starts-with ignoring case and accents, :exact, :contains, OR', async () => {
    expect(await sorted('Location?name=hopital')).toEqual(['l1']);
    expect(await sorted('Location?name=HÔP')).toEqual(['l1']);
    expect(await sorted('Location?name=saint')).toEqual([]);
    expect(await sorted('Location?name:contains=saint-elo')).toEqual(['l1']);
    expect(await sorted('Location?name:exact=Hôpital Saint-Éloi')).toEqual(['l1']);
    expect(await sorted('Location?name:exact=hôpital saint-éloi')).toEqual([]);
    expect(await sorted('Location?name=hosp,clin')).toEqual(['l2', 'l3']);
    expect(await sorted('Location?address-city=montp')).toEqual(['l1']);
    expect(await sorted('Location?address-postalcode=34090')).toEqual(['l1']);
  });

  it('reference: Type/id and a bare id', async () => {
    expect(await sorted('Condition?encounter=Encounter/enc-1')).toEqual(['c1']);
    expect(await sorted('Condition?encounter=enc-1')).toEqual(['c1']);
    expect(await sorted('Condition?subject=Patient/upstream-1')).toEqual(['c1', 'c2', 'c3']);
    expect(await sorted('Condition?subject=upstream-1')).toEqual(['c1', 'c2', 'c3']);
    expect(await sorted('Condition?subject=Group/upstream-1')).toEqual([]);
  });

  it('quantity: a number with its precision, prefixes, system|code and ||unit', async () => {
    expect(await sorted('Condition?abatement-age=50')).toEqual(['c2']);
    expect(await sorted('Condition?abatement-age=ge50|http://unitsofmeasure.org|a')).toEqual(['c2']);
    expect(await sorted('Condition?abatement-age=gt40||years')).toEqual(['c2']);
    expect(await sorted('Condition?abatement-age=50|http://unitsofmeasure.org|mo')).toEqual([]);
    expect(await sorted('Condition?abatement-age=lt10')).toEqual([]);
  });

  it('uri: exact and :below', async () => {
    expect(await sorted('CarePlan?instantiates-uri=http://example.org/protocol/diabetes/v2')).toEqual(['p1']);
    expect(await sorted('CarePlan?instantiates-uri=http://example.org/protocol')).toEqual([]);
    expect(await sorted('CarePlan?instantiates-uri:below=http://example.org/protocol')).toEqual(['p1']);
  });
});

describe('_id, _lastUpdated, _source', () => {
  it('_id finds the named rows the caller may see', async () => {
    expect(await sorted(`Condition?_id=${ids.c1}`)).toEqual(['c1']);
    expect(await sorted(`Condition?_id=${ids.c1},${ids.c2}&clinical-status=active`)).toEqual(['c1']);
    expect(await sorted(`Condition?_id=${ids.c4}`)).toEqual([]);
    expect(await sorted(`Condition?_id=${ids.c4}`, w.doctor.token)).toEqual(['c4']);
    expect(await sorted(`Condition?_id=${ids.l1}`)).toEqual([]);
    expect(await sorted(`Location?_id=${ids.l1}`)).toEqual(['l1']);
  });

  it('_lastUpdated compares the stored update time', async () => {
    const today = new Date().toISOString().slice(0, 10);
    expect(await sorted(`Condition?_lastUpdated=ge${today}`)).toEqual(['c1', 'c2', 'c3']);
    expect(await sorted(`Condition?_lastUpdated=${today}`)).toEqual(['c1', 'c2', 'c3']);
    expect(await sorted('Condition?_lastUpdated=lt2000')).toEqual([]);
  });

  it('_source: one source, all sources below the prefix; other values and unreachable sources give nothing', async () => {
    expect(await sorted(`Condition?_source=${sourceUriPrefix()}${w.aliceSource.id}`)).toEqual(['c1', 'c2', 'c3']);
    expect(await sorted(`Condition?_source=${sourceUriPrefix()}${w.bobSource.id}`)).toEqual([]);
    expect(await sorted(`Condition?_source=${sourceUriPrefix()}${w.bobSource.id}`, w.doctor.token)).toEqual(['c4']);
    expect(await sorted(`Condition?_source=${sourceUriPrefix()}${w.aliceSource.id},${sourceUriPrefix()}${w.bobSource.id}`, w.doctor.token)).toEqual(['c1', 'c2', 'c3', 'c4']);
    expect(await sorted(`Condition?_source=${sourceUriPrefix()}${carolSource.id}`, w.doctor.token)).toEqual([]);
    expect(await sorted(`Condition?_source:below=${sourceUriPrefix()}`, w.doctor.token)).toEqual(['c1', 'c2', 'c3', 'c4']);
    expect(await sorted(`Condition?_source:below=${sourceUriPrefix().slice(0, -1)}`)).toEqual(['c1', 'c2', 'c3']);
    expect(await sorted(`Condition?_source=${nativeSourceUri()}`)).toEqual([]);
    expect(await sorted('Condition?_source=https://elsewhere.example.test/x')).toEqual([]);
    // The source header is ignored on reads.
    const res = await search(`Condition?_source=${sourceUriPrefix()}${w.aliceSource.id}`, w.alice.token, { 'x-svc-fhir-source-id': String(w.bobSource.id) });
    expect(res.json.total).toBe(3);
  });
});

describe('scoping', () => {
  it('a patient sees only their own rows, whatever they name', async () => {
    expect(await sorted('Condition')).toEqual(['c1', 'c2', 'c3']);
    expect(await sorted('Condition', w.bob.token)).toEqual(['c4']);
    expect(await sorted(`Condition?patient=${w.bob.id}`)).toEqual([]);
    expect(await sorted(`Condition?patient=${w.alice.id}`)).toEqual(['c1', 'c2', 'c3']);
  });

  it("a practitioner sees the rows of their organizations' patients, narrowed by the scoping parameters", async () => {
    const d = w.doctor.token;
    expect(await sorted('Condition', d)).toEqual(['c1', 'c2', 'c3', 'c4']);
    expect(await sorted(`Condition?patient=${w.alice.id}`, d)).toEqual(['c1', 'c2', 'c3']);
    expect(await sorted(`Condition?patient=Patient/${w.bob.id}`, d)).toEqual(['c4']);
    expect(await sorted(`Condition?patient=${w.alice.id},${w.bob.id}&code=44054006`, d)).toEqual(['c1', 'c4']);
    expect(await sorted(`Condition?patient=${w.alice.id}&patient=${w.bob.id}`, d)).toEqual([]);
    expect(await sorted(`Condition?patient.organization=${w.org.id}`, d)).toEqual(['c1', 'c2', 'c3', 'c4']);
    expect(await sorted(`Condition?patient.identifier=${IDENTIFIER.system}|${IDENTIFIER.value}`, d)).toEqual(['c1', 'c2', 'c3']);
    expect(await sorted(`Condition?patient.identifier=${IDENTIFIER.system}|nobody`, d)).toEqual([]);
    expect(await sorted(`Condition?patient._has:Group:member:_id=${study.id}`, d)).toEqual(['c1', 'c2', 'c3']);
    expect(await sorted(`Condition?_has:Group:member:_id=${study.id}&code=44054006`, d)).toEqual(['c1']);
    expect(await sorted(`Location?patient=${w.bob.id}`, d)).toEqual([]);
  });

  it('naming a patient, organization or study out of reach is a 403 for a practitioner', async () => {
    expect((await search(`Condition?patient=${carol.id}`, w.doctor.token)).status).toBe(403);
    const other = await makeOrganization();
    expect((await search(`Condition?patient.organization=${other.id}`, w.doctor.token)).status).toBe(403);
    const outsider = await makePractitioner({ organizations: [other] });
    expect(await sorted('Condition', outsider.token)).toEqual([]);
    expect((await search(`Condition?patient._has:Group:member:_id=${study.id}`, outsider.token)).status).toBe(403);
  });
});

describe('sorting and paging', () => {
  it('sorts by any parameter: dates oldest first, - descending, rows without a value last both ways', async () => {
    expect(await found('Condition?_sort=recorded-date')).toEqual(['c1', 'c2', 'c3']);
    expect(await found('Condition?_sort=-recorded-date')).toEqual(['c2', 'c1', 'c3']);
    expect(await found('Condition?_sort=_lastUpdated')).toEqual(['c1', 'c2', 'c3']);
    expect(await found('Condition?_sort=-_lastUpdated')).toEqual(['c3', 'c2', 'c1']);
    // Names compare folded: 'hopital saint-eloi' < 'hospital general'.
    expect(await found('Location?_sort=name')).toEqual(['l3', 'l1', 'l2']);
    expect(await found('Location?_sort=-name')).toEqual(['l2', 'l1', 'l3']);
    expect(await found('Condition?_sort=clinical-status,-recorded-date', w.doctor.token)).toEqual(['c4', 'c1', 'c3', 'c2']);
  });

  it('orders by newest update first without _sort', async () => {
    expect(await found('Condition')).toEqual(['c3', 'c2', 'c1']);
  });

  for (const mode of ['streamed', 'sorted'] as const) {
    it(`pages with absolute next/previous/self links and an opaque cursor (${mode})`, async () => {
      const org = await makeOrganization();
      const doctor = await makePractitioner({ organizations: [org] });
      const patients = await Promise.all([0, 1, 2].map(() => makePatient({ organizations: [org], login: true })));
      const device = await makeDataSource();
      const made: string[] = [];
      for (const [i, p] of patients.entries()) {
        const source = await makeFhirSource({ patient: p, dataSource: device });
        for (let j = 0; j < 3 + i; j += 1) {
          const res = await postAuxiliary('Condition', condition({ recordedDate: `2020-01-${String(10 + i * 5 + j).padStart(2, '0')}` }), p.token!, source.id);
          made.push(res.json.id);
        }
      }
      const sort = mode === 'sorted' ? '&_sort=recorded-date' : '';
      const pages: string[][] = [];
      let res = await search(`Condition?_count=4${sort}`, doctor.token);
      expect(res.json.link[0]).toEqual({ relation: 'self', url: `http://localhost:8000/FHIR/R5/Condition?_count=4${sort}` });
      expect(res.json.link.some((l: any) => l.relation === 'previous')).toBe(false);
      const visited = [res];
      for (;;) {
        pages.push(res.json.entry.map((e: any) => e.resource.id));
        const next = res.json.link.find((l: any) => l.relation === 'next');
        if (!next) break;
        expect(next.url).toMatch(/^http:\/\/localhost:8000\/FHIR\/R5\/Condition\?.*_cursor=[A-Za-z0-9_-]+/);
        res = await call('GET', next.url.replace('http://localhost:8000', ''), { token: doctor.token });
        expect(res.status).toBe(200);
        visited.push(res);
      }
      expect(pages.map((p) => p.length)).toEqual([4, 4, 4]);
      expect(pages.flat().sort()).toEqual([...made].sort());
      if (mode === 'sorted') {
        const dates = (await Promise.all(visited)).flatMap((r) => r.json.entry.map((e: any) => e.resource.recordedDate));
        expect(dates).toEqual([...dates].sort());
        expect(visited.every((r) => r.json.total === 12)).toBe(true);
      }
      // Back from the last page, page by page, to the first.
      const back: string[][] = [pages[2]!];
      res = visited[2]!;
      for (;;) {
        const previous = res.json.link.find((l: any) => l.relation === 'previous');
        if (!previous) break;
        res = await call('GET', previous.url.replace('http://localhost:8000', ''), { token: doctor.token });
        back.unshift(res.json.entry.map((e: any) => e.resource.id));
      }
      expect(back).toEqual(pages);
    });
  }

  // The kernel's one reading of _count: a malformed value used to be a 400 here; it is now the
  // default page size with a warning in the outcome entry, and a 400 only under handling=strict.
  it('keeps _count within 1..1000 (default 20); a malformed one gets the default and a warning, or a 400 under strict handling', async () => {
    expect((await search('Condition?_count=5000', w.doctor.token)).status).toBe(200);
    for (const bad of ['abc', '-1']) {
      const res = await search(`Condition?_count=${bad}`, w.doctor.token);
      expect(res.status).toBe(200);
      expect(res.json.entry.filter((e: any) => e.search.mode === 'match')).toHaveLength(4);
      const outcome = res.json.entry.find((e: any) => e.search.mode === 'outcome');
      expect(outcome.resource.issue).toEqual([expect.objectContaining({ severity: 'warning', expression: ['_count'] })]);
      expect((await search(`Condition?_count=${bad}`, w.doctor.token, { prefer: 'handling=strict' })).status).toBe(400);
    }
  });
});

describe('counting', () => {
  it('_summary=count (and _count=0) answer the total with an empty entry list', async () => {
    for (const q of ['Condition?_summary=count', 'Condition?_count=0', 'Condition?_summary=count&code=44054006']) {
      const res = await search(q, w.doctor.token);
      expect(res.status).toBe(200);
      expect(res.json.entry).toEqual([]);
      expect(res.json.total).toBe(q.includes('code') ? 2 : 4);
    }
  });

  it('_total=accurate gives the total on a page with more to come; _total=none leaves it out', async () => {
    const page = await search('Condition?_count=1&_total=accurate', w.doctor.token);
    expect(page.json.entry).toHaveLength(1);
    expect(page.json.total).toBe(4);
    expect((await search('Condition?_total=none', w.doctor.token)).json.total).toBeUndefined();
    expect((await search('Condition?_count=1', w.doctor.token)).json.total).toBeUndefined();
    expect((await search('Condition?_total=maybe')).status).toBe(400);
  });
});

describe('ignored and malformed parameters', () => {
  it('ignores a parameter the type does not have, and says so in an outcome entry', async () => {
    const res = await search('Condition?shoe-size=12&code=44054006');
    expect(res.status).toBe(200);
    const outcome = res.json.entry.find((e: any) => e.search.mode === 'outcome');
    expect(outcome.resource.resourceType).toBe('OperationOutcome');
    expect(outcome.resource.issue[0]).toMatchObject({ severity: 'warning', expression: ['shoe-size'] });
    expect(outcome.resource.issue[0].diagnostics).toContain('shoe-size');
    expect(res.json.entry.filter((e: any) => e.search.mode === 'match')).toHaveLength(1);
  });

  it('refuses it under Prefer: handling=strict', async () => {
    const res = await search('Condition?shoe-size=12', w.alice.token, { prefer: 'handling=strict' });
    expect(res.status).toBe(400);
    expect(res.json.issue[0].diagnostics).toContain('shoe-size');
    expect((await search('Condition?code=1', w.alice.token, { prefer: 'handling=strict' })).status).toBe(200);
  });

  it.each([
    ['Condition?recorded-date=2019-02-30', "Invalid date '2019-02-30'"],
    ['Condition?recorded-date=soon', "Invalid value 'soon'"],
    ['Condition?recorded-date=xx2019', "'xx' is not a search prefix"],
    ['Condition?code=|', "Invalid token '|'"],
    ['Condition?code:in=http://x', "Modifier ':in' is not supported"],
    ['Condition?clinical-status:missing=maybe', 'use true or false'],
    ['Condition?abatement-age=fifty', 'Invalid'],
    ['Condition?_sort=shoe-size', "Cannot sort Condition by 'shoe-size'"],
    ['Condition?_cursor=not-a-cursor', 'Invalid _cursor'],
    ['Condition?_cursor=bnVsbA', 'Invalid _cursor'], // base64url of the JSON `null`
    ['Condition?_cursor=NDI', 'Invalid _cursor'], // base64url of the JSON `42`
  ])('%s is a 400', async (query, message) => {
    const res = await search(query);
    expect(res.status).toBe(400);
    expect(res.json.resourceType).toBe('OperationOutcome');
    expect(res.json.issue[0].diagnostics).toContain(message);
  });
});

describe('cursors and scans', () => {
  it("refuses another search's cursor, and a forged cursor cannot reach rows out of scope", async () => {
    const first = await search('Condition?_count=1', w.doctor.token);
    const next = first.json.link.find((l: any) => l.relation === 'next').url as string;
    const cursor = new URL(next).searchParams.get('_cursor')!;
    expect((await search(`Condition?code=44054006&_count=1&_cursor=${cursor}`, w.doctor.token)).status).toBe(400);

    // Alice forges a cursor pointing into Bob's partition: she still gets only her own rows.
    const digest = searchDigest('Condition', new URLSearchParams(''));
    const forged = encodeCursor({ direction: 'next', at: { keys: [], patientId: w.bob.id, sourceId: 0, place: 'Condition#9999' } }, auxiliaryPositions(0), digest);
    const res = await search(`Condition?_cursor=${forged}`);
    expect(res.status).toBe(200);
    const seen = res.json.entry.map((e: any) => e.resource.id);
    expect(seen).not.toContain(ids.c4);
    expect(seen.every((id: string) => [ids.c1, ids.c2, ids.c3].includes(id))).toBe(true);
  });

  it('never scans: the guard on the service client refuses a Scan', async () => {
    await expect(dynamo().send(new ScanCommand({ TableName: config().auxTable }))).rejects.toThrow(/a Scan was issued/);
  });
});

describe('the searchset Bundle', () => {
  it('is valid R5 (entries with fullUrl and search.mode)', async () => {
    const res = await search('Condition?shoe-size=1', w.doctor.token);
    const issues = (await validateResource(res.json)).filter((i) => i.severity === 'error');
    expect(issues).toEqual([]);
    expect(res.json.entry[0].fullUrl).toBe(`http://localhost:8000/FHIR/R5/Condition/${res.json.entry[0].resource.id}`);
  });

  it('links on the base the client used: a client of the /fhir/r5 alias pages on /fhir/r5', async () => {
    const res = await call('GET', '/fhir/r5/Condition?_count=1', { token: w.doctor.token });
    expect(res.status).toBe(200);
    const urls = [...res.json.link.map((l: any) => l.url), ...res.json.entry.map((e: any) => e.fullUrl)];
    expect(urls.length).toBeGreaterThan(2);
    expect(urls.every((u: string) => u.startsWith('http://localhost:8000/fhir/r5/Condition'))).toBe(true);
    const next = await call('GET', res.json.link.find((l: any) => l.relation === 'next').url.replace('http://localhost:8000', ''), { token: w.doctor.token });
    expect(next.status).toBe(200);
    expect(next.json.link.find((l: any) => l.relation === 'previous').url).toMatch(/^http:\/\/localhost:8000\/fhir\/r5\/Condition\?/);
  });
});

describe('Observation (for the native store, which routes non-mobile-health Observations here)', () => {
  it('creates through createAuxiliaryResource and searches through searchAuxiliary', async () => {
    const caller = await callerFromToken(w.alice.token);
    const lab = {
      resourceType: 'Observation',
      status: 'final',
      category: [{ coding: [{ system: 'http://terminology.hl7.org/CodeSystem/observation-category', code: 'laboratory' }] }],
      code: { coding: [{ system: 'http://loinc.org', code: '4548-4', display: 'Hemoglobin A1c' }] },
      valueQuantity: { value: 7.2, unit: '%', system: 'http://unitsofmeasure.org', code: '%' },
      effectiveDateTime: '2024-03-01T09:00:00Z',
    };
    const created = await createAuxiliaryResource({ caller, type: 'Observation', resource: lab, sourceHeader: String(w.aliceSource.id), origin: 'https://cdx.example.test' });
    expect(created.ok).toBe(true);
    if (!created.ok) return;
    expect(created.status).toBe(201);
    expect(created.resource.meta).toMatchObject({ versionId: '1' });
    const refused = await createAuxiliaryResource({ caller, type: 'Observation', resource: { ...lab, status: 'done' }, origin: 'https://x' });
    expect(refused).toMatchObject({ ok: false, status: 400 });

    const params = new URLSearchParams(`_source=${sourceUriPrefix()}${w.aliceSource.id}&category=laboratory&value-quantity=gt7&date=2024-03`);
    const { bundle } = await searchAuxiliary(caller, 'Observation', params, { origin: 'https://cdx.example.test', base: '/FHIR/R5' });
    expect(bundle.entry.map((e) => (e.resource as { id: string }).id)).toEqual([created.resource.id]);
    expect(bundle.link[0]!.url).toBe(`https://cdx.example.test/FHIR/R5/Observation?${params.toString()}`);
    const { bundle: none } = await searchAuxiliary(caller, 'Observation', new URLSearchParams('value-quantity=lt7'), { origin: 'https://x', base: '/FHIR/R5' });
    expect(none.entry).toEqual([]);
  });
});
