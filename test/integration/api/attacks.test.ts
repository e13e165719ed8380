/**
 * Hostile input in every field of every `/api/v1/` write: objects where text belongs (NoSQL-style
 * operators), lists, oversized text, NUL bytes, markup, negative and boolean ids, unknown fields,
 * malformed JSON and oversized bodies. Each gets a clear 4xx and leaves every stored row as it was.
 * Text that only looks like an injection (`Robert'); DROP TABLE ...`) is a legitimate name: it is
 * stored verbatim and touches nothing else.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { getPatient } from '../../../shared/directory/patients';
import { API_WRITES, apiWorld, refused, send, type ApiWorld } from '../../support/api';
import { call } from '../../support/invoke';
import { directoryRows } from '../../support/store';

let world: ApiWorld;

beforeAll(async () => {
  world = await apiWorld();
});

const MARKUP = '<script>alert(1)</script>';

/** Values no field accepts (markup aside, which a password may contain). */
const HOSTILE: Array<[string, unknown]> = [
  ['an operator object', { $gt: '' }],
  ['a list', ['a']],
  ['oversized text', 'x'.repeat(10_000)],
  ['a NUL byte', 'a\u0000b'],
  ['markup', MARKUP],
  ['a negative number', -1],
  ['a boolean', true],
];

describe.each(API_WRITES)('$name', (endpoint) => {
  it('refuses hostile values in every field, changing nothing', async () => {
    for (const field of Object.keys(endpoint.body(world))) {
      for (const [what, value] of HOSTILE) {
        if (what === 'markup' && field === 'password') continue;
        const res = await refused(endpoint.method, endpoint.url(world), endpoint.token(world), { ...endpoint.body(world), [field]: value });
        expect(res.status, `${field} = ${what}`).toBe(400);
      }
    }
  });

  it('refuses an unknown field, changing nothing', async () => {
    const res = await refused(endpoint.method, endpoint.url(world), endpoint.token(world), { ...endpoint.body(world), is_superuser_override: true });
    expect(res.status).toBe(400);
    expect(res.json.isSuperuserOverride ?? res.json.error).toBeDefined();
  });
});

describe('whole-body attacks', () => {
  it('malformed JSON, a non-object body and an oversized body are refused before anything runs', async () => {
    const { manA } = world;
    const before = await directoryRows();
    const malformed = await call('POST', '/api/v1/patients', { token: manA.token, body: '{"organization_id": 1,', headers: { 'content-type': 'application/json' } });
    expect(malformed.status).toBe(400);
    expect(malformed.json.detail).toContain('not valid JSON');
    const list = await call('POST', '/api/v1/studies', { token: manA.token, body: '[1,2,3]', headers: { 'content-type': 'application/json' } });
    expect(list.status).toBe(400);
    expect(list.json).toEqual({ nonFieldErrors: ['Invalid data. Expected a dictionary, but got list.'] });
    const huge = await call('POST', '/api/v1/studies', { token: manA.token, body: JSON.stringify({ name: 'x'.repeat(6 * 1024 * 1024) }), headers: { 'content-type': 'application/json' } });
    expect(huge.status).toBe(413);
    const xml = await call('POST', '/api/v1/studies', { token: manA.token, body: '<study/>', headers: { 'content-type': 'application/xml' } });
    expect(xml.status).toBe(415);
    expect(await directoryRows()).toEqual(before);
  });

  it('keeps injection-looking names verbatim, touching no other row', async () => {
    const { manA, A, p1 } = world;
    const others = await getPatient(p1.id);
    const name = "Robert'); DROP TABLE patients;--";
    const res = await send('POST', '/api/v1/patients', manA.token, { organization_id: A.id, telecom_email: 'bobby@example.test', name_family: name, name_given: '{"$ne": null}' });
    expect(res.status).toBe(201);
    expect(await getPatient(res.json.id)).toMatchObject({ nameFamily: name, nameGiven: '{"$ne": null}' });
    expect(await getPatient(p1.id)).toEqual(others);
  });

  it('ids in paths and query strings that are not ids are 404 / 400, never a wider read', async () => {
    const { manA } = world;
    expect((await send('GET', "/api/v1/patients/1'%20OR%20'1'='1", manA.token)).status).toBe(404);
    expect((await send('GET', '/api/v1/studies/-1', manA.token)).status).toBe(404);
    expect((await send('GET', '/api/v1/patients?study_id=%7B%22%24ne%22%3A1%7D', manA.token)).status).toBe(400);
    expect((await send('GET', `/api/v1/patients?patient_identifier_value=${'x'.repeat(1000)}`, manA.token)).status).toBe(400);
  });
});
