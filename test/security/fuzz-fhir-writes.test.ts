/**
 * Fuzzing every FHIR write: the batch upload `POST /FHIR/R5/`, the auxiliary create, update, merge
 * patch and JSON Patch (of Conditions, and of an Observation the native store hands over), with bodies of any shape (hostile keys, deep nesting, huge strings, text that
 * is not JSON) and with mutations of valid resources (readings, their Base64 payloads, Conditions).
 * Every answer is a well-formed 2xx or a 4xx OperationOutcome, never a 5xx; and after each property
 * the store holds exactly the resources the answers said were created, with no orphan item.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { FhirSource } from '../../shared/directory/model';
import { SOURCE_HEADER } from '../../shared/fhir/constants';
import { condition, postAuxiliary } from '../support/auxiliary';
import { makeDataSource, makeFhirSource } from '../support/directory';
import { CaseCount, expectWellFormed, fuzz, fuzzTimeout } from '../support/fuzz';
import { bodyText, hostileKey, hostileText, jsonObject, jsonValue, mutationsOf } from '../support/fuzz-inputs';
import { call, type TestResponse } from '../support/invoke';
import { expectStoreMatches, Ledger } from '../support/ledger';
import { batchOf, observation, observationWorld, type ObservationWorld } from '../support/observations';

let world: ObservationWorld;
let source: FhirSource;
let ledger: Ledger;
/** Stored resources the updates and patches aim at: Conditions, and a non-mobile-health Observation (which the native store hands to the auxiliary one). */
let targets: Array<{ type: string; id: string; valid: () => Record<string, unknown> }>;
const cases = new CaseCount('FHIR writes');

beforeAll(async () => {
  world = await observationWorld();
  source = await makeFhirSource({ patient: world.patient, dataSource: await makeDataSource({ type: 'patient_app' }) });
  targets = [];
  for (let i = 0; i < 2; i += 1) targets.push({ type: 'Condition', id: (await postAuxiliary('Condition', condition(), world.patient.token, source.id)).json.id, valid: () => condition() });
  targets.push({ type: 'Observation', id: (await postAuxiliary('Observation', labResult(), world.patient.token, source.id)).json.id, valid: labResult });
  ledger = await Ledger.ofStore();
});
afterAll(() => console.log(cases.line()));

const QUICK = 25;
vi.setConfig({ testTimeout: fuzzTimeout(QUICK * 2) });
const fhirJson = (extra: Record<string, string> = {}) => ({ 'content-type': 'application/fhir+json', [SOURCE_HEADER]: String(source.id), ...extra });

/** Sends one case and checks the answer; returns it for what the property checks beyond. */
async function sent(endpoint: string, method: string, url: string, body: string, headers = fhirJson()): Promise<TestResponse> {
  cases.tried(endpoint);
  const res = await call(method, url, { token: world.patient.token, body, headers });
  expectWellFormed(res, 'fhir', `${method} ${url} ${body.slice(0, 200)}`);
  return res;
}

function expectBatchResponse(res: TestResponse, entries: number | undefined): void {
  if (res.status !== 200) return;
  expect(res.json.resourceType).toBe('Bundle');
  expect(res.json.type).toBe('batch-response');
  if (entries !== undefined) expect(res.json.entry ?? []).toHaveLength(entries);
  for (const entry of res.json.entry ?? []) {
    expect(entry.response.status).toMatch(/^[1-5]\d\d /);
    expect(Number(entry.response.status.slice(0, 3)), JSON.stringify(entry.response)).toBeLessThan(500);
    if (!/^2/.test(entry.response.status)) expect(entry.response.outcome.resourceType).toBe('OperationOutcome');
  }
  ledger.acknowledgeBundle(res);
}

let serial = 0;
const validBatch = () =>
  batchOf([
    observation(world),
    observation(world, { code: 'omh:blood-pressure:4.0', identifiers: [{ system: 'urn:fuzz', value: `r-${serial++}` }] }),
    condition({ id: `b-${serial++}` }),
  ]);
/** A laboratory Observation (not mobile-health coded): the auxiliary store keeps it. */
const labResult = () => ({ resourceType: 'Observation', status: 'final', code: { text: 'HbA1c' }, subject: { reference: 'Patient/x' }, effectiveDateTime: '2024-05-01', valueQuantity: { value: 6.1, unit: '%' } });

const TYPES = ['Condition', 'Observation', 'QuestionnaireResponse', 'Patient', 'Bundle', 'Nonsense', '__proto__', 'constructor', 'condition'];

