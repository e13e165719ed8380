import { beforeAll, describe, expect, it } from 'vitest';
import { nativeSourceUri } from '../../../shared/fhir/constants';
import { PREFIXES } from '../../../shared/fhir/search/criteria';
import { dateRange } from '../../../shared/fhir/search/dates';
import { dateMatches } from '../../../shared/fhir/search/match';
import { hasErrors, validateResource } from '../../../shared/fhir/validation';
import { samplePayload } from '../../../shared/omh/samples';
import type { DataSource, Organization, Patient, Study } from '../../../shared/directory/model';
import { call } from '../../support/invoke';
import { makeDataSource, makeOrganization, makePatient, makePractitioner, makeStudy, type WithToken } from '../../support/directory';
import { allPages, idsOf, matchIds, observation, search, statusesOf, TABLE_CODES, upload } from '../../support/observations';

type P = Patient & Partial<WithToken>;
let org: Organization;
let otherOrg: Organization;
let device: DataSource;
let alice: P; // login, enrolled in the study
let bob: P; // same organization, not enrolled
let carol: P; // another organization
let dora: P; // date fixtures
let doctor: Awaited<ReturnType<typeof makePractitioner>>;
let outsider: Awaited<ReturnType<typeof makePractitioner>>;
let study: Study;
const ids: Record<string, string> = {};

const HR = 'omh:heart-rate:2.0';
const STEPS = 'omh:step-count:3.0';
const BP = 'omh:blood-pressure:4.0';
const OMH = 'https://w3id.org/openmhealth';

const who = (patient: P) => ({ patient: patient as never, device });
const undated = (patient: P) => {
  const payload = samplePayload('omh:rr-interval:1.0') as { body: Record<string, unknown> };
  delete payload.body.effective_time_frame;
  return { ...observation(who(patient), { code: 'omh:rr-interval:1.0' }), valueAttachment: { contentType: 'application/json', data: Buffer.from(JSON.stringify(payload)).toString('base64') } };
};

/** Effective ranges of Dora's readings, as the service lifts them ([start, end) in ms). */
const doraRanges: Record<string, { lo: number; hi: number } | undefined> = {};

async function uploadNamed(token: string, named: Record<string, Record<string, unknown>>) {
  const names = Object.keys(named);
  const res = await upload(token, Object.values(named));
  expect(statusesOf(res)).toEqual(names.map(() => '201 Created'));
  idsOf(res).forEach((id, i) => (ids[names[i]!] = id));
  return res;
}

