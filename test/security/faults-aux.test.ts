/**
 * Auxiliary writes under faults injected at the SDK client layer: S3 failing on a large body (on
 * its own create, inside a batch upload, through the R4 import, on an update), the table commit
 * failing after the body went to S3, throttled transactions in a batch that is then sent again,
 * writers racing on one resource, and an invocation stopped half-way through a batch of large
 * bodies whose batch is sent again. After each: every entry was stored once or reported failed,
 * and the table and the bucket hold exactly the acknowledged resources, each with its index item,
 * its upstream claim and (when large) its one S3 object, and nothing else.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { INLINE_BODY_LIMIT } from '../../shared/auxiliary/store/dynamo-items';
import { ABANDONED_AFTER_MS, sweepPendingBodies } from '../../shared/auxiliary/pending-bodies';
import type { FhirSource } from '../../shared/directory/model';
import { SOURCE_HEADER } from '../../shared/fhir/constants';
import { condition, postAuxiliary } from '../support/auxiliary';
import { auditAuxiliary } from '../support/audit';
import { makeDataSource, makeFhirSource } from '../support/directory';
import { FaultSuite } from '../support/fault-suite';
import { asInvocation, cancelled, halfUnprocessed, injectS3Fault, s3Unavailable, stopInvocation, throttling } from '../support/faults';
import { call, type TestResponse } from '../support/invoke';
import { Ledger } from '../support/ledger';
import { observation, observationWorld, statusesOf, upload, type ObservationWorld } from '../support/observations';

let world: ObservationWorld;
let source: FhirSource;
let ledger: Ledger;
const suite = new FaultSuite('auxiliary');

beforeAll(async () => {
  world = await observationWorld();
  source = await makeFhirSource({ patient: world.patient, dataSource: await makeDataSource({ type: 'patient_app' }) });
  ledger = await Ledger.ofStore();
});
afterEach(() => suite.settle(ledger));
afterAll(() => console.log(suite.summary()));

let serial = 0;
/** A Condition with an upstream id of its own; `large` ones go to S3. */
const conditionOf = (large = false) => condition({ id: `fault-${serial++}`, ...(large ? { note: [{ text: 'n'.repeat(INLINE_BODY_LIMIT + 1000) }] } : {}) });

const headers = () => ({ [SOURCE_HEADER]: String(source.id) });

async function created(type: string, body: unknown): Promise<TestResponse> {
  suite.entries += 1;
  const res = await postAuxiliary(type, body, world.patient.token, source.id);
  ledger.acknowledgeResponse(res);
  return res;
}

async function batch(resources: readonly unknown[]): Promise<TestResponse> {
  suite.entries += resources.length;
  const res = await upload(world.patient.token, resources, headers());
  expect(res.status, res.text.slice(0, 300)).toBe(200);
  ledger.acknowledgeBundle(res);
  return res;
}

/** Fails every S3 command of the kind named until the test ends; returns how often it fired. */
async function s3Fails(commandName: string): Promise<() => number> {
  let fired = 0;
  suite.removeAfterTest(
    await injectS3Fault(async (command, send) => {
      if (command.name !== commandName) return send();
      fired += 1;
      suite.faults += 1;
      throw s3Unavailable();
    }),
  );
  return () => fired;
}

const expectUnavailable = (res: TestResponse) => {
  expect(res.status, res.text.slice(0, 300)).toBe(503);
  expect(res.json.resourceType).toBe('OperationOutcome');
  expect(res.json.issue[0]).toMatchObject({ severity: 'error', code: 'transient' });
};