describe('the batch upload', () => {
  it('answers any body well, storing only what it says it created', async () => {
    await fuzz(QUICK, bodyText, async (body) => {
      const res = await sent('batch: any body', 'POST', '/FHIR/R5/', body);
      expectBatchResponse(res, undefined);
    });
    await expectStoreMatches(ledger);
  });

  it('answers mutated batches of readings entry by entry', async () => {
    await fuzz(QUICK * 2, mutationsOf(validBatch), async (batch) => {
      const res = await sent('batch: mutated', 'POST', '/FHIR/R5/', JSON.stringify(batch));
      const entries = (batch as { entry?: unknown }).entry;
      expectBatchResponse(res, Array.isArray(entries) && (batch as { resourceType?: unknown }).resourceType === 'Bundle' ? entries.length : undefined);
    });
    await expectStoreMatches(ledger);
  });
});

describe('the auxiliary create', () => {
  it('answers any body under any type name well', async () => {
    await fuzz(QUICK, fc.tuple(fc.constantFrom(...TYPES), bodyText), async ([type, body]) => {
      const res = await sent('create: any body', 'POST', `/FHIR/R5/${encodeURIComponent(type)}`, body);
      ledger.acknowledgeResponse(res);
    });
    await expectStoreMatches(ledger);
  });

  it('answers mutated Conditions and readings well', async () => {
    const valid = fc.oneof(
      mutationsOf(() => condition()).map((body) => ['Condition', body] as const),
      mutationsOf(() => observation(world)).map((body) => ['Observation', body] as const),
    );
    await fuzz(QUICK * 2, valid, async ([type, body]) => {
      const res = await sent('create: mutated', 'POST', `/FHIR/R5/${type}`, JSON.stringify(body));
      ledger.acknowledgeResponse(res);
    });
    await expectStoreMatches(ledger);
  });
});

describe('updates and patches of a stored resource', () => {
  const target = fc.nat().map((n) => targets[n % targets.length]!);
  const urlOf = (t: { type: string; id: string }) => `/FHIR/R5/${t.type}/${t.id}`;

  it('PUT answers mutated resources and any body well', async () => {
    const body = fc.oneof(
      target.chain((t) => mutationsOf(t.valid).map((resource) => [t, JSON.stringify(resource)] as const)),
      target.chain((t) => mutationsOf(t.valid).map((resource) => [t, JSON.stringify({ ...(resource as object), id: t.id })] as const)),
      fc.tuple(target, bodyText),
    );
    await fuzz(QUICK, body, async ([t, text]) => {
      await sent('update', 'PUT', urlOf(t), text);
    });
    await expectStoreMatches(ledger);
  });

  it('PATCH answers any merge patch well', async () => {
    const patch = fc.oneof(jsonObject.map((o) => JSON.stringify(o)), bodyText);
    await fuzz(QUICK, fc.tuple(target, patch), async ([t, text]) => {
      await sent('merge patch', 'PATCH', urlOf(t), text, fhirJson({ 'content-type': 'application/merge-patch+json' }));
    });
    await expectStoreMatches(ledger);
  });

  it('PATCH answers any JSON Patch well', async () => {
    const pointer = fc.oneof(
      fc.constantFrom('', '/', '/id', '/meta', '/meta/versionId', '/resourceType', '/code', '/code/coding/0/code', '/note', '/note/-', '/note/0', '/clinicalStatus/coding/99', '/__proto__/x', '/constructor/prototype', '/~1', '/~0', '/a~2b'),
      fc.array(fc.oneof(hostileKey, fc.nat({ max: 3 }).map(String)), { maxLength: 4 }).map((parts) => `/${parts.join('/')}`),
      hostileText,
    );
    const operation = fc.record(
      { op: fc.oneof(fc.constantFrom('add', 'remove', 'replace', 'move', 'copy', 'test', '_get'), hostileText), path: pointer, from: pointer, value: jsonValue },
      { requiredKeys: ['op', 'path'] },
    );
    const patch = fc.oneof({ weight: 4, arbitrary: fc.array(operation, { maxLength: 4 }).map((ops) => JSON.stringify(ops)) }, { weight: 1, arbitrary: bodyText });
    await fuzz(QUICK * 2, fc.tuple(target, patch), async ([t, text]) => {
      await sent('JSON Patch', 'PATCH', urlOf(t), text, fhirJson({ 'content-type': 'application/json-patch+json' }));
    });
    await expectStoreMatches(ledger);
  });
});
