/**
 * What every write answers, whichever path stored the resource (a POST of an auxiliary type, a
 * batch entry, a PUT, the alias base), and the version headers of the read-only projections.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { SOURCE_HEADER } from '../../../shared/fhir/constants';
import { auxiliaryWorld, condition, type AuxiliaryWorld } from '../../support/auxiliary';
import { makeOrganization, makePatient } from '../../support/directory';
import { call } from '../../support/invoke';

let w: AuxiliaryWorld;
beforeAll(async () => {
  w = await auxiliaryWorld();
});

const SITE = 'http://localhost:8000';

function post(path: string, body: unknown, prefer?: string) {
  return call('POST', path, {
    token: w.alice.token,
    body,
    headers: { [SOURCE_HEADER]: String(w.aliceSource.id), ...(prefer ? { prefer } : {}) },
  });
}

const batchOf = (...resources: Array<Record<string, unknown>>) => ({
  resourceType: 'Bundle',
  type: 'batch',
  entry: resources.map((resource) => ({ resource, request: { method: 'POST', url: resource.resourceType } })),
});

/** The outcome `Prefer: return=OperationOutcome` asks for, as a function of the status and the location only. */
const doneOutcome = (status: string, location: string) => ({
  resourceType: 'OperationOutcome',
  issue: [{ severity: 'information', code: 'informational', diagnostics: `${status}: ${location}` }],
});

describe('a write on the /fhir/r5 alias', () => {
  it('answers Locations under the alias: auxiliary create, its update and a batch entry', async () => {
    const created = await post('/fhir/r5/Condition', condition());
    expect(created.status).toBe(201);
    expect(created.headers.location).toBe(`${SITE}/fhir/r5/Condition/${created.json.id}/_history/1`);

    const updated = await call('PUT', `/fhir/r5/Condition/${created.json.id}`, {
      token: w.alice.token,
      body: { ...created.json, recordedDate: '2020-01-01' },
      headers: { [SOURCE_HEADER]: String(w.aliceSource.id) },
    });
    expect(updated.status).toBe(200);
    expect(updated.headers['content-location']).toBe(`${SITE}/fhir/r5/Condition/${created.json.id}/_history/2`);

    const batch = await post('/fhir/r5/', batchOf(condition()));
    expect(batch.status).toBe(200);
    const entry = batch.json.entry[0];
    expect(entry.response.status).toBe('201 Created');
    expect(entry.response.location).toBe(`${SITE}/fhir/r5/Condition/${entry.resource.id}/_history/1`);
  });

  it('keeps /FHIR/R5 for a client on the canonical base', async () => {
    const created = await post('/FHIR/R5/Condition', condition());
    expect(created.headers.location).toBe(`${SITE}/FHIR/R5/Condition/${created.json.id}/_history/1`);
  });
});

describe('an auxiliary create answers alike through a POST and a batch entry', () => {
  it('with Prefer: return=OperationOutcome', async () => {
    const single = await post('/FHIR/R5/Condition', condition(), 'return=OperationOutcome');
    expect(single.status).toBe(201);
    expect(single.json).toEqual(doneOutcome('Created', single.headers.location!));

    const batch = await post('/FHIR/R5/', batchOf(condition()), 'return=OperationOutcome');
    const entry = batch.json.entry[0];
    expect(entry.resource).toBeUndefined();
    expect(entry.response.outcome).toEqual(doneOutcome('Created', entry.response.location));
  });

  it('with Prefer: return=minimal and return=representation', async () => {
    const minimal = await post('/FHIR/R5/Condition', condition(), 'return=minimal');
    expect(minimal.text).toBe('');
    expect(minimal.headers.etag).toBe('W/"1"');
    const minimalEntry = (await post('/FHIR/R5/', batchOf(condition()), 'return=minimal')).json.entry[0];
    expect(minimalEntry.resource).toBeUndefined();
    expect(minimalEntry.response.outcome).toBeUndefined();
    expect(minimalEntry.response.etag).toBe('W/"1"');

    const full = await post('/FHIR/R5/Condition', condition(), 'return=representation');
    expect(full.json.resourceType).toBe('Condition');
    expect(new Date(full.headers['last-modified']!).toUTCString()).toBe(new Date(full.json.meta.lastUpdated).toUTCString());
    const fullEntry = (await post('/FHIR/R5/', batchOf(condition()), 'return=representation')).json.entry[0];
    expect(fullEntry.resource.resourceType).toBe('Condition');
    expect(fullEntry.response.lastModified).toBe(fullEntry.resource.meta.lastUpdated);
  });

  it('takes the Prefer header as parsePrefer reads it (another preference beside it, quoted value)', async () => {
    const res = await post('/FHIR/R5/Condition', condition(), 'respond-async; return="minimal"');
    expect(res.status).toBe(201);
    expect(res.text).toBe('');
  });
});

describe('a read of a projection', () => {
  it('sends ETag and Last-Modified from its meta', async () => {
    const org = await makeOrganization();
    const patient = await makePatient({ organizations: [org], login: true });
    const res = await call('GET', `/FHIR/R5/Patient/${patient.id}`, { token: patient.token! });
    expect(res.status).toBe(200);
    expect(res.headers.etag).toBe(`W/"${res.json.meta.lastUpdated}"`);
    expect(res.headers['last-modified']).toBe(new Date(res.json.meta.lastUpdated).toUTCString());
  });
});