beforeAll(async () => {
  org = await makeOrganization();
  otherOrg = await makeOrganization();
  device = await makeDataSource({ codes: TABLE_CODES });
  alice = await makePatient({ organizations: [org], login: true, identifiers: [{ system: 'https://mrn.example', value: 'A-1' }] });
  bob = await makePatient({ organizations: [org], identifiers: [{ system: 'https://mrn.example', value: 'B-1' }] });
  carol = await makePatient({ organizations: [otherOrg], login: true, identifiers: [{ system: 'https://other.example', value: 'A-1' }] });
  dora = await makePatient({ organizations: [org] });
  doctor = await makePractitioner({ organizations: [org] });
  outsider = await makePractitioner({ organizations: [otherOrg] });
  study = await makeStudy({ organization: org, codes: [HR, STEPS], patients: [alice], consent: true, dataSources: [device] });
  await makeStudy({ organization: org, codes: TABLE_CODES, patients: [alice, bob, dora], consent: true });
  await makeStudy({ organization: otherOrg, codes: TABLE_CODES, patients: [carol], consent: true });

  const at = (d: number, h = 0) => Date.UTC(2025, 0, d, h);
  await uploadNamed(alice.token!, {
    aHr1: observation(who(alice), { code: HR, at: at(1, 8), form: 'date_time' }),
    aHr2: observation(who(alice), { code: HR, at: at(2, 8), form: 'date_time', status: 'preliminary' }),
    aSteps: observation(who(alice), { code: STEPS, at: at(3), form: 'start_end', spanMinutes: 1440, identifiers: [{ system: 'https://steps.example', value: 's-1' }] }),
    aBp: observation(who(alice), { code: BP, at: at(4, 9), form: 'date_time' }),
    aUndated: undated(alice),
  });
  await uploadNamed(doctor.token, {
    bHr: observation(who(bob), { code: HR, at: at(1, 9), form: 'date_time' }),
    bBp: observation(who(bob), { code: BP, at: at(5, 9), form: 'date_time' }),
  });
  await uploadNamed(outsider.token, { cHr: observation(who(carol), { code: HR, at: at(1, 10), form: 'date_time' }) });

  const dated = {
    d1: observation(who(dora), { code: HR, at: Date.parse('2025-01-10T10:00:00Z'), form: 'date_time' }),
    d2: observation(who(dora), { code: HR, at: Date.parse('2025-01-31T23:59:59Z'), form: 'date_time' }),
    d3: observation(who(dora), { code: STEPS, at: Date.parse('2025-01-30T22:00:00Z'), form: 'start_end', spanMinutes: 28 * 60 }),
    d4: observation(who(dora), { code: STEPS, at: Date.parse('2024-12-20T00:00:00Z'), form: 'start_duration', spanMinutes: 40 * 1440 }),
    d5: observation(who(dora), { code: HR, at: Date.parse('2025-02-01T19:00:00Z'), form: 'date_part_of_day' }),
    d6: undated(dora),
    d7: observation(who(dora), { code: HR, at: Date.parse('2025-02-14T19:00:00Z'), form: 'end_duration', spanMinutes: 1 }),
  };
  const res = await uploadNamed(doctor.token, dated);
  for (const [i, name] of Object.keys(dated).entries()) {
    const r = res.json.entry[i].resource;
    doraRanges[name] = r.effectiveDateTime
      ? { lo: Date.parse(r.effectiveDateTime), hi: Date.parse(r.effectiveDateTime) + 1 }
      : r.effectivePeriod
        ? { lo: Date.parse(r.effectivePeriod.start), hi: Math.max(Date.parse(r.effectivePeriod.end), Date.parse(r.effectivePeriod.start) + 1) }
        : undefined;
  }
});

const named = (...names: string[]) => names.map((n) => ids[n]!).sort();
const found = async (token: string, query: string) => matchIds(await search(token, query)).sort();

describe('who sees what', () => {
  it('a patient sees their own readings only; naming someone else yields nothing, not a 403', async () => {
    expect(await found(alice.token!, '_count=100')).toEqual(named('aHr1', 'aHr2', 'aSteps', 'aBp', 'aUndated'));
    const other = await search(alice.token!, `patient=${bob.id}`);
    expect(other.status).toBe(200);
    expect(matchIds(other)).toEqual([]);
  });

  it('a practitioner sees the patients of their organizations, and a 403 for naming others', async () => {
    const all = await found(doctor.token, '_count=1000');
    expect(all).toEqual(expect.arrayContaining(named('aHr1', 'bHr', 'd1')));
    expect(all).not.toContain(ids.cHr);
    expect((await search(doctor.token, `patient=${carol.id}`)).status).toBe(403);
    expect((await search(doctor.token, `patient.organization=${otherOrg.id}`)).status).toBe(403);
    expect((await search(outsider.token, `patient._has:Group:member:_id=${study.id}`)).status).toBe(403);
    expect((await search(doctor.token, 'patient=999999')).status).toBe(403);
  });

  it('patient, subject, patient.organization and patient.identifier', async () => {
    expect(await found(doctor.token, `patient=${bob.id}`)).toEqual(named('bHr', 'bBp'));
    expect(await found(doctor.token, `patient=Patient/${bob.id}`)).toEqual(named('bHr', 'bBp'));
    expect(await found(doctor.token, `subject=Patient/${bob.id}`)).toEqual(named('bHr', 'bBp'));
    expect(await found(doctor.token, `patient=${bob.id},${alice.id}&code=${BP}`)).toEqual(named('aBp', 'bBp'));
    expect(await found(outsider.token, `patient.organization=${otherOrg.id}`)).toEqual(named('cHr'));
    expect(await found(doctor.token, 'patient.identifier=https://mrn.example|B-1')).toEqual(named('bHr', 'bBp'));
    // A bare value matches any system; an identifier out of reach never gives a 403.
    expect(await found(doctor.token, `patient.identifier=A-1&code=${HR}`)).toEqual(named('aHr1', 'aHr2'));
    expect(await found(doctor.token, 'patient.identifier=https://other.example|A-1')).toEqual([]);
  });

  it("a study filter keeps its patients and its codes (and the unprefixed form means the same)", async () => {
    expect(await found(doctor.token, `patient._has:Group:member:_id=${study.id}`)).toEqual(named('aHr1', 'aHr2', 'aSteps'));
    expect(await found(doctor.token, `_has:Group:member:_id=${study.id}`)).toEqual(named('aHr1', 'aHr2', 'aSteps'));
    expect(await found(alice.token!, `patient._has:Group:member:_id=${study.id}&code=${HR}`)).toEqual(named('aHr1', 'aHr2'));
    expect(await found(doctor.token, `patient._has:Group:member:_id=${study.id}&code=${BP}`)).toEqual([]);
  });

  it('repeated scoping parameters must all hold', async () => {
    expect(await found(doctor.token, `patient=${alice.id}&patient=${bob.id}`)).toEqual([]);
    expect(await found(doctor.token, `patient=${alice.id},${bob.id}&patient=${bob.id}`)).toEqual(named('bHr', 'bBp'));
  });
});

