/**
 * Fuzzing the R4 import, `POST /fhir-import/R4` (a Bundle) and `POST /fhir-import/R4/<Type>`:
 * bodies of any shape, any type name in the path, and mutations of the standard's own R4 examples.
 * Every answer is a 200 batch-response whose entries each carry a status and an OperationOutcome,
 * or a request-level 4xx OperationOutcome, never a 5xx; and the store holds exactly the resources
 * the entries said were created.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { FhirSource } from '../../shared/directory/model';
import { SOURCE_HEADER } from '../../shared/fhir/constants';
import { makeDataSource, makeFhirSource } from '../support/directory';
import { CaseCount, expectWellFormed, fuzz, fuzzTimeout } from '../support/fuzz';
import { bodyText, hostileText, mutationsOf } from '../support/fuzz-inputs';
import { call, type TestResponse } from '../support/invoke';
import { expectStoreMatches, Ledger } from '../support/ledger';
import { observationWorld, type ObservationWorld } from '../support/observations';
import { r4ExamplesOf, type CorpusExample } from '../support/r4-corpus';

let world: ObservationWorld;
let source: FhirSource;
let ledger: Ledger;
let examples: CorpusExample[];
const cases = new CaseCount('R4 import');

const TYPES = ['Condition', 'Observation', 'QuestionnaireResponse', 'CarePlan', 'MedicationRequest', 'Procedure', 'Immunization', 'AllergyIntolerance', 'Encounter', 'Goal', 'Coverage', 'Patient', 'Bundle'];

beforeAll(async () => {
  world = await observationWorld();
  source = await makeFhirSource({ patient: world.patient, dataSource: await makeDataSource({ type: 'patient_app' }) });
  examples = r4ExamplesOf(TYPES, 3);
  ledger = await Ledger.ofStore();
});
afterAll(() => console.log(cases.line()));

const QUICK = 25;
vi.setConfig({ testTimeout: fuzzTimeout(QUICK * 2) });

async function imported(endpoint: string, path: string, body: string): Promise<TestResponse> {
  cases.tried(endpoint);
  const res = await call('POST', path, { token: world.patient.token, body, headers: { 'content-type': 'application/fhir+json', [SOURCE_HEADER]: String(source.id) } });
  expectWellFormed(res, 'fhir', `POST ${path} ${body.slice(0, 200)}`);
  if (res.status === 200) {
    expect(res.json.resourceType).toBe('Bundle');
    expect(res.json.type).toBe('batch-response');
    for (const entry of res.json.entry ?? []) {
      expect(Number(String(entry.response.status).slice(0, 3)), JSON.stringify(entry.response).slice(0, 300)).toBeLessThan(500);
      expect(entry.response.outcome.resourceType).toBe('OperationOutcome');
    }
    ledger.acknowledgeBundle(res);
  }
  return res;
}

const example = fc.nat().map((n) => examples[n % examples.length]!.resource);
const mutatedExample = example.chain((resource) => mutationsOf(() => resource));

describe('the R4 import', () => {
  it('answers any body on either path well', async () => {
    const path = fc.oneof(fc.constant('/fhir-import/R4'), fc.oneof(fc.constantFrom(...TYPES, '__proto__', 'constructor'), hostileText).map((t) => `/fhir-import/R4/${encodeURIComponent(t)}`));
    await fuzz(QUICK, fc.tuple(path, bodyText), async ([p, body]) => {
      await imported('any body', p, body);
    });
    await expectStoreMatches(ledger);
  });

  it('answers mutated R4 examples, one by one, well', async () => {
    await fuzz(QUICK * 2, mutatedExample, async (resource) => {
      const type = (resource as { resourceType?: unknown })?.resourceType;
      await imported('one resource, mutated', `/fhir-import/R4/${encodeURIComponent(typeof type === 'string' ? type : 'Condition')}`, JSON.stringify(resource));
    });
    await expectStoreMatches(ledger);
  });

  it('answers Bundles of mutated R4 examples entry by entry', async () => {
    const bundle = fc
      .array(fc.oneof(mutatedExample, example), { minLength: 1, maxLength: 4 })
      .chain((resources) => mutationsOf(() => ({ resourceType: 'Bundle', type: 'batch', entry: resources.map((resource) => ({ resource })) })));
    await fuzz(QUICK * 2, bundle, async (body) => {
      await imported('Bundle, mutated', '/fhir-import/R4', JSON.stringify(body));
    });
    await expectStoreMatches(ledger);
  });
});
