/**
 * The twin's rows: per patient by `header.uuid` (the row key), found by id too, handed out as
 * copies, and read one page at a time in an index's order by the rows' own index sort keys.
 */
import { copy, innerMap, keyPage, nestedEntries } from '../../store/memory';
import { uuidOf, type ObservationItem } from '../items';
import { INDEX } from '../keys';
import type { PageStart, PartitionQuery, RowsPage } from './port';

/** Where the next page starts: after the row with this sort key (sort keys end in the row's id, so they are unique). */
interface After {
  sortKey: string;
}

export function rowTable() {
  const byPatient = new Map<number, Map<string, ObservationItem>>();
  /** Id -> where its row is. */
  const byId = new Map<number, { patientId: number; uuid: string }>();

  return {
    get: (patientId: number, uuid: string) => byPatient.get(patientId)?.get(uuid),
    ofId(id: number) {
      const at = byId.get(id);
      return at && byPatient.get(at.patientId)?.get(at.uuid);
    },
    put(item: ObservationItem) {
      const patientId = item.patientId as number;
      innerMap(byPatient, patientId).set(uuidOf(item), copy(item));
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
      const inRange = [...(byPatient.get(q.patientId)?.values() ?? [])].filter((item) => (q.from === undefined || keyOf(item) >= q.from) && (q.to === undefined || keyOf(item) <= q.to));
      const { rows, last } = keyPage(inRange, keyOf, { descending: !q.ascending, after, limit });
      const next = last ? ({ sortKey: keyOf(last) } satisfies After as unknown as PageStart) : undefined;
      const shown = (item: ObservationItem) => copy(q.attributes ? Object.fromEntries(q.attributes.filter((a) => a in item).map((a) => [a, item[a]])) : item);
      return { items: q.countOnly ? [] : rows.map(shown), count: rows.length, next };
    },
    /** The rows by patient and uuid, and where each id leads, for a test's look (`holding`). */
    held: { readings: () => nestedEntries(byPatient), readingIds: () => byId },
  };
}