describe('S3 failing on a large body', () => {
  it('a create answers 503 and stores nothing', async () => {
    const fired = await s3Fails('PutObjectCommand');
    expectUnavailable(await created('Condition', conditionOf(true)));
    expect(fired()).toBeGreaterThan(0);
  });

  it('inside a batch upload: that entry answers 503, the readings and the small resources are stored', async () => {
    const fired = await s3Fails('PutObjectCommand');
    const res = await batch([observation(world), conditionOf(true), observation(world), conditionOf()]);
    expect(statusesOf(res)).toEqual(['201 Created', '503 Service Unavailable', '201 Created', '201 Created']);
    expect(fired()).toBeGreaterThan(0);
  });

  it('inside an R4 import: that entry answers 503, the others are stored', async () => {
    const fired = await s3Fails('PutObjectCommand');
    // The sample Condition is valid R4 as well.
    const r4 = (large: boolean) => conditionOf(large);
    suite.entries += 2;
    const res = await call('POST', '/fhir-import/R4', { token: world.patient.token, body: { resourceType: 'Bundle', type: 'batch', entry: [{ resource: r4(true) }, { resource: r4(false) }] }, headers: headers() });
    expect(res.status, res.text.slice(0, 300)).toBe(200);
    ledger.acknowledgeBundle(res);
    expect(statusesOf(res)).toEqual(['503 Service Unavailable', '201 Created']);
    expect(fired()).toBeGreaterThan(0);
  });

  it('an update to a large body answers 503 and leaves the resource as it was', async () => {
    const small = await created('Condition', conditionOf());
    expect(small.status).toBe(201);
    const fired = await s3Fails('PutObjectCommand');
    const res = await call('PUT', `/FHIR/R5/Condition/${small.json.id}`, { token: world.patient.token, body: { ...conditionOf(true), id: small.json.id } });
    expectUnavailable(res);
    const read = await call('GET', `/FHIR/R5/Condition/${small.json.id}`, { token: world.patient.token });
    expect(read.json).toEqual(small.json);
    expect(fired()).toBeGreaterThan(0);
  });

  it("deleting the old version's object after a committed update: the update stands, and the next large write deletes the object", async () => {
    const large = await created('Condition', conditionOf(true));
    expect(large.status).toBe(201);
    const fired = await s3Fails('DeleteObjectCommand');
    const res = await call('PUT', `/FHIR/R5/Condition/${large.json.id}`, { token: world.patient.token, body: { ...conditionOf(), id: large.json.id } });
    expect(res.status, res.text.slice(0, 300)).toBe(200);
    expect(fired()).toBeGreaterThan(0);
    expect((await auditAuxiliary()).pendingBodies).toEqual([expect.stringMatching(new RegExp(`^discarded aux/.*/${large.json.id}/1\\.`))]);
    suite.clearFaults();
    expect((await created('Condition', conditionOf(true))).status).toBe(201);
  });
});

