/**
 * The batch upload of readings under faults injected at the SDK client layer: throttling, batch
 * calls leaving half their items unprocessed on every other call, conditional checks lost to
 * concurrent writers, answers lost after a commit, and an invocation stopped half-way through its
 * transactions whose batch is then sent again. After each: every entry was stored once or
 * reported failed, and the store holds exactly the acknowledged readings, each with its id pointer
 * and identifier claims, and nothing else (no orphan pointer, no orphan claim).
 * (test/integration/observations/faults.test.ts covers the single retries; this suite the
 * combinations and the state they leave.)
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { asInvocation, cancelled, halfUnprocessed, stopInvocation, throttling } from '../support/faults';
import { FaultSuite } from '../support/fault-suite';
import { Ledger } from '../support/ledger';
import { idsOf, matchIds, observation, observationWorld, search, statusesOf, upload, type ObservationWorld } from '../support/observations';
import { call, type TestResponse } from '../support/invoke';

let world: ObservationWorld;
let ledger: Ledger;
const suite = new FaultSuite('observations');

beforeAll(async () => {
  world = await observationWorld();
  ledger = await Ledger.ofStore();
});
afterEach(() => suite.settle(ledger));
afterAll(() => console.log(suite.summary()));

let minute = 0;
/** Readings at distinct instants, some with an identifier of their own. */
const readings = (n: number) =>
  Array.from({ length: n }, (_, i) =>
    observation(world, { at: Date.UTC(2025, 5, 1, 0, minute++), ...(i % 3 === 0 ? { identifiers: [{ system: 'urn:fault-suite', value: `r-${minute}` }] } : {}) }),
  );

async function sent(token: string, resources: readonly unknown[]): Promise<TestResponse> {
  suite.entries += resources.length;
  const res = await upload(token, resources);
  expect(res.status, res.text.slice(0, 300)).toBe(200);
  ledger.acknowledgeBundle(res);
  return res;
}

describe('each entry stored once', () => {
  it('with every other batch call leaving half its items or keys unprocessed, through the upload and its read-back', async () => {
    const fired = suite.fault((c, nth) => (c.name === 'BatchWriteItemCommand' || c.name === 'BatchGetItemCommand') && nth % 2 === 1, halfUnprocessed);
    const res = await sent(world.patient.token, readings(60));
    expect(new Set(statusesOf(res))).toEqual(new Set(['201 Created']));
    const byId = await search(world.practitioner.token, `_id=${idsOf(res).join(',')}&_count=100`);
    expect(matchIds(byId).sort()).toEqual(idsOf(res).sort());
    const byDate = await search(world.practitioner.token, `patient=${world.patient.id}&date=ge2025-06-01&date=lt2025-06-02&_count=1000`);
    expect(matchIds(byDate)).toEqual(expect.arrayContaining(idsOf(res)));
    expect(fired()).toBeGreaterThan(0);
  });

  it('with every other transaction throttled', async () => {
    const fired = suite.fault((c, nth) => c.name === 'TransactWriteItemsCommand' && nth % 2 === 1, async () => {
      throw throttling();
    });
    const res = await sent(world.patient.token, readings(80));
    expect(new Set(statusesOf(res))).toEqual(new Set(['201 Created']));
    expect(fired()).toBeGreaterThan(0);
  });

  it('with every other transaction cancelled by a conflicting one, and the other batch calls throttled', async () => {
    const fired = suite.fault(
      (c, nth) => (c.name === 'TransactWriteItemsCommand' || c.name === 'BatchGetItemCommand' || c.name === 'BatchWriteItemCommand') && nth % 2 === 1,
      async (command) => {
        if (command.name !== 'TransactWriteItemsCommand') throw throttling();
        throw cancelled(command.input.TransactItems.length, (i) => (i === 0 ? 'TransactionConflict' : 'None'));
      },
    );
    const res = await sent(world.patient.token, readings(60));
    expect(new Set(statusesOf(res))).toEqual(new Set(['201 Created']));
    expect(fired()).toBeGreaterThan(0);
  });

  it('when the answer of every first transaction is lost after it committed', async () => {
    const fired = suite.fault(
      (c, nth) => c.name === 'TransactWriteItemsCommand' && nth === 1,
      async (_command, send) => {
        await send();
        throw Object.assign(new Error('socket hang up'), { name: 'TimeoutError', $retryable: {}, $metadata: {} });
      },
    );
    const res = await sent(world.patient.token, readings(60));
    expect(new Set(statusesOf(res))).toEqual(new Set(['201 Created']));
    expect(fired()).toBe(1);
  });

  it('when four requests race to store the same batch: each reading is created by one and found by the others', async () => {
    const batch = readings(40);
    const responses = await Promise.all([1, 2, 3, 4].map(() => sent(world.patient.token, batch)));
    for (let i = 0; i < batch.length; i += 1) {
      const statuses = responses.map((r) => statusesOf(r)[i]);
      expect(statuses.filter((s) => s === '201 Created'), `entry ${i}: ${statuses.join(', ')}`).toHaveLength(1);
      expect(statuses.filter((s) => s === '200 OK')).toHaveLength(3);
      expect(new Set(responses.map((r) => r.json.entry[i].resource.id)).size).toBe(1);
    }
  });

  it('when readings of two requests race for the same identifiers: one holds each identifier, the other is refused', async () => {
    const shared = Array.from({ length: 30 }, (_, i) => ({ system: 'urn:race', value: `shared-${minute}-${i}` }));
    const first = shared.map((identifier) => observation(world, { at: Date.UTC(2025, 6, 1, 0, minute++), identifiers: [identifier] }));
    const second = shared.map((identifier) => observation(world, { at: Date.UTC(2025, 6, 1, 0, minute++), identifiers: [identifier] }));
    const [a, b] = await Promise.all([sent(world.patient.token, first), sent(world.patient.token, second)]);
    for (let i = 0; i < shared.length; i += 1) {
      expect([statusesOf(a)[i], statusesOf(b)[i]].sort(), `identifier ${i}`).toEqual(['201 Created', '409 Conflict']);
    }
  });
});

