/**
 * The move from layout 1 (every index a full copy, payloads as Base64 text) to layout 2: a layout-1
 * table is filled with what the service stored, the layout-2 table emptied, and the copy run,
 * stopped after its first page and resumed. After it every reading is back, byte for byte and under
 * its id, and a second run changes nothing.
 */
import { CreateTableCommand, DynamoDBClient, waitUntilTableExists } from '@aws-sdk/client-dynamodb';
import { beforeAll, describe, expect, it } from 'vitest';
import { config } from '../../../shared/config';
import { toLayout2 } from '../../../shared/observations/store/dynamo-layout-migration';
import { fromItem, uploadedPayload } from '../../../shared/observations/store/dynamo-items';
import { batchWriteAll } from '../../../shared/store/batch';
import { copyTable, type CopyProgress } from '../../../shared/store/copy-table';
import { createTableInput, OBSERVATIONS_LAYOUT_1 } from '../../../shared/store/tables';
import { upgradeObservationsTable } from '../../../local/upgrade-tables';
import { call } from '../../support/invoke';
import { tableItems } from '../../support/store';
import { idsOf, observation, observationWorld, statusesOf, upload, type ObservationWorld } from '../../support/observations';

let world: ObservationWorld;
let ids: string[];
let stored: Record<string, unknown>[];
const layout1 = () => `${config().resourcePrefix}${OBSERVATIONS_LAYOUT_1.name}`;
const byKey = (items: Record<string, unknown>[]) => new Map(items.map((i) => [`${i.pk}|${i.sk}`, i]));

beforeAll(async () => {
  world = await observationWorld();
  const readings = [
    ...Array.from({ length: 7 }, (_, i) => observation(world, { at: Date.UTC(2025, 1, 1, i) })),
    observation(world, { at: Date.UTC(2025, 1, 2), identifiers: [{ system: 'urn:test:migration', value: 'm-1' }] }),
  ];
  const res = await upload(world.patient.token, readings);
  expect(new Set(statusesOf(res))).toEqual(new Set(['201 Created']));
  ids = idsOf(res);
  stored = await tableItems(config().observationsTable);

  // The table as layout 1 held the same readings: the same keys and ids, payloads as text, and the
  // attributes layout 2 no longer repeats (uuid, lastUpdated, status, an instant's kind and end).
  const raw = new DynamoDBClient({});
  await raw.send(new CreateTableCommand(createTableInput(OBSERVATIONS_LAYOUT_1, layout1())));
  await waitUntilTableExists({ client: raw, maxWaitTime: 60, minDelay: 1 }, { TableName: layout1() });
  raw.destroy();
  const asLayout1 = stored.map((item) => {
    if (item.data === undefined) return item;
    const o = fromItem(item);
    return {
      ...item,
      data: o.data,
      uuid: o.uuid,
      lastUpdated: o.lastUpdated,
      status: o.status,
      ...(o.effective ? { effKind: o.effective.kind, effStart: o.effective.start, effEnd: o.effective.end } : {}),
    };
  });
  expect(asLayout1.some((i) => i.uuid !== undefined && i.lastUpdated !== undefined && i.status === 'final' && typeof i.data === 'string')).toBe(true);
  expect(await batchWriteAll(layout1(), asLayout1.map((Item) => ({ PutRequest: { Item } })))).toEqual([]);
  // The new deployment starts with an empty layout-2 table.
  expect(await batchWriteAll(config().observationsTable, stored.map((i) => ({ DeleteRequest: { Key: { pk: i.pk, sk: i.sk } } })))).toEqual([]);
});

describe('copying layout 1 into layout 2', () => {
  it('is resumable: a run stopped after its first page continues from the saved position, and every reading reads as before', async () => {
    expect((await call('GET', `/FHIR/R5/Observation/${ids[0]}`, { token: world.patient.token })).status).toBe(404);
    let saved: CopyProgress | undefined;
    const stop = new Error('stopped');
    const first = copyTable({ from: layout1(), to: config().observationsTable, transform: toLayout2, segments: 1, pageSize: 3, saveProgress: (p) => {
      saved = p;
      throw stop;
    } });
    await expect(first).rejects.toBe(stop);
    expect(saved!.segments[0]!.done).toBe(false);
    expect(saved!.copied).toBe(3);

    const done = await copyTable({ from: layout1(), to: config().observationsTable, transform: toLayout2, progress: saved!, pageSize: 3 });
    expect(done.segments.every((s) => s.done)).toBe(true);
    expect(done.copied).toBe(stored.length);

    const after = byKey(await tableItems(config().observationsTable));
    expect(after.size).toBe(stored.length);
    for (const [key, item] of byKey(stored)) expect(after.get(key), key).toEqual(item);
    for (const id of ids) {
      const read = await call('GET', `/FHIR/R5/Observation/${id}`, { token: world.patient.token });
      expect(read.status, id).toBe(200);
    }
    const search = await call('GET', `/FHIR/R5/Observation?patient=${world.patient.id}&_count=50`, { token: world.patient.token });
    expect(search.json.entry.map((e: { resource: { id: string } }) => e.resource.id).sort()).toEqual([...ids].sort());
  });

  it('is idempotent: a second run copies nothing and overwrites nothing', async () => {
    const before = await tableItems(config().observationsTable);
    const again = await copyTable({ from: layout1(), to: config().observationsTable, transform: toLayout2, segments: 2 });
    expect(again.copied).toBe(0);
    expect(again.present).toBe(stored.length);
    expect(byKey(await tableItems(config().observationsTable))).toEqual(byKey(before));
  });
});

describe('a local data folder made before layout 2', () => {
  it('is copied once, when npm start has just created the layout-2 table beside it', async () => {
    const raw = new DynamoDBClient({});
    try {
      const row = stored.find((i) => String(i.sk).startsWith('U#'))!;
      // Another reading only the old table holds, as a folder made by the earlier version would.
      const older: Record<string, unknown> = { ...row, sk: 'U#00000000-0000-4000-8000-000000000001', id: 999_999_001, data: uploadedPayload(row.data) };
      expect(await batchWriteAll(layout1(), [{ PutRequest: { Item: older } }])).toEqual([]);
      expect(await upgradeObservationsTable(raw, [])).toBe(0);
      expect(byKey(await tableItems(config().observationsTable)).has(`${older.pk}|${older.sk}`)).toBe(false);
      expect(await upgradeObservationsTable(raw, [config().observationsTable])).toBe(1);
      const copied = byKey(await tableItems(config().observationsTable)).get(`${older.pk}|${older.sk}`)!;
      expect(copied.data).toBeInstanceOf(Uint8Array);
      expect(uploadedPayload(copied.data)).toBe(older.data);
    } finally {
      raw.destroy();
    }
  });
});
