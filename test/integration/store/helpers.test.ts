/**
 * The shared DynamoDB helpers (shared/store: reads.ts, batch.ts, transact.ts) against DynamoDB
 * Local, with faults injected where DynamoDB would leave work undone: every page read, every key
 * answered in the order asked, every unprocessed item retried, a collided transaction sent again and
 * a failed condition turned into its own error.
 */
import { randomBytes } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { config } from '../../../shared/config';
import { conflict } from '../../../shared/http/errors';
import { batchDeleteAll, batchGetInOrder, batchWriteAll } from '../../../shared/store/batch';
import { getItem, queryAll, queryPage } from '../../../shared/store/reads';
import { atVersion, transact, transactInChunks, writesOn } from '../../../shared/store/transact';
import { cancelled, halfUnprocessed, injectFault, recordCommands } from '../../support/faults';

const table = () => config().directoryTable;
const { put, putNew, remove } = writesOn(table);
const partition = () => `HELPERS#${randomBytes(4).toString('hex')}`;
const row = (pk: string, i: number) => ({ pk, sk: `ROW#${String(i).padStart(4, '0')}`, n: i, version: 1 });

let removeFault: (() => void) | undefined;
afterEach(() => {
  removeFault?.();
  removeFault = undefined;
});

async function stored(pk: string, count: number) {
  const failed = await batchWriteAll(table(), Array.from({ length: count }, (_, i) => ({ PutRequest: { Item: row(pk, i) } })));
  expect(failed).toEqual([]);
}

describe('reads', () => {
  it('queryAll follows every page; queryPage stops after one and says where the next starts', async () => {
    const pk = partition();
    await stored(pk, 30);
    expect((await queryAll({ table: table(), pk })).map((i) => i.n)).toEqual(Array.from({ length: 30 }, (_, i) => i));
    expect((await queryAll({ table: table(), pk, skPrefix: 'ROW#001', descending: true })).map((i) => i.n)).toEqual([19, 18, 17, 16, 15, 14, 13, 12, 11, 10]);
    const first = await queryPage({ table: table(), pk, attributes: ['n'] }, { limit: 25 });
    expect(first.items).toEqual(Array.from({ length: 25 }, (_, i) => ({ n: i })));
    const second = await queryPage({ table: table(), pk }, { limit: 25, start: first.next! });
    expect(second.items.map((i) => i.n)).toEqual([25, 26, 27, 28, 29]);
    expect(second.next).toBeUndefined();
  });
});

describe('batches', () => {
  it('answers keys in the order asked (missing ones skipped, one named twice answered twice), through unprocessed keys', async () => {
    const pk = partition();
    await stored(pk, 150);
    removeFault = injectFault(halfUnprocessed);
    const asked = [149, 3, 77, 3, 0, ...Array.from({ length: 120 }, (_, i) => i + 10)];
    const keys = [...asked.map((i) => ({ pk, sk: row(pk, i).sk })), { pk, sk: 'ROW#missing' }];
    expect((await batchGetInOrder(table(), keys)).map((i) => i.n)).toEqual(asked);
  });

  it('deletes every key through unprocessed items, each key sent once', async () => {
    const pk = partition();
    await stored(pk, 60);
    removeFault = injectFault(halfUnprocessed);
    const keys = Array.from({ length: 60 }, (_, i) => ({ pk, sk: row(pk, i).sk }));
    await batchDeleteAll(table(), [...keys, keys[0]!]);
    removeFault();
    removeFault = undefined;
    expect(await queryAll({ table: table(), pk })).toEqual([]);
  });
});

describe('transactions', () => {
  it('sends a transaction that collided with another again, and the failed condition of one action raises its own error', async () => {
    const pk = partition();
    let collisions = 2;
    removeFault = injectFault(async (command, send) => {
      if (command.name === 'TransactWriteItemsCommand' && collisions-- > 0) throw cancelled(1, () => 'TransactionConflict');
      return send();
    });
    await transact([putNew(row(pk, 1), () => conflict('first'))]);
    expect(collisions).toBeLessThan(0);
    expect(await getItem(table(), { pk, sk: row(pk, 1).sk })).toEqual(row(pk, 1));

    await expect(transact([put(row(pk, 2)), putNew(row(pk, 1), () => conflict('taken'))])).rejects.toMatchObject({ status: 409, message: 'taken' });
    expect(await getItem(table(), { pk, sk: row(pk, 2).sk })).toBeUndefined();
  });

  it('atVersion writes over the version read only', async () => {
    const pk = partition();
    await transact([putNew(row(pk, 1), () => conflict('new'))]);
    await transact([put({ ...row(pk, 1), version: 2 }, atVersion(1))]);
    await expect(transact([put({ ...row(pk, 1), version: 2, n: 99 }, atVersion(1))])).rejects.toMatchObject({ status: 409 });
    await expect(transact([remove({ pk, sk: 'ROW#gone' }, atVersion(1))])).rejects.toMatchObject({ status: 409 });
    expect(await getItem(table(), { pk, sk: row(pk, 1).sk })).toMatchObject({ n: 1, version: 2 });
  });

  it('transactInChunks runs any number of writes as transactions of at most 100', async () => {
    const pk = partition();
    const recorder = recordCommands();
    removeFault = recorder.stop;
    await transactInChunks(Array.from({ length: 230 }, (_, i) => put(row(pk, i))));
    expect(recorder.commands.filter((c) => c.name === 'TransactWriteItemsCommand').map((c) => c.input.TransactItems.length)).toEqual([100, 100, 30]);
    expect(await queryAll({ table: table(), pk })).toHaveLength(230);
  });
});