describe('code', () => {
  it('system|code, bare code, system|, comma = OR, repeat = AND, :not', async () => {
    const p = `patient=${alice.id}`;
    expect(await found(doctor.token, `${p}&code=${OMH}|${HR}`)).toEqual(named('aHr1', 'aHr2'));
    expect(await found(doctor.token, `${p}&code=${HR}`)).toEqual(named('aHr1', 'aHr2'));
    expect(await found(doctor.token, `${p}&code=${HR},${STEPS}`)).toEqual(named('aHr1', 'aHr2', 'aSteps'));
    expect(await found(doctor.token, `${p}&code=${HR},${STEPS}&code=${STEPS},${BP}`)).toEqual(named('aSteps'));
    expect(await found(doctor.token, `${p}&code=${OMH}|`)).toEqual(named('aHr1', 'aHr2', 'aSteps', 'aBp', 'aUndated'));
    expect(await found(doctor.token, `${p}&code:not=${HR}`)).toEqual(named('aSteps', 'aBp', 'aUndated'));
    expect(await found(doctor.token, `${p}&code=http://loinc.org|${HR}`)).toEqual([]);
    expect(await found(doctor.token, `${p}&code=omh:unknown:1.0`)).toEqual([]);
    expect(await found(doctor.token, `${p}&code:text=heart`)).toEqual(named('aHr1', 'aHr2'));
  });
});

describe('date', () => {
  const VALUES = ['2025', '2024-12', '2025-01', '2025-01-31', '2025-02-01', '2025-02-01T01:00:00Z', '2025-02-14T19:00:00Z', '2025-02-14T20:00:00+01:00', '2025-01-10T10:00'];

  it('every prefix and precision gives exactly the readings whose effective range matches (R5 range semantics)', async () => {
    for (const prefix of PREFIXES) {
      for (const value of VALUES) {
        const query = { prefix, range: dateRange(value)! };
        const now = Date.now();
        const expected = Object.entries(doraRanges).filter(([, r]) => r && dateMatches(r, query, now)).map(([n]) => n);
        const got = await found(doctor.token, `patient=${dora.id}&date=${prefix}${encodeURIComponent(value)}&_count=100`);
        expect(got, `date=${prefix}${value}`).toEqual(named(...expected));
      }
    }
  });

  it('a bare date is eq; repetition = AND; comma = OR', async () => {
    expect(await found(doctor.token, `patient=${dora.id}&date=2025-01-10`)).toEqual(named('d1'));
    expect(await found(doctor.token, `patient=${dora.id}&date=ge2025-01-31&date=lt2025-02-02`)).toEqual(named('d2', 'd3', 'd5'));
    expect(await found(doctor.token, `patient=${dora.id}&date=2025-01-10,2025-02-14`)).toEqual(named('d1', 'd7'));
  });

  it('combines with code through the code index', async () => {
    expect(await found(doctor.token, `patient=${dora.id}&code=${STEPS}&date=ge2025-01-27`)).toEqual(named('d3', 'd4'));
    expect(await found(doctor.token, `patient=${dora.id}&code=${STEPS}&date=ge2025-01-31`)).toEqual(named('d3'));
    expect(await found(doctor.token, `patient=${dora.id}&code=${HR},${STEPS}&date=sa2025-01-31`)).toEqual(named('d5', 'd7'));
  });

  it('an invalid date is a 400', async () => {
    for (const bad of ['2025-13', 'gx2025', 'yesterday', '2025-02-30']) {
      const res = await search(doctor.token, `date=${bad}`);
      expect(res.status, bad).toBe(400);
      expect(res.json.resourceType).toBe('OperationOutcome');
    }
  });
});

