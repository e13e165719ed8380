/**
 * What an auxiliary write through the real `fhir` handler leaves in the auxiliary table, item by
 * item (resource, index and upstream-claim items, their keys and fields), so these stay on
 * DynamoDB Local: the rest of the handler's behaviour is test/integration/auxiliary/write.test.ts,
 * on the in-memory stores.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { sourceUriPrefix } from '../../../shared/fhir/constants';
import { auxiliaryItems, auxiliaryItemsOf as itemsOf, auxiliaryWorld, condition, postAuxiliary, type AuxiliaryWorld } from '../../support/auxiliary';
import { call } from '../../support/invoke';

let w: AuxiliaryWorld;
beforeAll(async () => {
  w = await auxiliaryWorld();
});

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describe('create', () => {
  it('stores a resource named by the source header: 201, Location, ETag, the stored resource', async () => {
    const res = await postAuxiliary('Condition', condition({ id: 'upstream-17', meta: { tag: [{ code: 'imported' }] } }), w.alice.token, w.aliceSource.id);
    expect(res.status).toBe(201);
    const body = res.json;
    expect(body.id).toMatch(UUID);
    expect(body.meta).toEqual({
      tag: [{ code: 'imported' }],
      versionId: '1',
      lastUpdated: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
      source: `${sourceUriPrefix()}${w.aliceSource.id}`,
    });
    expect(body.code.text).toBe('Type 2 diabetes');
    expect(res.headers.location).toBe(`http://localhost:8000/FHIR/R5/Condition/${body.id}/_history/1`);
    expect(res.headers.etag).toBe('W/"1"');
    expect(new Date(res.headers['last-modified']!).getTime()).toBe(Math.floor(Date.parse(body.meta.lastUpdated) / 1000) * 1000);

    // The row: owned by the source's patient (never the body's subject), the upstream id kept beside it.
    const items = await itemsOf(body.id);
    expect(items.map((i) => String(i.pk)).sort()).toEqual([`P#${w.alice.id}`, `R#${body.id}`, `U#${w.aliceSource.id}#Condition#upstream-17`]);
    const resource = items.find((i) => String(i.pk).startsWith('R#'))!;
    expect(resource).toMatchObject({ patientId: w.alice.id, sourceId: w.aliceSource.id, upstreamId: 'upstream-17', version: 1 });
    expect(JSON.parse(String(resource.body))).toEqual(body);
    const index = JSON.parse(String(items.find((i) => String(i.pk).startsWith('P#'))!.idx));
    expect(index.code).toContainEqual({ s: 'http://snomed.info/sct', c: '44054006', t: 'diabetes mellitus type 2' });
    expect(index._source).toEqual([`${sourceUriPrefix()}${w.aliceSource.id}`]);

    const read = await call('GET', `/FHIR/R5/Condition/${body.id}`, { token: w.alice.token });
    expect(read.status).toBe(200);
    expect(read.json).toEqual(body);
    expect(read.headers.etag).toBe('W/"1"');
  });

  it('lets many concurrent re-posts of one upstream id end in one row', async () => {
    const results = await Promise.all(
      Array.from({ length: 6 }, (_, i) => postAuxiliary('Condition', condition({ id: 'raced', note: [{ text: `attempt ${i}` }] }), w.alice.token, w.aliceSource.id)),
    );
    expect(results.every((r) => r.status === 201 || r.status === 200)).toBe(true);
    expect(new Set(results.map((r) => r.json.id)).size).toBe(1);
    expect(results.filter((r) => r.status === 201)).toHaveLength(1);
    const rows = (await auxiliaryItems()).filter((i) => i.upstreamId === 'raced' && String(i.pk).startsWith('R#'));
    expect(rows).toHaveLength(1);
    expect(rows[0]!.version).toBe(6);
  });
});

describe('update, patch, delete', () => {
  it('PUT replaces the resource: next version, new lastUpdated, same id, source and upstream id', async () => {
    const created = await postAuxiliary('Condition', condition({ id: 'put-me' }), w.alice.token, w.aliceSource.id);
    const id = created.json.id;
    const put = await call('PUT', `/FHIR/R5/Condition/${id}`, { token: w.alice.token, body: condition({ id, recordedDate: '2021-06-01' }) });
    expect(put.status).toBe(200);
    expect(put.json.meta.versionId).toBe('2');
    expect(put.json.meta.source).toBe(created.json.meta.source);
    expect(put.json.recordedDate).toBe('2021-06-01');
    expect(put.json.meta.lastUpdated > created.json.meta.lastUpdated).toBe(true);
    expect(put.headers.etag).toBe('W/"2"');
    const items = await itemsOf(id);
    expect(items.filter((i) => String(i.pk).startsWith('P#'))).toHaveLength(1);
    expect(items.find((i) => String(i.pk).startsWith('R#'))).toMatchObject({ upstreamId: 'put-me', version: 2 });
    expect((await call('GET', `/FHIR/R5/Condition/${id}`, { token: w.alice.token })).json.recordedDate).toBe('2021-06-01');
  });

  it('DELETE removes every item of the row (204), then reads are 404', async () => {
    const created = await postAuxiliary('Condition', condition({ id: 'to-delete' }), w.alice.token, w.aliceSource.id);
    const url = `/FHIR/R5/Condition/${created.json.id}`;
    expect((await call('DELETE', url, { token: w.bob.token })).status).toBe(404);
    const del = await call('DELETE', url, { token: w.alice.token });
    expect(del.status).toBe(204);
    expect(await itemsOf(created.json.id)).toEqual([]);
    expect((await auxiliaryItems()).some((i) => String(i.pk).includes('to-delete'))).toBe(false);
    expect((await call('GET', url, { token: w.alice.token })).status).toBe(404);
    expect((await call('DELETE', url, { token: w.alice.token })).status).toBe(404);
    // The upstream id is free again: re-posting creates a new row.
    expect((await postAuxiliary('Condition', condition({ id: 'to-delete' }), w.alice.token, w.aliceSource.id)).status).toBe(201);
  });
});
