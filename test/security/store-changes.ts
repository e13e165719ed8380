/** What changed between two snapshots of the stores, line by line (readable where a deep diff of every row would not be). */
import type { everyStoredRow } from '../support/store';

type Snapshot = Awaited<ReturnType<typeof everyStoredRow>>;

export function storeChanges(before: Snapshot, after: Snapshot): string[] {
  const changes: string[] = [];
  for (const store of Object.keys(before) as Array<keyof Snapshot>) {
    const was = new Set(before[store]);
    const now = new Set(after[store]);
    for (const row of now) if (!was.has(row)) changes.push(`${store} + ${row}`);
    for (const row of was) if (!now.has(row)) changes.push(`${store} - ${row}`);
  }
  return changes;
}
