/**
 * The write path under injected faults (a middleware on the real client answers instead of
 * DynamoDB, or changes what is sent): throttled or conflicting transactions are retried until
 * stored; what still fails is reported per entry and nothing of it remains. (The combinations of
 * faults, and the state they leave, are test/security/faults-observations.test.ts.)
 */
import { randomUUID } from 'node:crypto';
import { TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import { decodeFacts } from '../../../shared/observations/store/block-codec';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { call } from '../../support/invoke';
import { injectFault, recordCommands, throttling } from '../../support/faults';
import { config } from '../../../shared/config';
import { SOURCE_HEADER } from '../../../shared/fhir/constants';
import { makeFhirSource } from '../../support/directory';
import { idsOf, labObservation, observation, observationWorld, statusesOf, storedClaims, storedRows, upload, type ObservationWorld } from '../../support/observations';

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
/** Readings with an identifier each: their rows go through the transaction path. */
const claimed = (n: number) =>
  Array.from({ length: n }, (_, i) => observation(world, { at: Date.UTC(2025, 3, 2, 0, i), identifiers: [{ system: 'urn:test:faults', value: randomUUID() }] }));
const isRowWrite = (name: string) => name === 'TransactWriteItemsCommand' || name === 'PutItemCommand';

async function allReadable(ids: string[]) {
  for (const id of ids) expect((await call('GET', `/FHIR/R5/Observation/${id}`, { token: world.patient.token })).status, id).toBe(200);
}

/** Where each reading's writes went, in order: its id range, its claim (put or transaction), the first block put holding it. */
function writeOrder(commands: ReadonlyArray<{ name: string; input: any }>, id: number) {
  const isClaim = (i: any) => String(i.sk).startsWith('U#') && i.id === id;
  const claim = commands.findIndex((c) => (c.name === 'PutItemCommand' && isClaim(c.input.Item)) || (c.name === 'TransactWriteItemsCommand' && c.input.TransactItems.some((a: any) => isClaim(a.Put?.Item ?? {}))));
  const range = commands.findIndex(
    (c) => c.name === 'BatchWriteItemCommand' && Object.values(c.input.RequestItems as Record<string, any[]>).flat().some((r) => String(r.PutRequest?.Item?.pk).startsWith('R#') && Number(r.PutRequest.Item.sk) <= id && id <= r.PutRequest.Item.last),
  );
  const block = commands.findIndex((c) => c.name === 'PutItemCommand' && String(c.input.Item?.sk).startsWith('B#') && decodeFacts(c.input.Item, 0, 0).some((f) => f.id === id));
  return { claim, range, block };
}

const blockPuts = (commands: ReadonlyArray<{ name: string; input: any }>) => commands.filter((c) => c.name === 'PutItemCommand' && String(c.input.Item?.sk).startsWith('B#'));

describe('retried until stored', () => {
  it('a reading with identifiers: its id range first; its uuid and identifier claims one transaction, so neither lands without the other; its block last', async () => {
    const recorder = recordCommands();
    remove = recorder.stop;
    const res = await upload(world.patient.token, claimed(30));
    expect(statusesOf(res).every((s) => s === '201 Created')).toBe(true);
    for (const id of idsOf(res).map(Number)) {
      const transaction = recorder.commands.find((c) => c.name === 'TransactWriteItemsCommand' && c.input.TransactItems.some((a: any) => a.Put.Item.id === id && String(a.Put.Item.sk).startsWith('U#')));
      expect(transaction?.input.TransactItems.some((a: any) => a.Put.Item.id === id && String(a.Put.Item.pk).startsWith('I#')), String(id)).toBe(true);
      const { claim, range, block } = writeOrder(recorder.commands, id);
      expect(range, String(id)).toBeGreaterThanOrEqual(0);
      expect(claim, String(id)).toBeGreaterThan(range);
      expect(block, String(id)).toBeGreaterThan(claim);
    }
    await allReadable(idsOf(res));
  });

  it('a reading without identifiers: its id range first; one conditional put of its claim; its block last, written for the readings of the whole upload together', async () => {
    const recorder = recordCommands();
    remove = recorder.stop;
    const res = await upload(world.patient.token, readings(30));
    expect(statusesOf(res).every((s) => s === '201 Created')).toBe(true);
    expect(recorder.commands.map((c) => c.name)).not.toContain('TransactWriteItemsCommand');
    const claims = recorder.commands.filter((c) => c.name === 'PutItemCommand' && String(c.input.Item?.sk).startsWith('U#'));
    expect(claims).toHaveLength(30);
    expect(claims.every((c) => c.input.ConditionExpression === 'attribute_not_exists(pk)')).toBe(true);
    for (const id of idsOf(res).map(Number)) {
      const { claim, range, block } = writeOrder(recorder.commands, id);
      expect(claim, String(id)).toBeGreaterThan(range);
      expect(block, String(id)).toBeGreaterThan(claim);
    }
    // 30 readings of one hour, checked and stored in slices side by side: the slices that arrive
    // while the block is being written go together in the next write.
    expect(blockPuts(recorder.commands).length).toBeLessThanOrEqual(2);
    await allReadable(idsOf(res));
  });

  it('a claim put throttled twice is retried until stored', async () => {
    let faults = 2;
    remove = injectFault(async (command, send) => {
      if (command.name !== 'PutItemCommand' || faults === 0) return send();
      faults -= 1;
      throw throttling();
    });
    const before = (await storedRows(world.patient.id)).length;
    const res = await upload(world.patient.token, readings(4));
    expect(faults).toBe(0);
    expect(statusesOf(res).every((s) => s === '201 Created')).toBe(true);
    expect((await storedRows(world.patient.id)).length).toBe(before + 4);
    await allReadable(idsOf(res));
  });

  it('pointers that could not be written: the readings answer 503 before anything of them is claimed; the re-send stores them', async () => {
    remove = injectFault(async (command, send) => {
      if (command.name === 'BatchWriteItemCommand') throw throttling();
      return send();
    });
    const batch = readings(2);
    const claimsBefore = await storedClaims(world.patient.id);
    const first = await upload(world.patient.token, batch);
    expect(statusesOf(first)).toEqual(['503 Service Unavailable', '503 Service Unavailable']);
    remove();
    remove = undefined;
    expect(await storedClaims(world.patient.id)).toEqual(claimsBefore);
    const before = (await storedRows(world.patient.id)).length;
    const again = await upload(world.patient.token, batch);
    expect(statusesOf(again)).toEqual(['201 Created', '201 Created']);
    await allReadable(idsOf(again));
    expect((await storedRows(world.patient.id)).length).toBe(before + 2);
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
    const res = await upload(world.patient.token, claimed(12));
    expect(faults).toHaveLength(0);
    expect(statusesOf(res).every((s) => s === '201 Created')).toBe(true);
    expect((await storedRows(world.patient.id)).length).toBe(before + 12);
    await allReadable(idsOf(res));
  });
});

describe('reported per entry when it keeps failing', () => {
  it('a store that stays throttled: every reading answers 503 and none is stored', async () => {
    remove = injectFault(async (command, send) => {
      if (isRowWrite(command.name)) throw throttling();
      return send();
    });
    const before = (await storedRows(world.patient.id)).length;
    const res = await upload(world.patient.token, [readings(1)[0], ...claimed(1), readings(1)[0]]);
    expect(res.status).toBe(200);
    expect(statusesOf(res)).toEqual(['503 Service Unavailable', '503 Service Unavailable', '503 Service Unavailable']);
    expect(res.json.entry[0].response.outcome.issue[0]).toMatchObject({ severity: 'error', code: 'transient' });
    expect((await storedRows(world.patient.id)).length).toBe(before);
  });
});

describe('a slow store', () => {
  it('row puts taking 20 ms each, one at a time (a saturated table): the batch is answered before its deadline, the readings done 201, the rest 503; the re-send stores each once', async () => {
    let queue: Promise<unknown> = Promise.resolve();
    remove = injectFault(async (command, send) => {
      if (command.name !== 'PutItemCommand') return send();
      const turn = queue.then(() => new Promise((resolve) => setTimeout(resolve, 20)));
      queue = turn;
      await turn;
      return send();
    });
    const batch = Array.from({ length: 400 }, (_, i) => observation(world, { at: Date.UTC(2025, 3, 3, 0, i) }));
    const before = (await storedRows(world.patient.id)).length;
    // 4.5 s of work, where 400 puts need at least 8 s.
    const first = await call('POST', '/FHIR/R5/', { token: world.patient.token, body: { resourceType: 'Bundle', type: 'batch', entry: batch.map((resource) => ({ resource })) }, timeoutMs: 6000 });
    expect(first.status).toBe(200);
    expect(first.headers['retry-after']).toBeDefined();
    const statuses = statusesOf(first);
    const done = statuses.filter((s) => s === '201 Created').length;
    expect(done).toBeGreaterThan(0);
    expect(done).toBeLessThan(batch.length);
    expect(new Set(statuses)).toEqual(new Set(['201 Created', '503 Service Unavailable']));
    await new Promise((resolve) => setTimeout(resolve, 2000));
    remove();
    remove = undefined;
    const again = await upload(world.patient.token, batch);
    expect(statusesOf(again).every((s) => s === '201 Created' || s === '200 OK')).toBe(true);
    expect(statusesOf(again).filter((s, i) => statuses[i] === '201 Created').every((s) => s === '200 OK')).toBe(true);
    expect((await storedRows(world.patient.id)).length - before).toBe(batch.length);
  });
});

describe('refused for good', () => {
  it('a transaction cancelled for a reason a retry cannot change is that reading\'s 500 at once, the others stored', async () => {
    let transactions = 0;
    remove = injectFault(async (command, send) => {
      if (command.name !== 'TransactWriteItemsCommand') return send();
      transactions += 1;
      if (transactions > 1) return send();
      const actions = command.input.TransactItems.length;
      throw new TransactionCanceledException({
        message: 'Transaction cancelled',
        $metadata: {},
        CancellationReasons: Array.from({ length: actions }, (_, i) => ({ Code: i === 0 ? 'ValidationError' : 'None', Message: 'Item size has exceeded the maximum allowed size' })),
      });
    });
    const before = (await storedRows(world.patient.id)).length;
    const res = await upload(world.patient.token, claimed(3));
    expect(statusesOf(res).filter((s) => s === '500 Internal Server Error')).toHaveLength(1);
    expect(statusesOf(res).filter((s) => s === '201 Created')).toHaveLength(2);
    // One transaction a reading (its claims), none sent again.
    expect(transactions).toBe(3);
    expect((await storedRows(world.patient.id)).length).toBe(before + 2);
  });

  it('a claim put refused for a reason a retry cannot change is that reading\'s 500 at once, the others stored', async () => {
    let puts = 0;
    remove = injectFault(async (command, send) => {
      if (command.name !== 'PutItemCommand' || !String(command.input.Item?.sk).startsWith('U#')) return send();
      puts += 1;
      if (puts > 1) return send();
      throw Object.assign(new Error('Item size has exceeded the maximum allowed size'), { name: 'ValidationException', $metadata: { httpStatusCode: 400 } });
    });
    const before = (await storedRows(world.patient.id)).length;
    const res = await upload(world.patient.token, readings(3));
    expect(statusesOf(res).filter((s) => s === '500 Internal Server Error')).toHaveLength(1);
    expect(statusesOf(res).filter((s) => s === '201 Created')).toHaveLength(2);
    expect(puts).toBe(3);
    expect((await storedRows(world.patient.id)).length).toBe(before + 2);
  });

  it('an auxiliary entry that fails unexpectedly is that entry\'s 500; the batch and its readings go on', async () => {
    const lab = labObservation(world);
    const source = await makeFhirSource({ patient: world.patient, dataSource: world.device });
    remove = injectFault(async (command, send) => {
      const items = command.name === 'TransactWriteItemsCommand' ? (command.input.TransactItems as Array<{ Put?: { TableName?: string } }>) : [];
      if (items.some((i) => i.Put?.TableName === config().auxTable)) throw Object.assign(new Error('An unforeseen failure'), { name: 'UnforeseenError' });
      return send();
    });
    const res = await upload(world.patient.token, [lab, ...readings(2)], { [SOURCE_HEADER]: String(source.id) });
    expect(res.status).toBe(200);
    expect(statusesOf(res)).toEqual(['500 Internal Server Error', '201 Created', '201 Created']);
    expect(res.json.entry[0].response.outcome.issue[0]).toMatchObject({ severity: 'error', code: 'exception' });
    expect(JSON.stringify(res.json)).not.toContain('unforeseen');
  });
});

describe('a store that stays busy on any path', () => {
  it('answers 503 with Retry-After in the path\'s own error shape, never a 500', async () => {
    const [first] = idsOf(await upload(world.patient.token, [observation(world)]));
    remove = injectFault(async () => {
      throw throttling();
    });
    const read = await call('GET', `/FHIR/R5/Observation/${first}`, { token: world.patient.token });
    expect(read.status).toBe(503);
    expect(read.headers['retry-after']).toBe('1');
    expect(read.json).toMatchObject({ resourceType: 'OperationOutcome', issue: [{ severity: 'error', code: 'transient' }] });
    const managed = await call('GET', '/api/v1/patients', { token: world.practitioner.token });
    expect(managed.status).toBe(503);
    expect(managed.json).toEqual({ detail: 'The store is busy; please retry.' });
  });
});
