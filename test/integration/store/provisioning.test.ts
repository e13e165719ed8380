import { CreateTableCommand, DeleteTableCommand, DescribeTableCommand, DescribeTimeToLiveCommand, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, describe, expect, it } from 'vitest';
import { config } from '../../../shared/config';
import { dynamo } from '../../../shared/store/clients';
import { counterKey, forgetIdBlocks, idBlocks, IdBlocks } from '../../../shared/store/counters';
import { ensureTables } from '../../../shared/store/provision';
import { createTableInput, EXPORTS, TABLES, tableName } from '../../../shared/store/tables';

const raw = new DynamoDBClient({});
afterAll(() => raw.destroy());

describe('tables built from the shared definitions', () => {
  it.each(TABLES.map((t) => [t.id, t] as const))('%s has the defined keys and indexes', async (_id, def) => {
    const { Table } = await raw.send(new DescribeTableCommand({ TableName: tableName(def) }));
    expect(Table?.KeySchema).toEqual([
      { AttributeName: def.partitionKey.name, KeyType: 'HASH' },
      { AttributeName: def.sortKey.name, KeyType: 'RANGE' },
    ]);
    expect((Table?.GlobalSecondaryIndexes ?? []).map((i) => i.IndexName).sort()).toEqual(def.globalIndexes.map((i) => i.name).sort());
    expect((Table?.LocalSecondaryIndexes ?? []).map((i) => i.IndexName).sort()).toEqual(def.localIndexes.map((i) => i.name).sort());
  });

  it.each(TABLES.map((t) => [t.id, t] as const))('%s has no stream locally (the engine slows every write for one)', async (_id, def) => {
    const { Table } = await raw.send(new DescribeTableCommand({ TableName: tableName(def) }));
    expect(Table?.StreamSpecification?.StreamEnabled ?? false).toBe(false);
  });

  it('turns off the stream of a table an earlier version made with one, and keeps its items', async () => {
    // Every table under another name, so ensureTables works on copies of its own.
    const c = config();
    const cfg = { ...c, observationsTable: `${c.observationsTable}-s`, auxTable: `${c.auxTable}-s`, directoryTable: `${c.directoryTable}-s`, brandsTable: `${c.brandsTable}-s`, exports: { ...c.exports, table: `${c.exports.table}-s` } };
    const name = tableName(EXPORTS, cfg);
    await raw.send(new CreateTableCommand({ ...createTableInput(EXPORTS, name), StreamSpecification: { StreamEnabled: true, StreamViewType: 'NEW_AND_OLD_IMAGES' } }));
    try {
      await dynamo().send(new PutCommand({ TableName: name, Item: { pk: 'kept', sk: 'item' } }));
      expect((await raw.send(new DescribeTableCommand({ TableName: name }))).Table?.StreamSpecification?.StreamEnabled).toBe(true);
      await ensureTables(raw, cfg);
      expect((await raw.send(new DescribeTableCommand({ TableName: name }))).Table?.StreamSpecification?.StreamEnabled ?? false).toBe(false);
      expect((await dynamo().send(new GetCommand({ TableName: name, Key: { pk: 'kept', sk: 'item' } }))).Item).toEqual({ pk: 'kept', sk: 'item' });
    } finally {
      for (const t of TABLES) await raw.send(new DeleteTableCommand({ TableName: tableName(t, cfg) })).catch(() => undefined);
    }
  });

  it('turns on TTL for the directory table', async () => {
    const ttl = await raw.send(new DescribeTimeToLiveCommand({ TableName: config().directoryTable }));
    expect(ttl.TimeToLiveDescription?.AttributeName).toBe('expiresAt');
  });
});

describe('IdBlocks', () => {
  it('hands out unique increasing ids with one counter write per block', async () => {
    const a = new IdBlocks('test-a', 10);
    const ids = (await Promise.all(Array.from({ length: 25 }, () => a.one()))).sort((x, y) => x - y);
    expect(new Set(ids).size).toBe(25);
    expect(ids[0]).toBe(1);
    const counter = await dynamo().send(new GetCommand({ TableName: config().directoryTable, Key: counterKey('test-a') }));
    // 25 ids in blocks of 10: three blocks reserved.
    expect(counter.Item?.value).toBe(30);
  });

  it('never repeats an id across processes sharing the counter', async () => {
    const one = new IdBlocks('test-b', 5);
    const two = new IdBlocks('test-b', 5);
    const [x, y] = await Promise.all([one.take(12), two.take(12)]);
    const all = [...x, ...y];
    expect(new Set(all).size).toBe(24);
  });

  it('takes a new block from the counter once the blocks held are forgotten (another store started in the process)', async () => {
    const c = idBlocks('test-c', 5);
    expect(await c.take(2)).toEqual([1, 2]);
    forgetIdBlocks();
    // Ids 3-5 of the first block are skipped, not handed out again: the next id is the next block's.
    expect(await c.one()).toBe(6);
  });
});
