/**
 * The write path under injected faults (a middleware on the real client answers instead of
 * DynamoDB, or changes what is sent): unprocessed batch items and throttled or conflicting
 * transactions are retried until stored; what still fails is reported per entry and nothing of it
 * remains.
 */
import { TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { call } from '../../support/invoke';
import { injectFault, throttling } from '../../support/faults';
import { idsOf, observation, observationWorld, statusesOf, storedRows, upload, type ObservationWorld } from '../../support/observations';

let world: ObservationWorld;
let remove: (() => void) | undefined;
beforeAll(async () => {
  world = await observationWorld();
});
afterEach(() => {
  remove?.();
  remove = undefined;
});

const readings = (n: number) => Array.from({ length: n }, (_, i) => observation(world, { at: Date.UTC(2025, 3, 1, 0, i) }));

async function allReadable(ids: string[]) {
  for (const id of ids) expect((await call('GET', `/FHIR/R5/Observation/${id}`, { token: world.patient.token })).status, id).toBe(200);
}

describe('retried until stored', () => {
  it('BatchWriteItem leaving half its items unprocessed, three times', async () => {
    let faults = 3;
    remove = injectFault(async (command, send) => {
      if (command.name !== 'BatchWriteItemCommand' || faults-- <= 0) return send();
      const [table, requests] = Object.entries(command.input.RequestItems as Record<string, unknown[]>)[0]!;
      const half = Math.ceil(requests.length / 2);
      const output = await send({ RequestItems: { [table]: requests.slice(0, half) } });
      return { ...output, UnprocessedItems: { [table]: requests.slice(half) } };
    });
    const res = await upload(world.patient.token, readings(30));
    expect(statusesOf(res).every((s) => s === '201 Created')).toBe(true);
    expect(faults).toBeLessThan(0);
    await allReadable(idsOf(res));
  });

  it('TransactWriteItems throttled twice, then cancelled by a conflicting transaction', async () => {
    const faults = [throttling, throttling, 'conflict'] as Array<(() => Error) | 'conflict'>;
    remove = injectFault(async (command, send) => {
      if (command.name !== 'TransactWriteItemsCommand' || faults.length === 0) return send();
      const fault = faults.shift()!;
      if (fault !== 'conflict') throw fault();
      const actions = command.input.TransactItems.length;
      throw new TransactionCanceledException({
        message: 'Transaction cancelled',
        $metadata: {},
        CancellationReasons: Array.from({ length: actions }, (_, i) => ({ Code: i === 0 ? 'TransactionConflict' : 'None' })),
      });
    });
    const before = (await storedRows(world.patient.id)).length;
    const res = await upload(world.patient.token, readings(12));
    expect(faults).toHaveLength(0);
    expect(statusesOf(res).every((s) => s === '201 Created')).toBe(true);
    expect((await storedRows(world.patient.id)).length).toBe(before + 12);
    await allReadable(idsOf(res));
  });
});

describe('reported per entry when it keeps failing', () => {
  it('a store that stays throttled: every reading answers 503 and none is stored', async () => {
    remove = injectFault(async (command, send) => {
      if (command.name === 'TransactWriteItemsCommand') throw throttling();
      return send();
    });
    const before = (await storedRows(world.patient.id)).length;
    const res = await upload(world.patient.token, readings(3));
    expect(res.status).toBe(200);
    expect(statusesOf(res)).toEqual(['503 Service Unavailable', '503 Service Unavailable', '503 Service Unavailable']);
    expect(res.json.entry[0].response.outcome.issue[0]).toMatchObject({ severity: 'error', code: 'transient' });
    expect((await storedRows(world.patient.id)).length).toBe(before);
  }, 60_000);

  it('pointers that stay unprocessed: those readings answer 503, the others are stored', async () => {
    remove = injectFault(async (command, send) => {
      if (command.name !== 'BatchWriteItemCommand') return send();
      const [table, requests] = Object.entries(command.input.RequestItems as Record<string, any[]>)[0]!;
      const stuck = requests.filter((r) => r.PutRequest?.Item?.pk === 'O#stuck' || r.PutRequest?.Item?.uuid?.startsWith('00000000'));
      const rest = requests.filter((r) => !stuck.includes(r));
      const output = rest.length > 0 ? await send({ RequestItems: { [table]: rest } }) : {};
      return { ...output, UnprocessedItems: stuck.length > 0 ? { [table]: stuck } : {} };
    });
    const stuck = observation(world, { uuid: '00000000-0000-4000-8000-000000000001' });
    const before = (await storedRows(world.patient.id)).length;
    const res = await upload(world.patient.token, [observation(world), stuck, observation(world)]);
    expect(statusesOf(res)).toEqual(['201 Created', '503 Service Unavailable', '201 Created']);
    expect((await storedRows(world.patient.id)).length).toBe(before + 2);
  }, 60_000);
});