describe('_id, _lastUpdated, status, identifier, device', () => {
  it('_id names readings (within reach only)', async () => {
    expect(await found(doctor.token, `_id=${ids.aHr1}`)).toEqual(named('aHr1'));
    expect(await found(doctor.token, `_id=${ids.aHr1},${ids.bBp}&_sort=date`)).toEqual(named('aHr1', 'bBp'));
    expect(await found(doctor.token, `_id=${ids.cHr}`)).toEqual([]);
    expect(await found(alice.token!, `_id=${ids.bHr}`)).toEqual([]);
    expect(await found(doctor.token, '_id=abc')).toEqual([]);
  });

  it('_lastUpdated compares the time of the upload', async () => {
    const res = await search(doctor.token, `_id=${ids.d1}`);
    const updated = res.json.entry[0].resource.meta.lastUpdated as string;
    expect(await found(doctor.token, `patient=${dora.id}&_lastUpdated=ge${updated}`)).toHaveLength(7);
    expect(await found(doctor.token, `patient=${dora.id}&_lastUpdated=lt${updated}`)).toEqual([]);
    expect(await found(doctor.token, `patient=${alice.id}&_lastUpdated=gt2100-01-01`)).toEqual([]);
  });

  it('status, identifier and device', async () => {
    expect(await found(alice.token!, 'status=preliminary')).toEqual(named('aHr2'));
    expect(await found(alice.token!, 'identifier=https://steps.example|s-1')).toEqual(named('aSteps'));
    expect(await found(alice.token!, 'identifier=s-1')).toEqual(named('aSteps'));
    expect(await found(alice.token!, `device=Device/${device.id}&code=${HR}`)).toEqual(named('aHr1', 'aHr2'));
    expect(await found(alice.token!, 'device=Device/999999')).toEqual([]);
  });
});