describe('each entry reported failed, leaving nothing', () => {
  it('when every row write stays throttled (transactions and puts); sent again, every entry is stored', async () => {
    suite.fault((c) => c.name === 'TransactWriteItemsCommand' || c.name === 'PutItemCommand', async () => {
      throw throttling();
    });
    const batch = readings(20);
    const failed = await sent(world.patient.token, batch);
    expect(new Set(statusesOf(failed))).toEqual(new Set(['503 Service Unavailable']));
    await suite.settle(ledger);
    const again = await sent(world.patient.token, batch);
    expect(new Set(statusesOf(again))).toEqual(new Set(['201 Created']));
  });

  it('when the span statistics stay throttled; sent again, every entry is stored', async () => {
    const fired = suite.fault((c) => c.name === 'UpdateItemCommand', async () => {
      throw throttling();
    });
    // A reading spanning 40 days raises the patient's span statistics (an UpdateItem) before any row is written.
    const batch = [...readings(5), observation(world, { at: Date.UTC(2025, 7, 1), form: 'start_end', spanMinutes: 60 * 24 * 40 })];
    const failed = await sent(world.patient.token, batch);
    expect(fired()).toBeGreaterThan(0);
    expect(new Set(statusesOf(failed))).toEqual(new Set(['503 Service Unavailable']));
    await suite.settle(ledger);
    const again = await sent(world.patient.token, batch);
    expect(new Set(statusesOf(again))).toEqual(new Set(['201 Created']));
  });
});

describe('an invocation stopped half-way through its batch, and the batch sent again', () => {
  it.each([
    ['never sent', false],
    ['sent, its answer lost', true],
  ])('the second transaction %s: after the re-send, exactly one row per reading', async (_what, sending) => {
    // A third of them carry an identifier: 67 readings of two actions each make two transactions.
    const batch = readings(200);
    const stopper = await stopInvocation('first', 'TransactWriteItemsCommand', 1, { sending });
    suite.removeAfterTest(stopper.remove);
    suite.entries += batch.length;
    // Its answer is never read: the client saw the invocation time out.
    void asInvocation('first', () => upload(world.patient.token, batch)).catch(() => undefined);
    await stopper.stopped;
    suite.faults += 1;
    const again = await sent(world.patient.token, batch);
    expect(statusesOf(again).every((s) => s === '201 Created' || s === '200 OK')).toBe(true);
    expect(statusesOf(again)).toContain('200 OK');
  });

  it('stopped after its claims and before its block: the re-send finishes each reading under its claimed id, readable by it', async () => {
    const batch = Array.from({ length: 20 }, () => observation(world, { at: Date.UTC(2025, 5, 1, 0, minute++) }));
    // Twenty claims are the first twenty puts; the block's is the next.
    const stopper = await stopInvocation('pointers', 'PutItemCommand', 20);
    suite.removeAfterTest(stopper.remove);
    suite.entries += batch.length;
    // Its answer is never read: the client saw the invocation time out.
    void asInvocation('pointers', () => upload(world.patient.token, batch)).catch(() => undefined);
    await stopper.stopped;
    suite.faults += 1;
    const again = await sent(world.patient.token, batch);
    expect(new Set(statusesOf(again))).toEqual(new Set(['200 OK']));
    for (const id of idsOf(again)) expect((await call('GET', `/FHIR/R5/Observation/${id}`, { token: world.patient.token })).status, id).toBe(200);
  });

  it('stopped before its first transaction: after the re-send, exactly one row per reading', async () => {
    const batch = readings(40);
    const stopper = await stopInvocation('before', 'TransactWriteItemsCommand', 0);
    suite.removeAfterTest(stopper.remove);
    suite.entries += batch.length;
    // Its answer is never read: the client saw the invocation time out.
    void asInvocation('before', () => upload(world.patient.token, batch)).catch(() => undefined);
    await stopper.stopped;
    suite.faults += 1;
    const again = await sent(world.patient.token, batch);
    // Readings whose claims went out before the stop are finished under their claimed ids (200).
    expect(statusesOf(again).every((s) => s === '201 Created' || s === '200 OK')).toBe(true);
  });
});
