/**
 * Auxiliary writes through the real `fhir` handler: create naming the FHIR Source both ways, the
 * stored row, idempotent re-posting, update, merge patch, delete, `If-Match`, who may write, and
 * every bad input of the issue, each proven to store nothing (table and bucket, or the twins). The
 * items a write leaves in the table, key by key, are write-items.test.ts (on DynamoDB Local).
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { SOURCE_HEADER, sourceUriPrefix } from '../../../shared/fhir/constants';
import { auxiliaryItems, auxiliaryItemsOf as itemsOf, auxiliaryWorld, bucketKeys, condition, postAuxiliary, type AuxiliaryWorld } from '../../support/auxiliary';
import { makeOrganization, makePractitioner } from '../../support/directory';
import { call } from '../../support/invoke';

let w: AuxiliaryWorld;
beforeAll(async () => {
  w = await auxiliaryWorld();
});

describe('create', () => {
  it("names the source by the resource's own meta.source, and the header wins over it", async () => {
    const byMeta = await postAuxiliary('Condition', condition({ meta: { source: `${sourceUriPrefix()}${w.aliceSource.id}` } }), w.alice.token);
    expect(byMeta.status).toBe(201);
    expect(byMeta.json.meta.source).toBe(`${sourceUriPrefix()}${w.aliceSource.id}`);

    // Header names Alice's source, meta.source Bob's: the header decides (and Alice may use it).
    const both = await postAuxiliary('Condition', condition({ meta: { source: `${sourceUriPrefix()}${w.bobSource.id}` } }), w.alice.token, w.aliceSource.id);
    expect(both.status).toBe(201);
    expect(both.json.meta.source).toBe(`${sourceUriPrefix()}${w.aliceSource.id}`);
    expect((await itemsOf(both.json.id))[0]).toMatchObject({ patientId: w.alice.id });
  });

  it('re-posting the same upstream id through the same source updates that row (200, same id, next version)', async () => {
    const first = await postAuxiliary('Condition', condition({ id: 'same-upstream' }), w.alice.token, w.aliceSource.id);
    const again = await postAuxiliary('Condition', condition({ id: 'same-upstream', recordedDate: '2020-01-01' }), w.alice.token, w.aliceSource.id);
    expect(first.status).toBe(201);
    expect(again.status).toBe(200);
    expect(again.json.id).toBe(first.json.id);
    expect(again.json.meta.versionId).toBe('2');
    expect(again.json.recordedDate).toBe('2020-01-01');
    expect(again.headers['content-location']).toBe(`http://localhost:8000/FHIR/R5/Condition/${first.json.id}/_history/2`);
    // One resource item, one index item (moved to the new update time), one claim.
    const items = (await auxiliaryItems()).filter((i) => i.id === first.json.id);
    expect(items).toHaveLength(3);

    // Another source of the same patient, or another type, is another row.
    const otherType = await postAuxiliary('AllergyIntolerance', { resourceType: 'AllergyIntolerance', id: 'same-upstream', patient: { reference: 'Patient/x' } }, w.alice.token, w.aliceSource.id);
    expect(otherType.status).toBe(201);
    expect(otherType.json.id).not.toBe(first.json.id);
  });

  it('honours Prefer: return=minimal and return=OperationOutcome', async () => {
    const minimal = await postAuxiliary('Condition', condition(), w.alice.token, w.aliceSource.id, { headers: { prefer: 'return=minimal' } });
    expect(minimal.status).toBe(201);
    expect(minimal.text).toBe('');
    expect(minimal.headers.location).toMatch(/\/FHIR\/R5\/Condition\/[0-9a-f-]{36}\/_history\/1$/);
    const outcome = await postAuxiliary('Condition', condition(), w.alice.token, w.aliceSource.id, { headers: { prefer: 'return=OperationOutcome' } });
    expect(outcome.json.resourceType).toBe('OperationOutcome');
    expect(outcome.json.issue[0].severity).toBe('information');
  });

  it('lets a practitioner (member) write through a patient\'s source, but not a viewer or an outsider', async () => {
    const byDoctor = await postAuxiliary('Condition', condition(), w.doctor.token, w.aliceSource.id);
    expect(byDoctor.status).toBe(201);
    const viewer = await makePractitioner({ organizations: [w.org], role: 'viewer' });
    expect((await postAuxiliary('Condition', condition(), viewer.token, w.aliceSource.id)).status).toBe(403);
    const outsider = await makePractitioner({ organizations: [await makeOrganization()] });
    expect((await postAuxiliary('Condition', condition(), outsider.token, w.aliceSource.id)).status).toBe(403);
  });
});

describe('read', () => {
  it('is a 404 for another patient, an unknown id, another type, and an id that cannot exist', async () => {
    const mine = await postAuxiliary('Condition', condition(), w.alice.token, w.aliceSource.id);
    expect((await call('GET', `/FHIR/R5/Condition/${mine.json.id}`, { token: w.bob.token })).status).toBe(404);
    expect((await call('GET', `/FHIR/R5/Condition/${mine.json.id}`, { token: w.doctor.token })).status).toBe(200);
    const outsider = await makePractitioner({ organizations: [await makeOrganization()] });
    expect((await call('GET', `/FHIR/R5/Condition/${mine.json.id}`, { token: outsider.token })).status).toBe(404);
    expect((await call('GET', `/FHIR/R5/Condition/2b1c8e3a-0000-4000-8000-000000000000`, { token: w.alice.token })).status).toBe(404);
    expect((await call('GET', `/FHIR/R5/AllergyIntolerance/${mine.json.id}`, { token: w.alice.token })).status).toBe(404);
    const bad = await call('GET', `/FHIR/R5/Condition/${'x'.repeat(65)}`, { token: w.alice.token });
    expect(bad.status).toBe(404);
    expect(bad.json.resourceType).toBe('OperationOutcome');
    expect((await call('GET', `/FHIR/R5/Condition/${mine.json.id}`)).status).toBe(401);
  });

  it('answers If-None-Match with 304, and vread of the current version (404 for others)', async () => {
    const mine = await postAuxiliary('Condition', condition(), w.alice.token, w.aliceSource.id);
    const url = `/FHIR/R5/Condition/${mine.json.id}`;
    expect((await call('GET', url, { token: w.alice.token, headers: { 'if-none-match': 'W/"1"' } })).status).toBe(304);
    expect((await call('GET', url, { token: w.alice.token, headers: { 'if-none-match': 'W/"7"' } })).status).toBe(200);
    expect((await call('GET', `${url}/_history/1`, { token: w.alice.token })).json.id).toBe(mine.json.id);
    expect((await call('GET', `${url}/_history/2`, { token: w.alice.token })).status).toBe(404);
  });
});

describe('update, patch, delete', () => {
  it('PUT refuses a body without the URL id, an invalid body, and another source; a stranger gets 404, a viewer 403', async () => {
    const id = (await postAuxiliary('Condition', condition(), w.alice.token, w.aliceSource.id)).json.id;
    const before = await auxiliaryItems();
    const url = `/FHIR/R5/Condition/${id}`;
    expect((await call('PUT', url, { token: w.alice.token, body: condition() })).status).toBe(400);
    expect((await call('PUT', url, { token: w.alice.token, body: condition({ id: 'other' }) })).status).toBe(400);
    const invalid = await call('PUT', url, { token: w.alice.token, body: condition({ id, recordedDate: 'yesterday' }) });
    expect(invalid.status).toBe(400);
    expect(invalid.json.issue[0].expression).toEqual(['Condition.recordedDate']);
    expect((await call('PUT', url, { token: w.alice.token, body: condition({ id }), headers: { [SOURCE_HEADER]: String(w.bobSource.id) } })).status).toBe(400);
    expect((await call('PUT', url, { token: w.bob.token, body: condition({ id }) })).status).toBe(404);
    const viewer = await makePractitioner({ organizations: [w.org], role: 'viewer' });
    expect((await call('PUT', url, { token: viewer.token, body: condition({ id }) })).status).toBe(403);
    expect(await auxiliaryItems()).toEqual(before);
  });

  it('PATCH applies a JSON merge patch and validates the result', async () => {
    const created = await postAuxiliary('Condition', condition({ note: [{ text: 'first' }] }), w.alice.token, w.aliceSource.id);
    const url = `/FHIR/R5/Condition/${created.json.id}`;
    const patched = await call('PATCH', url, {
      token: w.alice.token,
      body: JSON.stringify({ note: null, severity: { text: 'moderate' } }),
      headers: { 'content-type': 'application/merge-patch+json' },
    });
    expect(patched.status).toBe(200);
    expect(patched.json.note).toBeUndefined();
    expect(patched.json.severity).toEqual({ text: 'moderate' });
    expect(patched.json.code).toEqual(created.json.code);
    expect(patched.json.meta.versionId).toBe('2');

    const before = await auxiliaryItems();
    const patch = (body: unknown, contentType = 'application/merge-patch+json') =>
      call('PATCH', url, { token: w.alice.token, body: JSON.stringify(body), headers: { 'content-type': contentType } });
    const invalid = await patch({ clinicalStatus: null });
    expect(invalid.status).toBe(400);
    expect(invalid.json.issue.some((i: any) => i.expression?.includes('Condition.clinicalStatus'))).toBe(true);
    expect((await patch({ id: 'renamed' })).status).toBe(400);
    expect((await patch({ resourceType: 'Observation' })).status).toBe(400);
    // A JSON Patch document sent as a merge patch is not a merge patch.
    expect((await patch([{ op: 'remove', path: '/note' }])).status).toBe(400);
    expect((await patch({ constructor: { prototype: { polluted: true } } })).status).toBe(400);
    expect(await auxiliaryItems()).toEqual(before);
  });

  it('PATCH applies a JSON Patch (RFC 6902) with the same rules: id, meta and resourceType stay, the result is valid R5', async () => {
    const created = await postAuxiliary('Condition', condition({ note: [{ text: 'first' }] }), w.alice.token, w.aliceSource.id);
    const url = `/FHIR/R5/Condition/${created.json.id}`;
    const patch = (ops: unknown) => call('PATCH', url, { token: w.alice.token, body: JSON.stringify(ops), headers: { 'content-type': 'application/json-patch+json' } });
    const patched = await patch([
      { op: 'test', path: '/note/0/text', value: 'first' },
      { op: 'add', path: '/note/-', value: { text: 'second' } },
      { op: 'replace', path: '/code/text', value: 'Type 2 diabetes, controlled' },
      { op: 'copy', from: '/id', path: '/identifier' },
      { op: 'remove', path: '/identifier' },
    ]);
    expect(patched.status).toBe(200);
    expect(patched.json.note).toEqual([{ text: 'first' }, { text: 'second' }]);
    expect(patched.json.code.text).toBe('Type 2 diabetes, controlled');
    expect(patched.json.id).toBe(created.json.id);
    expect(patched.json.meta.versionId).toBe('2');

    const before = await auxiliaryItems();
    const failedTest = await patch([{ op: 'test', path: '/note/0/text', value: 'not so' }, { op: 'remove', path: '/note' }]);
    expect(failedTest.status).toBe(422);
    expect(failedTest.json.resourceType).toBe('OperationOutcome');
    const refusals: unknown[] = [
      { op: 'remove', path: '/note' },
      [{ op: 'replace', path: '/id', value: 'renamed' }],
      [{ op: 'remove', path: '/meta' }],
      [{ op: 'replace', path: '/meta/source', value: 'http://elsewhere/' }],
      [{ op: 'replace', path: '/resourceType', value: 'Observation' }],
      [{ op: 'replace', path: '', value: {} }],
      [{ op: 'move', from: '/meta', path: '/extension' }],
      [{ op: 'remove', path: '/clinicalStatus' }],
      [{ op: 'remove', path: '/nothing/here' }],
      [{ op: '_get', path: '/note' }],
      [{ op: 'add', path: '/__proto__/polluted', value: true }],
      [{ op: 'add', path: '/note/0/constructor/prototype/polluted', value: true }],
      [{ op: 'add' }],
      ['remove'],
    ];
    for (const body of refusals) {
      const res = await patch(body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.json.resourceType).toBe('OperationOutcome');
    }
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(await auxiliaryItems()).toEqual(before);
  });

  it('honours If-Match on PUT, PATCH and DELETE (412 on a stale version)', async () => {
    const created = await postAuxiliary('Condition', condition(), w.alice.token, w.aliceSource.id);
    const id = created.json.id;
    const url = `/FHIR/R5/Condition/${id}`;
    const stale = { 'if-match': 'W/"9"' };
    expect((await call('PUT', url, { token: w.alice.token, body: condition({ id }), headers: stale })).status).toBe(412);
    expect((await call('PATCH', url, { token: w.alice.token, body: { severity: { text: 'x' } }, headers: stale })).status).toBe(412);
    expect((await call('DELETE', url, { token: w.alice.token, headers: stale })).status).toBe(412);
    const ok = await call('PUT', url, { token: w.alice.token, body: condition({ id }), headers: { 'if-match': 'W/"1"' } });
    expect(ok.status).toBe(200);
    expect((await call('DELETE', url, { token: w.alice.token, headers: { 'if-match': 'W/"1"' } })).status).toBe(412);
    expect((await call('DELETE', url, { token: w.alice.token, headers: { 'if-match': 'W/"2"' } })).status).toBe(204);
  });
});

describe('bad input stores nothing', () => {
  const cases: Array<[string, () => Promise<{ status: number; json: any }>, number, RegExp | string | undefined]> = [
    ['no source named', () => postAuxiliary('Condition', condition(), w.alice.token), 400, /No FHIR Source given/],
    ['meta.source that is not a FHIR Source URI', () => postAuxiliary('Condition', condition({ meta: { source: 'https://ehr.example.test/fhir' } }), w.alice.token), 400, /No FHIR Source given/],
    ['an unknown source', () => postAuxiliary('Condition', condition(), w.alice.token, 987654), 400, /Unknown FHIR Source 987654/],
    ['a source that is not a number', () => postAuxiliary('Condition', condition(), w.alice.token, 'abc'), 400, /Unknown FHIR Source abc/],
    ["another patient's source", () => postAuxiliary('Condition', condition(), w.alice.token, w.bobSource.id), 403, /may not write through FHIR Source/],
    ['a type outside the accepted list', () => postAuxiliary('Basic', { resourceType: 'Basic', code: { text: 'x' } }, w.alice.token, w.aliceSource.id), 404, /Unsupported FHIR resource type: Basic/],
    ['a name that is no resource type', () => postAuxiliary('Spaceship', { resourceType: 'Spaceship' }, w.alice.token, w.aliceSource.id), 404, /Unsupported FHIR resource type/],
    ['resourceType not matching the URL', () => postAuxiliary('Condition', condition({ resourceType: 'Procedure' }), w.alice.token, w.aliceSource.id), 400, /does not match the type of the URL/],
    ['a missing resourceType', () => postAuxiliary('Condition', { ...condition(), resourceType: undefined }, w.alice.token, w.aliceSource.id), 400, /resourceType is missing/],
    ['a body that is not an object', () => postAuxiliary('Condition', [condition()], w.alice.token, w.aliceSource.id), 400, /must be a FHIR Condition resource/],
    ['a 65-character id', () => postAuxiliary('Condition', condition({ id: 'a'.repeat(65) }), w.alice.token, w.aliceSource.id), 400, 'Condition.id'],
    ['an unknown element', () => postAuxiliary('Condition', condition({ favouriteColour: 'blue' }), w.alice.token, w.aliceSource.id), 400, 'Condition.favouriteColour'],
    ['a wrong primitive format', () => postAuxiliary('Condition', condition({ recordedDate: '2019-13-45' }), w.alice.token, w.aliceSource.id), 400, 'Condition.recordedDate'],
    ['a wrong datatype', () => postAuxiliary('Condition', condition({ code: 'diabetes' }), w.alice.token, w.aliceSource.id), 400, 'Condition.code'],
    ['a missing required element', () => postAuxiliary('Condition', { ...condition(), subject: undefined }, w.alice.token, w.aliceSource.id), 400, 'Condition.subject'],
    [
      'an invalid required code',
      () => postAuxiliary('Condition', condition({ clinicalStatus: { coding: [{ system: 'http://terminology.hl7.org/CodeSystem/condition-clinical', code: 'dormant' }] } }), w.alice.token, w.aliceSource.id),
      400,
      'Condition.clinicalStatus.coding',
    ],
    ['a body over the size limit', () => postAuxiliary('Condition', condition({ note: [{ text: 'x'.repeat(5 * 1024 * 1024 + 1) }] }), w.alice.token, w.aliceSource.id), 413, /larger than the limit/],
    ['malformed JSON', () => call('POST', '/FHIR/R5/Condition', { token: w.alice.token, body: '{"resourceType": "Condition",', headers: { 'content-type': 'application/fhir+json', [SOURCE_HEADER]: String(w.aliceSource.id) } }), 400, undefined],
    ['no token', () => call('POST', '/FHIR/R5/Condition', { body: condition(), headers: { [SOURCE_HEADER]: String(w.aliceSource.id) } }), 401, undefined],
  ];

  it.each(cases)('%s', async (_name, send, status, expected) => {
    const [items, objects] = [await auxiliaryItems(), await bucketKeys()];
    const res = await send();
    expect(res.status).toBe(status);
    expect(res.json?.resourceType).toBe('OperationOutcome');
    if (typeof expected === 'string') expect(res.json.issue.flatMap((i: any) => i.expression ?? [])).toContain(expected);
    else if (expected) expect(res.json.issue.map((i: any) => i.diagnostics).join(' ')).toMatch(expected);
    expect(await auxiliaryItems()).toEqual(items);
    expect(await bucketKeys()).toEqual(objects);
  });
});
