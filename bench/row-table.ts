/**
 * The row-per-reading baseline of the observation benches: the same readings as layout 2 keeps
 * them (a row each, `toItem` of `shared/observations/store/dynamo-items.ts`, in a table made from
 * `OBSERVATIONS_LAYOUT_2` with its three local indexes and the code index) in the same DynamoDB
 * Local, so a bench times the store operation a row layout would send beside ours, in one run:
 *
 * - `rawQuery`: the paginated Query of a read's rows on the layout-2 index that holds them
 *   (`readingsRange`), with the fields a row is read back from (`ROW_FIELDS`), strongly consistent;
 * - `rawByKeys`: BatchGetItem of rows by their base keys (patient and `header.uuid`), 100 a call.
 */
import { CreateTableCommand, DynamoDBClient, ResourceInUseException, waitUntilTableExists } from '@aws-sdk/client-dynamodb';
import { BatchGetCommand, BatchWriteCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import pMap from 'p-map';
import { config } from '../shared/config';
import type { ReadingKey, StoredObservation } from '../shared/observations/model';
import { readReadings } from '../shared/observations/read';
import { ROW_FIELDS, toItem } from '../shared/observations/store/dynamo-items';
import { INDEX, observationKeys, readingsRange } from '../shared/observations/store/dynamo-keys';
import type { PageStart, ReadingsQuery } from '../shared/observations/store/port';
import { chunksOf } from '../shared/lists';
import { batchWriteAll } from '../shared/store/batch';
import { dynamo } from '../shared/store/clients';
import { tableExists } from '../shared/store/provision';
import { createTableInput, OBSERVATIONS_LAYOUT_2 } from '../shared/store/tables';

/** The baseline table's name: the layout-2 table of this deployment prefix. */
export const rowTable = (): string => `${config().resourcePrefix}${OBSERVATIONS_LAYOUT_2.name}`;

/** Makes the layout-2 table in the current DynamoDB Local, once. */
export async function ensureRowTable(): Promise<void> {
  const raw = new DynamoDBClient({});
  try {
    if (await tableExists(raw, rowTable())) return;
    await raw.send(new CreateTableCommand(createTableInput(OBSERVATIONS_LAYOUT_2, rowTable()))).catch((e: unknown) => {
      if (!(e instanceof ResourceInUseException)) throw e;
    });
    await waitUntilTableExists({ client: raw, maxWaitTime: 60, minDelay: 1 }, { TableName: rowTable() });
  } finally {
    raw.destroy();
  }
}

/** Writes readings as layout-2 rows (no pointers or claims: the baselines read rows only). */
export async function storeRows(readings: readonly StoredObservation[]): Promise<void> {
  await ensureRowTable();
  const failed = await batchWriteAll(rowTable(), readings.map((o) => ({ PutRequest: { Item: toItem(o) } })), 8);
  if (failed.length > 0) throw new Error(`${failed.length} rows not written to ${rowTable()}`);
}

/** Every reading of a patient as the service stores it (read back through the store), copied as rows; returns them. */
export async function copyPatientRows(patientId: number): Promise<StoredObservation[]> {
  const readings: StoredObservation[] = [];
  let start: PageStart | undefined;
  do {
    const page = await readReadings({ patientId, order: 'updated', ascending: true, time: {} }, 1000, start);
    readings.push(...page.readings);
    start = page.next;
  } while (start);
  await storeRows(readings);
  return readings;
}

/** The names of `ROW_FIELDS`, for a projection. */
function rowProjection(names: Record<string, string>): string {
  ROW_FIELDS.forEach((a, i) => (names[`#a${i}`] = a));
  return ROW_FIELDS.map((_, i) => `#a${i}`).join(', ');
}

/**
 * A read as the search would send it to layout 2, raw: the key range of the index that holds it,
 * the fields a row is read back from, `limit` rows a page, every page (or only the first); returns
 * the rows read.
 */
export async function rawQuery(q: ReadingsQuery, limit: number, firstPageOnly = false): Promise<number> {
  const { index, from, to } = readingsRange(q);
  const { name, sortKey } = INDEX[index];
  const names: Record<string, string> = { '#pk': 'pk', '#sk': sortKey };
  const projection = rowProjection(names);
  let start: Record<string, unknown> | undefined;
  let rows = 0;
  do {
    const out = await dynamo().send(
      new QueryCommand({
        TableName: rowTable(),
        IndexName: name,
        KeyConditionExpression: '#pk = :pk AND #sk BETWEEN :from AND :to',
        ExpressionAttributeNames: names,
        ExpressionAttributeValues: { ':pk': observationKeys.patientPk(q.patientId), ':from': from, ':to': to },
        ProjectionExpression: projection,
        ScanIndexForward: q.ascending,
        ConsistentRead: true,
        Limit: limit,
        ...(start ? { ExclusiveStartKey: start } : {}),
      }),
    );
    rows += out.Items?.length ?? 0;
    start = firstPageOnly ? undefined : out.LastEvaluatedKey;
  } while (start);
  return rows;
}

/** The rows of these readings read by their base keys: BatchGetItem, 100 keys a call, one call after another; returns the rows read. */
export async function rawByKeys(keys: readonly ReadingKey[], perCall = 100): Promise<number> {
  const names: Record<string, string> = {};
  const projection = rowProjection(names);
  let rows = 0;
  for (const chunk of chunksOf(keys, perCall)) {
    let pending: Record<string, unknown>[] = chunk.map((k) => ({ ...observationKeys.observation(k.patientId, k.uuid) }));
    while (pending.length > 0) {
      const out = await dynamo().send(new BatchGetCommand({ RequestItems: { [rowTable()]: { Keys: pending, ConsistentRead: true, ProjectionExpression: projection, ExpressionAttributeNames: names } } }));
      rows += out.Responses?.[rowTable()]?.length ?? 0;
      pending = (out.UnprocessedKeys?.[rowTable()]?.Keys ?? []) as Record<string, unknown>[];
    }
  }
  return rows;
}

/** Raw BatchWriteItem of items into the row table, 25 a call, 4 calls in flight (as the service's batch writes); returns ms. */
export async function rawBatchWrite(items: readonly Record<string, unknown>[]): Promise<number> {
  await ensureRowTable();
  const started = performance.now();
  await pMap(
    chunksOf(items, 25),
    async (part) => {
      let pending = part.map((Item) => ({ PutRequest: { Item } }));
      while (pending.length > 0) {
        const out = await dynamo().send(new BatchWriteCommand({ RequestItems: { [rowTable()]: pending } }));
        pending = (out.UnprocessedItems?.[rowTable()] ?? []) as typeof pending;
      }
    },
    { concurrency: 4 },
  );
  return performance.now() - started;
}
