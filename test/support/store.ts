/**
 * Test-only views of the stored rows, to assert that a refused request changed nothing: every row of
 * this test file's tables, as sorted JSON lines. (A Scan is fine here: the tables hold only this
 * file's rows, and the service itself never scans.)
 */
import { ListObjectsV2Command } from '@aws-sdk/client-s3';
import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import { config } from '../../shared/config';
import { dynamo, s3 } from '../../shared/store/clients';

const stable = (value: unknown): unknown => {
  if (value instanceof Set) return [...value].sort();
  if (Array.isArray(value)) return value.map(stable);
  if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).sort(([a], [b]) => a.localeCompare(b)).map(([k, v]) => [k, stable(v)]));
  return value;
};

/** Every row of a table that `keep` accepts, as sorted JSON lines. */
async function tableRows(tableName: string, keep: (item: Record<string, unknown>) => boolean = () => true): Promise<string[]> {
  const rows: string[] = [];
  let start: Record<string, unknown> | undefined;
  do {
    const out = await dynamo().send(new ScanCommand({ TableName: tableName, ConsistentRead: true, ...(start ? { ExclusiveStartKey: start } : {}) }));
    for (const item of out.Items ?? []) if (keep(item)) rows.push(JSON.stringify(stable(item)));
    start = out.LastEvaluatedKey;
  } while (start);
  return rows.sort();
}

/**
 * Every directory row but the id counters: a create refused by the store (a taken email) may have
 * drawn an id block first; ids are never reused, so a gap is no change anyone can see.
 */
export function directoryRows(): Promise<string[]> {
  return tableRows(config().directoryTable, (item) => !String(item.pk).startsWith('COUNTER#'));
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
