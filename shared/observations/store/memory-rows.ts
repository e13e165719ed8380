/**
 * The twin's rows: per patient by `header.uuid` (the row key), found by id too, handed out as
 * copies, and read one page at a time in an index's order by the rows' own index sort keys.
 */
import type { ObservationItem } from '../items';
import { INDEX } from '../keys';
import type { PageStart, PartitionQuery, RowsPage } from './port';

/**
 * A value as a write to the table and a read back leave it: fields without a value left out (the
 * DynamoDB client drops them), bytes copied, nothing shared with the caller.
 */
export function copyOf<T>(value: T): T {
  if (value instanceof Uint8Array) return new Uint8Array(value) as T;
  if (Array.isArray(value)) return value.map(copyOf) as T;
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).flatMap(([k, v]) => (v === undefined ? [] : [[k, copyOf(v)]]))) as T;
  }
  return value;
}

/** Where the next page starts: after the row with this sort key (sort keys end in the row's id, so they are unique). */
interface After {
  sortKey: string;
}

export function rowTable() {
  const byPatient = new Map<number, Map<string, ObservationItem>>();
  /** Id -> where its row is. */
  const byId = new Map<number, { patientId: number; uuid: string }>();
  const uuidOf = (item: ObservationItem) => String(item.sk).slice(2);

  return {
    get: (patientId: number, uuid: string) => byPatient.get(patientId)?.get(uuid),
    ofId(id: number) {
      const at = byId.get(id);
      return at && byPatient.get(at.patientId)?.get(at.uuid);
    },
    put(item: ObservationItem) {
      const patientId = item.patientId as number;
      const rows = byPatient.get(patientId) ?? new Map<string, ObservationItem>();
      rows.set(uuidOf(item), copyOf(item));
      byPatient.set(patientId, rows);
      byId.set(item.id as number, { patientId, uuid: uuidOf(item) });
    },
    /** Removes the patient's rows; returns them. */
    removePatient(patientId: number): ObservationItem[] {
      const rows = [...(byPatient.get(patientId)?.values() ?? [])];
      byPatient.delete(patientId);
      for (const row of rows) byId.delete(row.id as number);
      return rows;
    },
    page(q: PartitionQuery, limit: number | undefined, start?: PageStart): RowsPage {
      const { sortKey } = INDEX[q.index];
      const keyOf = (item: ObservationItem) => item[sortKey] as string;
      const after = (start as unknown as After | undefined)?.sortKey;
      // Sort keys are ASCII, so text order here is DynamoDB's byte order.
      const follows = (key: string) => after === undefined || (q.ascending ? key > after : key < after);
      const matching = [...(byPatient.get(q.patientId)?.values() ?? [])]
        .filter((item) => (q.from === undefined || keyOf(item) >= q.from) && (q.to === undefined || keyOf(item) <= q.to) && follows(keyOf(item)))
        .sort((a, b) => (keyOf(a) < keyOf(b) ? -1 : 1) * (q.ascending ? 1 : -1));
      const rows = limit === undefined ? matching : matching.slice(0, limit);
      // As DynamoDB: a page that stopped at its limit names where the next starts, even when none follows.
      const last = rows.at(-1);
      const next = limit !== undefined && rows.length === limit && last ? ({ sortKey: keyOf(last) } satisfies After as unknown as PageStart) : undefined;
      const shown = (item: ObservationItem) => copyOf(q.attributes ? Object.fromEntries(q.attributes.filter((a) => a in item).map((a) => [a, item[a]])) : item);
      return { items: q.countOnly ? [] : rows.map(shown), count: rows.length, next };
    },
  };
}
