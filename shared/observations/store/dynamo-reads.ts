/**
 * Reading the observations table: by id (the id pointer, then the row; both strongly consistent),
 * by row key, and one page of a key-condition Query on the patient's partition (base table or a
 * local index, strongly consistent). Nothing here scans.
 */
import { GetCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { batchGetAll } from '../../store/batch';
import { dynamo } from '../../store/clients';
import { holdsWholeItems, OBSERVATIONS } from '../../store/tables';
import { fromItem, type ObservationItem } from '../items';
import { INDEX, observationKeys } from '../keys';
import type { ReadingKey, StoredObservation } from '../model';
import { table } from './dynamo-table';
import type { PageStart, PartitionQuery, RowsPage } from './port';

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

export async function patientRows(q: PartitionQuery, limit: number | undefined, start?: PageStart): Promise<RowsPage> {
  const { name, sortKey } = INDEX[q.index];
  const names: Record<string, string> = { '#pk': 'pk' };
  const values: Record<string, unknown> = { ':pk': observationKeys.patientPk(q.patientId) };
  let condition = '#pk = :pk';
  if (q.from !== undefined || q.to !== undefined) {
    names['#sk'] = sortKey;
    if (q.from !== undefined && q.to !== undefined) {
      condition += ' AND #sk BETWEEN :from AND :to';
      Object.assign(values, { ':from': q.from, ':to': q.to });
    } else if (q.from !== undefined) {
      condition += ' AND #sk >= :from';
      values[':from'] = q.from;
    } else {
      condition += ' AND #sk <= :to';
      values[':to'] = q.to;
    }
  }
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
      KeyConditionExpression: condition,
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