describe('the table failing after the body went to S3', () => {
  it('a create answers 503 and its object is deleted again', async () => {
    const fired = suite.fault((c) => c.name === 'TransactWriteItemsCommand', async () => {
      throw throttling();
    });
    expectUnavailable(await created('Condition', conditionOf(true)));
    expect(fired()).toBeGreaterThan(0);
  });

  it('an update answers 503, keeps the current object and deletes the new one', async () => {
    const large = await created('Condition', conditionOf(true));
    const fired = suite.fault((c) => c.name === 'TransactWriteItemsCommand', async () => {
      throw throttling();
    });
    const res = await call('PUT', `/FHIR/R5/Condition/${large.json.id}`, { token: world.patient.token, body: { ...conditionOf(true), id: large.json.id } });
    expectUnavailable(res);
    expect(fired()).toBeGreaterThan(0);
  });

  it('the answer of a create lost after its commit landed: it answers 201, its object kept', async () => {
    const fired = suite.fault((c) => c.name === 'TransactWriteItemsCommand', async (_command, send) => {
      await send();
      throw Object.assign(new Error('socket hang up'), { name: 'TimeoutError', $retryable: {} });
    });
    const res = await created('Condition', conditionOf(true));
    expect(res.status, res.text.slice(0, 300)).toBe(201);
    expect(fired()).toBe(1);
  });

  it('a commit that timed out before it reached the store: 503, its object listed until the sweep', async () => {
    const fired = suite.fault((c) => c.name === 'TransactWriteItemsCommand', async () => {
      throw Object.assign(new Error('socket hang up'), { name: 'TimeoutError', $retryable: {} });
    });
    expectUnavailable(await created('Condition', conditionOf(true)));
    expect(fired()).toBe(1);
    expect((await auditAuxiliary()).pendingBodies).toEqual([expect.stringMatching(/^writing aux\//)]);
    await sweepOnceAbandoned();
  });

  it('deleting the FHIR Source removes what such a write left listed, with its object', async () => {
    const other = await makeFhirSource({ patient: world.patient, dataSource: await makeDataSource({ type: 'patient_app' }) });
    suite.fault((c) => c.name === 'TransactWriteItemsCommand', async () => {
      throw Object.assign(new Error('socket hang up'), { name: 'TimeoutError', $retryable: {} });
    });
    suite.entries += 1;
    expectUnavailable(await postAuxiliary('Condition', conditionOf(true), world.patient.token, other.id));
    expect((await auditAuxiliary()).pendingBodies).toHaveLength(1);
    suite.clearFaults();
    expect((await call('DELETE', `/api/v1/fhir_sources/${other.id}`, { token: world.patient.token })).status).toBe(204);
  });

  it('every other transaction throttled in a batch: each entry stored or 503; sent again, each stored once', async () => {
    const fired = suite.fault((c, nth) => c.name === 'TransactWriteItemsCommand' && nth % 2 === 1, async () => {
      throw throttling();
    });
    const resources = Array.from({ length: 16 }, (_, i) => conditionOf(i % 4 === 0));
    const first = await batch(resources);
    expect(statusesOf(first).every((s) => s === '201 Created' || s === '503 Service Unavailable')).toBe(true);
    expect(fired()).toBeGreaterThan(0);
    await suite.settle(ledger);
    const again = await batch(resources);
    statusesOf(again).forEach((s, i) => expect(s, `entry ${i}`).toBe(statusesOf(first)[i] === '201 Created' ? '200 OK' : '201 Created'));
  });
});

describe('batch calls and conditions', () => {
  it('every other batch call leaving half its keys unprocessed: a batch of creates and its read-back by _id lose nothing', async () => {
    const fired = suite.fault((c, nth) => (c.name === 'BatchGetItemCommand' || c.name === 'BatchWriteItemCommand') && nth % 2 === 1, halfUnprocessed);
    const res = await batch(Array.from({ length: 12 }, (_, i) => conditionOf(i % 3 === 0)));
    expect(new Set(statusesOf(res))).toEqual(new Set(['201 Created']));
    const ids = res.json.entry.map((e: { resource: { id: string } }) => e.resource.id);
    const found = await call('GET', `/FHIR/R5/Condition?_id=${ids.join(',')}&_count=50`, { token: world.patient.token });
    expect(found.json.entry.map((e: { resource: { id: string } }) => e.resource.id).sort()).toEqual([...ids].sort());
    expect(fired()).toBeGreaterThan(0);
  });

  it("an update whose commit loses its version check to another writer is read again and applied once", async () => {
    const first = await created('Condition', conditionOf(true));
    const fired = suite.fault(
      (c, nth) => c.name === 'TransactWriteItemsCommand' && nth === 1,
      async (command) => {
        throw cancelled(command.input.TransactItems.length, (i) => (i === 0 ? 'ConditionalCheckFailed' : 'None'));
      },
    );
    const res = await call('PUT', `/FHIR/R5/Condition/${first.json.id}`, { token: world.patient.token, body: { ...conditionOf(true), id: first.json.id } });
    expect(res.status, res.text.slice(0, 300)).toBe(200);
    expect(res.headers['etag']).toBe('W/"2"');
    expect(fired()).toBe(1);
  });
});

describe('writers racing on one resource', () => {
  it('six creates of one upstream id with a large body: one resource, one object', async () => {
    const body = conditionOf(true);
    const responses = await Promise.all(Array.from({ length: 6 }, () => created('Condition', body)));
    expect(responses.map((r) => r.status).sort()).toEqual([200, 200, 200, 200, 200, 201]);
    expect(new Set(responses.map((r) => r.json.id)).size).toBe(1);
  });

  it('six updates without If-Match all apply; with If-Match one does and the others answer 412', async () => {
    const first = await created('Condition', conditionOf(true));
    const id = first.json.id;
    const put = (ifMatch?: string) =>
      call('PUT', `/FHIR/R5/Condition/${id}`, { token: world.patient.token, body: { ...conditionOf(true), id }, headers: ifMatch ? { 'if-match': ifMatch } : {} });
    const free = await Promise.all(Array.from({ length: 6 }, () => put()));
    expect(free.map((r) => r.status)).toEqual([200, 200, 200, 200, 200, 200]);
    expect((await call('GET', `/FHIR/R5/Condition/${id}`, { token: world.patient.token })).headers['etag']).toBe('W/"7"');
    const guarded = await Promise.all(Array.from({ length: 6 }, () => put('W/"7"')));
    expect(guarded.map((r) => r.status).sort()).toEqual([200, 412, 412, 412, 412, 412]);
  });
});

describe('an invocation stopped half-way through a batch of large bodies, and the batch sent again', () => {
  it.each([
    ['its second commit never sent', 'TransactWriteItemsCommand', false],
    ['its second commit sent, the answer lost', 'TransactWriteItemsCommand', true],
    ['its third S3 put sent, the answer lost', 'PutObjectCommand', true],
  ])('%s: after the re-send, each resource stored once with one object', async (_what, commandName, sending) => {
    const resources = Array.from({ length: 8 }, (_, i) => conditionOf(i % 2 === 0));
    const stopper = await stopInvocation('first', commandName, commandName === 'PutObjectCommand' ? 2 : 1, { sending });
    suite.removeAfterTest(stopper.remove);
    suite.entries += resources.length;
    // Its answer is never read: the client saw the invocation time out.
    void asInvocation('first', () => upload(world.patient.token, resources, headers())).catch(() => undefined);
    await stopper.stopped;
    suite.faults += 1;
    const again = await batch(resources);
    expect(statusesOf(again).every((s) => s === '201 Created' || s === '200 OK')).toBe(true);
    await sweepOnceAbandoned();
  });
});

describe('an R4 import stopped half-way, and sent again', () => {
  it('its second commit sent, the answer lost: after the re-send, each resource stored once', async () => {
    const bundle = { resourceType: 'Bundle', type: 'batch', entry: Array.from({ length: 8 }, (_, i) => ({ resource: conditionOf(i % 2 === 0) })) };
    const send = () => call('POST', '/fhir-import/R4', { token: world.patient.token, body: bundle, headers: headers() });
    const stopper = await stopInvocation('import', 'TransactWriteItemsCommand', 1, { sending: true });
    suite.removeAfterTest(stopper.remove);
    suite.entries += bundle.entry.length;
    // Its answer is never read: the client saw the invocation time out.
    void asInvocation('import', send).catch(() => undefined);
    await stopper.stopped;
    suite.faults += 1;
    suite.entries += bundle.entry.length;
    const again = await send();
    expect(again.status).toBe(200);
    ledger.acknowledgeBundle(again);
    expect(statusesOf(again).every((s) => s === '201 Created' || s === '200 OK')).toBe(true);
    await sweepOnceAbandoned();
  });
});

/** The sweep as the next large write of the patient runs it, once the longest an invocation can run has gone by. */
async function sweepOnceAbandoned(): Promise<void> {
  expect((await auditAuxiliary()).orphanBodies, 'every object is a row\'s or listed').toEqual([]);
  await sweepPendingBodies(world.patient.id, undefined, Date.now() + ABANDONED_AFTER_MS + 60_000);
}
