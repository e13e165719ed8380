/**
 * Reading the observations table: by id (the id pointer, then the row; both strongly consistent),
 * by row key, and one page of a key-condition Query on the patient's partition (base table or a
 * local index, strongly consistent). Nothing here scans.
 */
import { GetCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { batchGetAll } from '../../store/batch';
import { dynamo } from '../../store/clients';
import { holdsWholeItems, OBSERVATIONS } from '../../store/tables';
import { factsOf, fromItem, ROW_FIELDS, uploadedPayload, type ObservationItem } from './dynamo-items';
import { DATED_END, DATED_START, INDEX, observationKeys, readingsRange, type IndexName } from './dynamo-keys';
import type { ReadingFacts, ReadingKey, StoredObservation } from '../model';
import { table } from './dynamo-table';
import type { PageStart, ReadingsPage, ReadingsQuery } from './port';

/** The row a pointer leads to, if it carries the pointer's id (a pointer of an unused id leads to another row). */
function rowKeyOf(pointer: Record<string, unknown> | undefined) {
  return pointer ? observationKeys.observation(pointer.patientId as number, pointer.uuid as string) : undefined;
}

export async function readById(id: number): Promise<StoredObservation | undefined> {
  const pointer = await dynamo().send(new GetCommand({ TableName: table(), Key: observationKeys.pointer(id), ConsistentRead: true }));
  const key = rowKeyOf(pointer.Item);
  if (!key) return undefined;
  const row = await dynamo().send(new GetCommand({ TableName: table(), Key: key, ConsistentRead: true }));
  return row.Item && row.Item.id === id ? fromItem(row.Item) : undefined;
}

export async function readByIds(ids: readonly number[]): Promise<StoredObservation[]> {
  const wanted = new Set(ids);
  const pointers = await batchGetAll(table(), [...wanted].map((id) => observationKeys.pointer(id)));
  const rows = await batchGetAll(table(), pointers.map((p) => rowKeyOf(p)!));
  return rows.filter((r) => wanted.has(r.id as number)).map(fromItem);
}

export async function findReadings(keys: readonly ReadingKey[]): Promise<StoredObservation[]> {
  const items = await batchGetAll(table(), keys.map((k) => observationKeys.observation(k.patientId, k.uuid)));
  return items.map(fromItem);
}

interface RangeQuery {
  patientId: number;
  index: IndexName;
  from: string;
  to: string;
  ascending: boolean;
  /** Only these fields of each row; all when absent. */
  attributes?: readonly string[];
  /** Count only: no rows come back. */
  countOnly?: boolean;
}

/** One page of a key-condition Query on the patient's partition, through one of its local indexes. */
async function queryRange(q: RangeQuery, limit: number | undefined, start?: PageStart) {
  const { name, sortKey } = INDEX[q.index];
  const names: Record<string, string> = { '#pk': 'pk', '#sk': sortKey };
  const values: Record<string, unknown> = { ':pk': observationKeys.patientPk(q.patientId), ':from': q.from, ':to': q.to };
  let projection: string | undefined;
  // A count returns no fields (and DynamoDB refuses names the request does not use).
  if (q.attributes && !q.countOnly) {
    q.attributes.forEach((a, i) => (names[`#a${i}`] = a));
    projection = q.attributes.map((_, i) => `#a${i}`).join(', ');
  }
  const out = await dynamo().send(
    new QueryCommand({
      TableName: table(),
      IndexName: name,
      KeyConditionExpression: '#pk = :pk AND #sk BETWEEN :from AND :to',
      ExpressionAttributeNames: names,
      ExpressionAttributeValues: values,
      ScanIndexForward: q.ascending,
      ConsistentRead: true,
      ...(limit !== undefined ? { Limit: limit } : {}),
      // The page's start is the key DynamoDB named as the previous page's last.
      ...(start ? { ExclusiveStartKey: start as unknown as Record<string, unknown> } : {}),
      // A keys-only local index fetches the rest of each row from the table (strongly consistent).
      ...(q.countOnly
        ? { Select: 'COUNT' as const }
        : projection
          ? { ProjectionExpression: projection }
          : holdsWholeItems(OBSERVATIONS, name)
            ? {}
            : { Select: 'ALL_ATTRIBUTES' as const }),
    }),
  );
  return { items: (out.Items ?? []) as ObservationItem[], count: out.Count ?? 0, next: out.LastEvaluatedKey as PageStart | undefined };
}

const rangeOf = (q: ReadingsQuery): RangeQuery => ({ patientId: q.patientId, ascending: q.ascending, ...readingsRange(q) });

/** A page of readings, asking only for the fields a reading is made of (`ROW_FIELDS`). */
export async function readings(q: ReadingsQuery, limit: number | undefined, start?: PageStart): Promise<ReadingsPage> {
  const page = await queryRange({ ...rangeOf(q), attributes: ROW_FIELDS }, limit, start);
  return { readings: page.items.map(fromItem), next: page.next };
}

/** The fields a count tests (`ReadingFacts`): no payload, no key. */
const COUNT_FIELDS = ['id', 'patientId', 'codeId', 'deviceId', 'status', 'identifiers', 'effKind', 'effStart', 'effEnd', 'updatedSk', 'q'];
/** And the payload, for a test that reads it. */
const COUNT_FIELDS_WITH_PAYLOAD = [...COUNT_FIELDS, 'data'];

/** The facts a count tests, with the payload when it was read. */
function countedFacts(item: ObservationItem): ReadingFacts {
  const facts = factsOf(item);
  if (item.data !== undefined) facts.data = uploadedPayload(item.data);
  return facts;
}

/** A count: with Select COUNT when nothing is tested, else reading only the fields tested. */
export async function countReadings(q: ReadingsQuery, test?: (reading: ReadingFacts) => boolean, withPayload = false): Promise<number> {
  const range = rangeOf(q);
  const attributes = withPayload ? COUNT_FIELDS_WITH_PAYLOAD : COUNT_FIELDS;
  let n = 0;
  let start: PageStart | undefined;
  do {
    const page = await queryRange(test ? { ...range, attributes } : { ...range, countOnly: true }, undefined, start);
    n += test ? page.items.map(countedFacts).filter(test).length : page.count;
    start = page.next;
  } while (start);
  return n;
}

/** Every row of a patient (keys, id and identifiers), page by page: what deleting the patient removes. */
export const patientItems = (patientId: number, limit: number, start?: PageStart) =>
  queryRange({ patientId, index: 'byUpdated', from: DATED_START, to: DATED_END, ascending: true, attributes: ['pk', 'sk', 'id', 'identifiers'] }, limit, start);