describe('order and paging', () => {
  const order = async (query: string) => matchIds(await search(doctor.token, `patient=${dora.id}&${query}&_count=100`));

  it('_sort=date and -date put undated readings last both ways', async () => {
    expect(await order('_sort=date')).toEqual(['d4', 'd1', 'd3', 'd2', 'd5', 'd7', 'd6'].map((n) => ids[n]));
    expect(await order('_sort=-date')).toEqual(['d7', 'd5', 'd2', 'd3', 'd1', 'd4', 'd6'].map((n) => ids[n]));
  });

  it('_sort=_lastUpdated and -_lastUpdated', async () => {
    const up = await order('_sort=_lastUpdated');
    expect(await order('_sort=-_lastUpdated')).toEqual([...up].reverse());
    expect(new Set(up)).toEqual(new Set(Object.keys(doraRanges).map((n) => ids[n])));
  });

  it('walks to the last page without losing or repeating a row, for every order, and back with previous links', async () => {
    for (const sort of ['', '&_sort=date', '&_sort=-date', '&_sort=_lastUpdated', '&_sort=-_lastUpdated']) {
      const everything = matchIds(await search(doctor.token, `_count=1000${sort}`));
      const pages = await allPages(doctor.token, `_count=3${sort}`);
      expect(pages.map(matchIds).flat(), sort).toEqual(everything);
      expect(pages.slice(0, -1).every((p) => matchIds(p).length === 3)).toBe(true);
      expect(pages[0]!.json.link.find((l: any) => l.relation === 'previous')).toBeUndefined();
      // Back from the last page.
      let page = pages[pages.length - 1]!;
      const back: string[][] = [matchIds(page)];
      for (;;) {
        const previous = page.json.link.find((l: any) => l.relation === 'previous');
        if (!previous) break;
        const url = new URL(previous.url);
        page = await call('GET', `${url.pathname}${url.search}`, { token: doctor.token });
        back.unshift(matchIds(page));
      }
      expect(back.flat(), `back ${sort}`).toEqual(everything);
    }
  });

  it('links are absolute, self always; a page past the end is empty, never a 404', async () => {
    const first = await search(doctor.token, `patient=${dora.id}&_count=5`);
    const links = Object.fromEntries(first.json.link.map((l: any) => [l.relation, l.url]));
    expect(links.self).toBe(`http://localhost:8000/FHIR/R5/Observation?patient=${dora.id}&_count=5`);
    expect(links.next).toMatch(/^http:\/\/localhost:8000\/FHIR\/R5\/Observation\?patient=\d+&_count=5&_cursor=/);
    const second = await call('GET', new URL(links.next).pathname + new URL(links.next).search, { token: doctor.token });
    expect(matchIds(second)).toHaveLength(2);
    expect(second.json.link.find((l: any) => l.relation === 'next')).toBeUndefined();
    expect(second.json.link.find((l: any) => l.relation === 'self').url).toBe(links.next);
  });

  it('a cursor that was tampered with, or used with other parameters, is a 400; a new page size is fine', async () => {
    const first = await search(doctor.token, `patient=${dora.id}&_count=2`);
    const next = new URL(first.json.link.find((l: any) => l.relation === 'next').url);
    const cursor = next.searchParams.get('_cursor')!;
    expect((await search(doctor.token, `patient=${dora.id}&_count=2&_cursor=${cursor}x`)).status).toBe(400);
    expect((await search(doctor.token, `patient=${dora.id}&_count=2&_cursor=bnVsbA`)).status).toBe(400); // base64url of the JSON `null`
    expect((await search(doctor.token, `patient=${bob.id}&_count=2&_cursor=${cursor}`)).status).toBe(400);
    expect((await search(doctor.token, `patient=${dora.id}&_count=2&_sort=date&_cursor=${cursor}`)).status).toBe(400);
    const bigger = await search(doctor.token, `patient=${dora.id}&_count=10&_cursor=${cursor}`);
    expect(matchIds(bigger)).toHaveLength(5);
  });

  it('a cursor carries no rights: the scope is checked again on every page', async () => {
    const first = await search(doctor.token, '_count=2');
    const next = new URL(first.json.link.find((l: any) => l.relation === 'next').url);
    const res = await call('GET', `${next.pathname}${next.search}`, { token: outsider.token });
    expect(res.status).toBe(200);
    expect(matchIds(res).every((id) => id === ids.cHr)).toBe(true);
  });

  // The kernel's one reading of _count changed two answers here: _count=0 used to be the default
  // page size and is now FHIR's "the total only"; a malformed value is the default page size with
  // a warning (it used to pass silently), and a 400 under handling=strict.
  it('_count: default 20, at most 1000, 0 for the total only, a malformed value ignored and reported', async () => {
    const res = await search(doctor.token, '_count=5000');
    expect(res.status).toBe(200);
    const counted = await search(doctor.token, `patient=${dora.id}&_count=0`);
    expect(counted.json).toEqual({ resourceType: 'Bundle', type: 'searchset', total: 7, link: [{ relation: 'self', url: expect.any(String) }], entry: [] });
    const malformed = await search(doctor.token, `patient=${dora.id}&_count=-2`);
    expect(matchIds(malformed)).toHaveLength(7);
    const outcome = malformed.json.entry.find((e: any) => e.search.mode === 'outcome');
    expect(outcome.resource.issue.map((i: any) => [i.severity, i.expression[0]])).toEqual([['warning', '_count']]);
    expect((await search(doctor.token, `patient=${dora.id}&_count=2.5`, { prefer: 'handling=strict' })).status).toBe(400);
  });
});

