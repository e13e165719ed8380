/**
 * Test-only views of the stored rows, to assert that a refused request changed nothing: every row of
 * this test file's directory table, as sorted JSON lines. (A Scan is fine here: the table holds
 * only this file's rows, and the service itself never scans.)
 */
import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import { config } from '../../shared/config';
import { dynamo } from '../../shared/store/clients';

const stable = (value: unknown): unknown => {
  if (value instanceof Set) return [...value].sort();
  if (Array.isArray(value)) return value.map(stable);
  if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).sort(([a], [b]) => a.localeCompare(b)).map(([k, v]) => [k, stable(v)]));
  return value;
};

/**
 * Every directory row but the id counters: a create refused by the store (a taken email) may have
 * drawn an id block first; ids are never reused, so a gap is no change anyone can see.
 */
export async function directoryRows(): Promise<string[]> {
  const rows: string[] = [];
  let start: Record<string, unknown> | undefined;
  do {
    const out = await dynamo().send(new ScanCommand({ TableName: config().directoryTable, ConsistentRead: true, ...(start ? { ExclusiveStartKey: start } : {}) }));
    for (const item of out.Items ?? []) if (!String(item.pk).startsWith('COUNTER#')) rows.push(JSON.stringify(stable(item)));
    start = out.LastEvaluatedKey;
  } while (start);
  return rows.sort();
}
