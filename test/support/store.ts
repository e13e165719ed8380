/**
 * Test-only views of the stored rows, to assert that a refused request changed nothing: every row of
 * this test file's stores, as sorted JSON lines. A file runs either on the engines (its own tables,
 * read with a Scan: they hold only this file's rows, and the service itself never scans) or on the
 * in-memory twins (`test/setup/memory-stores.ts` hands them to `viewTwins`, and the views read what
 * the twins hold instead). Scans go through a client of the test's own, so they see the tables as
 * they are while a test has faults injected into, or scans forbidden on, the service's client.
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { ListObjectsV2Command } from '@aws-sdk/client-s3';
import { DynamoDBDocumentClient, ScanCommand } from '@aws-sdk/lib-dynamodb';
import { config } from '../../shared/config';
import type { MemoryStores, StoreSnapshot } from '../../shared/memory-stores';
import { s3 } from '../../shared/store/clients';
import { RATE_WINDOW_PREFIX } from '../../shared/store/directory-keys';
import { heldRecords, stableJson, type HeldRecord } from '../../shared/store/memory';

let twins: MemoryStores | undefined;

/** Makes the views read these twins instead of the tables: the file runs on them. */
export function viewTwins(stores: MemoryStores): void {
  twins = stores;
}

/** The twins the file runs on, if it runs on them. */
export const twinsInUse = (): MemoryStores | undefined => twins;

let rawTables: DynamoDBDocumentClient | undefined;

/** Every item of one of this file's tables (strongly consistent); only for files on the engines. */
export async function tableItems(tableName: string): Promise<Record<string, unknown>[]> {
  if (twins) throw new Error(`this file runs on the in-memory stores: it has no table ${tableName} to scan`);
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

/** Every row of a table that `keep` accepts, as sorted JSON lines. */
async function tableRows(tableName: string, keep: (item: Record<string, unknown>) => boolean = () => true): Promise<string[]> {
  return (await tableItems(tableName)).filter(keep).map(stableJson).sort();
}

/**
 * The records the twins hold from `part` on (a store, a part of one), as flat objects `{ kind,
 * key, ...record }` in a stable order, as a Scan shows a table's items: each carries the fields
 * of its record (a row's `id`, `patientId`, ...).
 */
export function twinRecords(part: object): Record<string, unknown>[] {
  const flat = ({ kind, key, record }: HeldRecord) => ({ kind, key, ...(record !== null && typeof record === 'object' ? record : { value: record }) });
  const lines = heldRecords(part).map((held) => ({ record: flat(held), line: stableJson(flat(held)) }));
  return lines.sort((a, b) => (a.line < b.line ? -1 : a.line > b.line ? 1 : 0)).map(({ record }) => record);
}

/** Lines of the twins' snapshot whose kind `skip` does not name. */
const linesBut = (lines: readonly string[], skip: readonly string[]) => lines.filter((line) => !skip.includes((JSON.parse(line) as [string])[0]));

/** The directory's lines of a twins' snapshot, with the OAuth records (they share its table). */
const twinDirectoryLines = ({ directory, oauth }: StoreSnapshot, options: { withoutSignIns?: boolean }) =>
  [...directory, ...linesBut(oauth, options.withoutSignIns ? ['signIns', 'passwordAttempts'] : [])].sort();

/**
 * Every directory row but the id counters and `/mcp`'s rate windows (bookkeeping: a request counted
 * is no record anyone reads back): a create refused by the store (a taken email) may have
 * drawn an id block first; ids are never reused, so a gap is no change anyone can see. The OAuth
 * records are directory rows (they share its table). `withoutSignIns` leaves out the failed
 * sign-ins and the attempts at the invitation's password page too (they are counted, by design).
 */
export async function directoryRows(options: { withoutSignIns?: boolean } = {}): Promise<string[]> {
  if (twins) return twinDirectoryLines(twins.snapshot(), options);
  const skipped = ['COUNTER#', RATE_WINDOW_PREFIX, ...(options.withoutSignIns ? ['LOGINTHROTTLE#', 'PASSWORDATTEMPTS#'] : [])];
  return tableRows(config().directoryTable, (item) => !skipped.some((prefix) => String(item.pk).startsWith(prefix)));
}

/** Keys and ETags of every object in a bucket (the auxiliary bodies by default). */
async function bucketObjects(bucket = config().auxBucket): Promise<string[]> {
  const objects: string[] = [];
  let token: string | undefined;
  do {
    const out = await (await s3()).send(new ListObjectsV2Command({ Bucket: bucket, ...(token ? { ContinuationToken: token } : {}) }));
    for (const o of out.Contents ?? []) objects.push(`${o.Key} ${o.ETag}`);
    token = out.NextContinuationToken;
  } while (token);
  return objects.sort();
}

/** Everything every store holds (directory without its counters, observations, auxiliary rows and bodies, export jobs and files), by store. */
export async function everyStoredRow(): Promise<Record<'directory' | 'observations' | 'auxiliary' | 'bodies' | 'exports', string[]>> {
  if (twins) {
    const snapshot = twins.snapshot();
    const { observations, auxiliary, bodies, exports } = snapshot;
    return { directory: twinDirectoryLines(snapshot, {}), observations, auxiliary, bodies, exports };
  }
  const [directory, observations, auxiliary, bodies, jobs, files] = await Promise.all([
    directoryRows(),
    tableRows(config().observationsTable),
    tableRows(config().auxTable),
    bucketObjects(),
    tableRows(config().exports.table),
    bucketObjects(config().exports.bucket),
  ]);
  return { directory, observations, auxiliary, bodies, exports: [...jobs, ...files].sort() };
}
