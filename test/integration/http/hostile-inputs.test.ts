/**
 * Inputs that once reached a 500, each now a clear 4xx in its path's dialect (or, for a search, no
 * match): prototype names as client text (a sort key, body fields, a merge patch key), JSON nested
 * past the edge limit (an `/api/v1/` body, a FHIR merge patch), an Observation cursor whose
 * timestamp lies outside the date range, text too long to be part of a key (ids and identifiers
 * searched for or stored); and request headers that once chose the origin of absolute links.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { config } from '../../../shared/config';
import { SOURCE_HEADER, sourceUri } from '../../../shared/fhir/constants';
import { CURSOR_PARAM, encodeCursor, searchDigest } from '../../../shared/fhir/searchset';
import { requestOrigin } from '../../../shared/http/request';
import { observationPositions } from '../../../shared/observations/search/cursor';
import { auxiliaryWorld, condition, postAuxiliary, type AuxiliaryWorld } from '../../support/auxiliary';
import { call } from '../../support/invoke';
import { observation, observationWorld, search, upload, type ObservationWorld } from '../../support/observations';

let ow: ObservationWorld;
let aw: AuxiliaryWorld;
beforeAll(async () => {
  ow = await observationWorld();
  aw = await auxiliaryWorld();
  const res = await upload(ow.patient.token, [observation(ow), observation(ow), observation(ow)]);
  expect(res.status).toBe(200);
});

const nestedJson = (levels: number) => `${'{"a":'.repeat(levels)}1${'}'.repeat(levels)}`;

describe('prototype names as client text', () => {
  it.each(['__proto__', 'constructor', 'toString', 'hasOwnProperty'])('Observation _sort=%s is ignored with a note, and paging still works', async (key) => {
    const res = await search(ow.patient.token, `_sort=${key}&_count=1`);
    expect(res.status).toBe(200);
    expect(res.json.entry.filter((e: any) => e.resource.resourceType === 'Observation')).toHaveLength(1);
    const next = res.json.link.find((l: any) => l.relation === 'next');
    expect(next).toBeDefined();
    expect(JSON.stringify(res.json)).toContain(`cannot sort by '${key}'`);
  });

  it('a merge patch that sets hasOwnProperty and then removes an element is a 400', async () => {
    const created = await postAuxiliary('Condition', condition(), aw.alice.token, aw.aliceSource.id);
    const res = await call('PATCH', `/FHIR/R5/Condition/${created.json.id}`, {
      token: aw.alice.token,
      body: '{"note": {"hasOwnProperty": 1, "text": null}}',
      headers: { 'content-type': 'application/merge-patch+json' },
    });
    expect(res.status).toBe(400);
    expect(res.json.resourceType).toBe('OperationOutcome');
  });

  it('objects carrying toString as data, where messages quote the value, are a 400 that quotes them as JSON', async () => {
    const created = await postAuxiliary('Condition', condition(), aw.alice.token, aw.aliceSource.id);
    const evil = { toString: 'x', valueOf: 'y' };
    const fhir = { 'content-type': 'application/fhir+json', [SOURCE_HEADER]: String(aw.aliceSource.id) };
    const answers = [
      await call('POST', '/FHIR/R5/Condition', { token: aw.alice.token, body: { resourceType: evil }, headers: fhir }),
      await call('PUT', `/FHIR/R5/Condition/${created.json.id}`, { token: aw.alice.token, body: { ...condition(), id: evil }, headers: fhir }),
      await call('POST', '/FHIR/R5/Condition', { token: aw.alice.token, body: condition({ clinicalStatus: { coding: [{ system: evil, code: 'active' }] } }), headers: fhir }),
    ];
    for (const res of answers) {
      expect(res.status, res.text.slice(0, 200)).toBe(400);
      expect(res.text).toContain(JSON.stringify(JSON.stringify(evil)).slice(1, -1));
    }
    const batch = await call('POST', '/FHIR/R5/', { token: aw.alice.token, body: { resourceType: 'Bundle', type: 'batch', entry: [{ request: { method: evil }, resource: condition() }] }, headers: fhir });
    expect(batch.status).toBe(200);
    expect(batch.json.entry[0].response.status).toBe('400 Bad Request');
  });

  it.each(['constructor', 'toString', 'valueOf', '__proto__', 'hasOwnProperty'])('an /api/v1/ body field named %s is an unknown field (400)', async (key) => {
    const res = await call('POST', '/api/v1/patients', { token: ow.practitioner.token, body: `{"${key}": 1}`, headers: { 'content-type': 'application/json' } });
    expect(res.status).toBe(400);
    // `__proto__` never becomes a key of the parsed body; the others are named as unknown fields.
    if (key !== '__proto__') expect(Object.hasOwn(res.json, key) && res.json[key]).toEqual(['Unknown field.']);
  });
});

describe('prototype names as search parameter names', () => {
  it.each(['constructor', '__proto__', 'toString', 'hasOwnProperty'])('%s: an ignored chain on Observation (patient.<name>=), an ignored parameter on Condition (<name>=), a 400 under strict handling', async (key) => {
    const native = await search(ow.patient.token, `patient.${key}=1`);
    expect(native.status).toBe(200);
    expect(JSON.stringify(native.json)).toContain(`patient.${key}`);
    const auxiliary = await call('GET', `/FHIR/R5/Condition?${key}=1`, { token: aw.alice.token });
    expect(auxiliary.status).toBe(200);
    expect(auxiliary.json.resourceType).toBe('Bundle');
    const strict = await call('GET', `/FHIR/R5/Condition?${key}=1`, { token: aw.alice.token, headers: { prefer: 'handling=strict' } });
    expect(strict.status).toBe(400);
    expect(strict.json.resourceType).toBe('OperationOutcome');
  });
});

describe('text too long to be part of a key', () => {
  const long = 'x'.repeat(3000);
  // 128 emoji are 256 UTF-16 units (the longest identifier value the API takes), 1,536 characters once encoded in a key.
  const longSystem = `urn:${'a/'.repeat(126)}`;
  const longValue = '😀'.repeat(128);

  it('an _id or patient.identifier no row could have finds nothing', async () => {
    const source = encodeURIComponent(sourceUri(aw.aliceSource.id));
    for (const query of [`Condition?_id=${long}`, `Observation?_source=${source}&_id=${long}`, `Observation?patient.identifier=urn:a|${long}`, `Patient?identifier=urn:a|${long}`, `Condition?patient.identifier=urn:a|${long}`, `Group?patient.identifier=urn:a|${long}`]) {
      const res = await call('GET', `/FHIR/R5/${query}`, { token: aw.doctor.token });
      expect(res.status, query.slice(0, 40)).toBe(200);
      expect(res.json.entry.filter((e: any) => e.search?.mode !== 'outcome'), query.slice(0, 40)).toEqual([]);
    }
  });

  it('a reading whose identifier is too long to claim is refused (400), the others stored', async () => {
    const res = await upload(ow.patient.token, [observation(ow, { identifiers: [{ system: 'urn:a', value: long }] }), observation(ow)]);
    expect(res.json.entry.map((e: any) => e.response.status)).toEqual(['400 Bad Request', '201 Created']);
    expect(res.json.entry[0].response.outcome.issue[0]).toMatchObject({ code: 'too-long', expression: ['Observation.identifier[0]'] });
  });

  it('a patient identifier too long to claim is a 400 on create and on the portal call', async () => {
    const json = { 'content-type': 'application/json' };
    const created = await call('POST', '/api/v1/patients', {
      token: ow.practitioner.token,
      body: { organization_id: ow.organization.id, telecom_email: 'long-id@example.test', name_family: 'F', name_given: 'G', identifiers: [{ system: longSystem, value: longValue }] },
      headers: json,
    });
    expect(created.status).toBe(400);
    expect(created.json.identifiers).toEqual([expect.stringContaining('too long')]);
    const portal = await call('POST', '/api/v1/portal/identifier', { token: ow.patient.token, body: { system: longSystem, value: longValue }, headers: json });
    expect(portal.status).toBe(400);
  });
});

describe('deep nesting', () => {
  it('an /api/v1/ body nested 5,000 levels is a 400', async () => {
    const res = await call('POST', '/api/v1/patients', { token: ow.practitioner.token, body: nestedJson(5000), headers: { 'content-type': 'application/json' } });
    expect(res.status).toBe(400);
    expect(JSON.stringify(res.json)).toContain('nests deeper than 100 levels');
  });

  it('a FHIR merge patch nested 10,000 levels is a 400 OperationOutcome, whatever the id', async () => {
    const created = await postAuxiliary('Condition', condition(), aw.alice.token, aw.aliceSource.id);
    expect(created.status).toBe(201);
    for (const id of [created.json.id, '00000000-0000-4000-8000-000000000000']) {
      const res = await call('PATCH', `/FHIR/R5/Condition/${id}`, { token: aw.alice.token, body: nestedJson(10_000), headers: { 'content-type': 'application/merge-patch+json' } });
      expect(res.status).toBe(400);
      expect(res.json.resourceType).toBe('OperationOutcome');
    }
  });

  it('a body at the limit is parsed as usual', async () => {
    const res = await call('POST', '/api/v1/patients', { token: ow.practitioner.token, body: `{"x": ${nestedJson(98)}}`, headers: { 'content-type': 'application/json' } });
    expect(res.status).toBe(400);
    expect(res.json.x).toEqual(['Unknown field.']);
  });
});

describe('impossible instants in searches', () => {
  it.each(['2025-06-15T10:00:60Z', '2025-06-15T10:00:61Z', '2025-06-15T10:00:99Z'])('date=%s is a 400 OperationOutcome (a leap second is 23:59:60 UTC only)', async (value) => {
    const native = await search(ow.patient.token, `date=${encodeURIComponent(value)}`);
    expect(native.status).toBe(400);
    expect(native.json.resourceType).toBe('OperationOutcome');
    const auxiliary = await call('GET', `/FHIR/R5/Condition?recorded-date=${encodeURIComponent(value)}`, { token: aw.alice.token });
    expect(auxiliary.status).toBe(400);
    expect(auxiliary.json.resourceType).toBe('OperationOutcome');
  });

  it('date=2016-12-31T23:59:60Z, a real leap second, is a search like any other', async () => {
    expect((await search(ow.patient.token, 'date=le2016-12-31T23:59:60Z')).status).toBe(200);
  });
});

describe('edited cursors', () => {
  it('a well-formed cursor with a timestamp beyond the date range is a 400', async () => {
    const query = `patient=${ow.patient.id}&_count=1`;
    const digest = searchDigest('Observation', new URLSearchParams(query));
    const order = { kind: 'date', descending: true } as const;
    for (const t of [8.64e15 + 1, -8.64e15 - 1, Number.MAX_SAFE_INTEGER]) {
      const cursor = encodeCursor({ direction: 'next', at: { p: ow.patient.id, i: 1, u: 0, t } }, observationPositions(order), digest);
      const res = await search(ow.patient.token, `${query}&${CURSOR_PARAM}=${cursor}`);
      expect(res.status, String(t)).toBe(400);
      expect(res.json.resourceType).toBe('OperationOutcome');
    }
  });
});

describe('absolute URLs', () => {
  const hostile = { host: 'evil.example', 'x-forwarded-host': 'evil.example', 'x-forwarded-proto': 'javascript' };
  const site = config().siteUrl;

  it('come from the configured site URL, whatever Host and X-Forwarded-* say', async () => {
    const metadata = await call('GET', '/FHIR/R5/metadata', { headers: hostile });
    expect(metadata.status).toBe(200);
    expect(metadata.json.implementation.url).toBe(`${site}/FHIR/R5`);
    expect(metadata.text).not.toContain('evil.example');

    const page = await call('GET', `/FHIR/R5/Observation?patient=${ow.patient.id}&_count=1`, { token: ow.patient.token, headers: hostile });
    expect(page.status).toBe(200);
    const urls = [...page.json.link.map((l: any) => l.url), ...page.json.entry.map((e: any) => e.fullUrl)];
    expect(urls.length).toBeGreaterThan(1);
    for (const url of urls) expect(url.startsWith(`${site}/FHIR/R5/`), url).toBe(true);

    const created = await call('POST', '/FHIR/R5/Condition', { token: aw.alice.token, body: condition(), headers: { ...hostile, [SOURCE_HEADER]: String(aw.aliceSource.id) } });
    expect(created.status).toBe(201);
    expect(created.headers['location']!.startsWith(`${site}/FHIR/R5/Condition/`)).toBe(true);
  });

  it("use the API's own domain on Lambda only when API Gateway says the request reached it", () => {
    const api = 'abcde12345.execute-api.eu-west-1.amazonaws.com';
    expect(requestOrigin(api, 'https://exchange.example.org', true)).toBe(`https://${api}`);
    expect(requestOrigin(api, 'https://exchange.example.org', false)).toBe('https://exchange.example.org');
    expect(requestOrigin('evil.example', 'https://exchange.example.org', true)).toBe('https://exchange.example.org');
    expect(requestOrigin(undefined, 'https://exchange.example.org', true)).toBe('https://exchange.example.org');
  });
});
