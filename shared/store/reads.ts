/**
 * Key reads of any table: GetItem, and Query on one partition (optionally one sort-key prefix),
 * either following every page or one page at a time. Nothing here scans.
 */
import { GetCommand, QueryCommand, type QueryCommandInput } from '@aws-sdk/lib-dynamodb';
import { dynamo } from './clients';

export type Item = Record<string, unknown>;
/** A key of any table (its attribute names are the table's). */
export type Key = object;

export async function getItem(table: string, key: Key, consistent = true): Promise<Item | undefined> {
  const out = await dynamo().send(new GetCommand({ TableName: table, Key: key as Item, ConsistentRead: consistent }));
  return out.Item;
}

export interface QuerySpec {
  table: string;
  /** Partition key value. */
  pk: string;
  /** Only sort keys starting with this. */
  skPrefix?: string;
  /** An index; the base table when absent. */
  index?: string;
  /** Key attribute names (`pk` and `sk` when absent). */
  pkName?: string;
  skName?: string;
  /** Descending sort-key order. */
  descending?: boolean;
  /** Attributes to return (all when absent). */
  attributes?: readonly string[];
  /** Strongly consistent (the default); a global index cannot be, so the caller says `false` for one. */
  consistent?: boolean;
}

function queryInput(spec: QuerySpec): QueryCommandInput {
  const names: Record<string, string> = { '#pk': spec.pkName ?? 'pk' };
  const values: Record<string, unknown> = { ':pk': spec.pk };
  let condition = '#pk = :pk';
  if (spec.skPrefix !== undefined) {
    names['#sk'] = spec.skName ?? 'sk';
    values[':sk'] = spec.skPrefix;
    condition += ' AND begins_with(#sk, :sk)';
  }
  const input: QueryCommandInput = {
    TableName: spec.table,
    KeyConditionExpression: condition,
    ExpressionAttributeNames: names,
    ExpressionAttributeValues: values,
    ScanIndexForward: !spec.descending,
    ...(spec.index ? { IndexName: spec.index } : {}),
    ...(spec.consistent === false ? {} : { ConsistentRead: true }),
  };
  if (spec.attributes) {
    spec.attributes.forEach((a, i) => (names[`#a${i}`] = a));
    input.ProjectionExpression = spec.attributes.map((_, i) => `#a${i}`).join(', ');
  }
  return input;
}

export interface QueryPage {
  items: Item[];
  /** Where the next page starts (absent after the last page): the key of its last item. */
  next?: Item;
}

/** One page of a partition: at most `limit` items (DynamoDB's own page size when absent), after `start`. */
export async function queryPage(spec: QuerySpec, page: { limit?: number; start?: Key } = {}): Promise<QueryPage> {
  const out = await dynamo().send(
    new QueryCommand({ ...queryInput(spec), ...(page.limit ? { Limit: page.limit } : {}), ...(page.start ? { ExclusiveStartKey: page.start as Item } : {}) }),
  );
  return { items: out.Items ?? [], ...(out.LastEvaluatedKey ? { next: out.LastEvaluatedKey } : {}) };
}

/** Every item of one partition (optionally one sort-key prefix), following the pages. */
export async function queryAll(spec: QuerySpec): Promise<Item[]> {
  const items: Item[] = [];
  let start: Item | undefined;
  do {
    const page = await queryPage(spec, start ? { start } : {});
    items.push(...page.items);
    start = page.next;
  } while (start);
  return items;
}