describe('totals, unknown parameters, the searchset shape', () => {
  it('_summary=count gives the total, an empty entry list and only a self link', async () => {
    const res = await search(doctor.token, `patient=${dora.id}&_summary=count`);
    expect(res.json).toEqual({ resourceType: 'Bundle', type: 'searchset', total: 7, link: [{ relation: 'self', url: expect.any(String) }], entry: [] });
    expect((await search(doctor.token, `patient=${dora.id}&date=ge2025-02&_summary=count`)).json.total).toBe(2);
    expect((await search(doctor.token, `patient._has:Group:member:_id=${study.id}&_summary=count`)).json.total).toBe(3);
    expect((await search(doctor.token, `patient=${dora.id}&code=${HR}&_summary=count`)).json.total).toBe(4);
  });

  it('_total=accurate gives the total on a page; a single page knows it anyway', async () => {
    const page = await search(doctor.token, `patient=${dora.id}&_count=2&_total=accurate`);
    expect(page.json.total).toBe(7);
    expect(matchIds(page)).toHaveLength(2);
    expect((await search(doctor.token, `patient=${dora.id}&_count=2`)).json.total).toBeUndefined();
    expect((await search(doctor.token, `patient=${dora.id}`)).json.total).toBe(7);
  });

  it('reports an unknown parameter in an outcome entry, and refuses it under Prefer: handling=strict', async () => {
    const res = await search(alice.token!, 'colour=red&_include=Observation:patient');
    expect(res.status).toBe(200);
    const outcome = res.json.entry.find((e: any) => e.search.mode === 'outcome');
    expect(outcome.resource.resourceType).toBe('OperationOutcome');
    expect(outcome.resource.issue.map((i: any) => i.expression[0])).toEqual(['colour', '_include']);
    expect(matchIds(res)).toHaveLength(5);
    const strict = await search(alice.token!, 'colour=red', { prefer: 'handling=strict' });
    expect(strict.status).toBe(400);
    expect(strict.json.issue[0].diagnostics).toContain('colour');
  });

  it('is a valid R5 searchset', async () => {
    const res = await search(doctor.token, `patient=${alice.id}&colour=red&_count=2`);
    const issues = (await validateResource(res.json)).filter((i) => i.severity === 'error');
    expect(issues).toEqual([]);
    expect(hasErrors(await validateResource(res.json))).toBe(false);
  });

  it('POST _search reads form and query parameters alike', async () => {
    const res = await call('POST', `/FHIR/R5/Observation/_search?patient=${alice.id}`, {
      token: doctor.token,
      body: `code=${encodeURIComponent(HR)}`,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    expect(res.status).toBe(200);
    expect(matchIds(res).sort()).toEqual(named('aHr1', 'aHr2'));
  });

  it('_source naming the native source reads the native store', async () => {
    expect(await found(alice.token!, `_source=${encodeURIComponent(nativeSourceUri())}&code=${HR}`)).toEqual(named('aHr1', 'aHr2'));
  });
});

describe('read by id', () => {
  it('is scoped: a reading out of reach is a 404, like a missing one', async () => {
    expect((await call('GET', `/FHIR/R5/Observation/${ids.aHr1}`, { token: alice.token! })).status).toBe(200);
    expect((await call('GET', `/FHIR/R5/Observation/${ids.bHr}`, { token: alice.token! })).status).toBe(404);
    expect((await call('GET', `/FHIR/R5/Observation/${ids.aHr1}`, { token: outsider.token })).status).toBe(404);
    for (const id of ['999999999', 'abc', '0']) {
      const res = await call('GET', `/FHIR/R5/Observation/${id}`, { token: doctor.token });
      expect(res.status, id).toBe(404);
      expect(res.json.resourceType).toBe('OperationOutcome');
    }
  });
});
