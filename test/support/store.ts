/**
 * Test-only views of the stored rows, to assert that a refused request changed nothing: every row of
 * this test file's tables, as sorted JSON lines. (A Scan is fine here: the tables hold only this
 * file's rows, and the service itself never scans.) Scans go through a client of the test's own, so
 * they see the tables as they are while a test has faults injected into, or scans forbidden on, the
 * service's client.
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { ListObjectsV2Command } from '@aws-sdk/client-s3';
import { DynamoDBDocumentClient, ScanCommand } from '@aws-sdk/lib-dynamodb';
import { config } from '../../shared/config';
import { s3 } from '../../shared/store/clients';

let rawTables: DynamoDBDocumentClient | undefined;

/** Every item of one of this file's tables (strongly consistent). */
export async function tableItems(tableName: string): Promise<Record<string, unknown>[]> {
  rawTables ??= DynamoDBDocumentClient.from(new DynamoDBClient({}));
  const items: Record<string, unknown>[] = [];
  let start: Record<string, unknown> | undefined;
  do {
    const out = await rawTables.send(new ScanCommand({ TableName: tableName, ConsistentRead: true, ...(start ? { ExclusiveStartKey: start } : {}) }));
    items.push(...(out.Items ?? []));
    start = out.LastEvaluatedKey;
  } while (start);
  return items;
}

const stable = (value: unknown): unknown => {
  if (value instanceof Set) return [...value].sort();
  if (Array.isArray(value)) return value.map(stable);
  if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).sort(([a], [b]) => a.localeCompare(b)).map(([k, v]) => [k, stable(v)]));
  return value;
};

/** Every row of a table that `keep` accepts, as sorted JSON lines. */
async function tableRows(tableName: string, keep: (item: Record<string, unknown>) => boolean = () => true): Promise<string[]> {
  return (await tableItems(tableName)).filter(keep).map((item) => JSON.stringify(stable(item))).sort();
}

/**
 * Every directory row but the id counters: a create refused by the store (a taken email) may have
 * drawn an id block first; ids are never reused, so a gap is no change anyone can see. Rows under
 * other key prefixes named in `except` are left out too (failed sign-ins are counted, by design).
 */
export function directoryRows(except: readonly string[] = []): Promise<string[]> {
  const skipped = ['COUNTER#', ...except];
  return tableRows(config().directoryTable, (item) => !skipped.some((prefix) => String(item.pk).startsWith(prefix)));
}

/** Keys and ETags of every object in the auxiliary bodies bucket. */
async function bucketObjects(): Promise<string[]> {
  const objects: string[] = [];
  let token: string | undefined;
  do {
    const out = await (await s3()).send(new ListObjectsV2Command({ Bucket: config().auxBucket, ...(token ? { ContinuationToken: token } : {}) }));
    for (const o of out.Contents ?? []) objects.push(`${o.Key} ${o.ETag}`);
    token = out.NextContinuationToken;
  } while (token);
  return objects.sort();
}

/** Everything every store holds (directory without its counters, observations, auxiliary rows and bodies), by store. */
export async function everyStoredRow(): Promise<Record<'directory' | 'observations' | 'auxiliary' | 'bodies', string[]>> {
  const [directory, observations, auxiliary, bodies] = await Promise.all([
    directoryRows(),
    tableRows(config().observationsTable),
    tableRows(config().auxTable),
    bucketObjects(),
  ]);
  return { directory, observations, auxiliary, bodies };
}
