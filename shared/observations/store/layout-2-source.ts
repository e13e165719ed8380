/**
 * The observations table of an earlier layout (2, or 1: the same keys and indexes, every index a
 * full copy, payloads as text), as the move to layout 3 reads it: a row per reading
 * (`P#<patient>` / `U#<uuid>`, codec in `dynamo-items.ts`, keys in `dynamo-keys.ts`), a patient's
 * rows in order of last update through the `byUpdated` local index, strongly consistent, and the
 * patient's span statistics and day summaries beside them. Id pointers and the marker of the
 * values migration are never read: layout 3 has its own ways to a reading.
 */
import { getItem, queryAll, queryPage, type Item } from '../../store/reads';
import type { StoredObservation } from '../model';
import { fromItem, lastUpdatedOf, ROW_FIELDS, uuidOf } from './dynamo-items';
import { idOfUpdatedSortKey, INDEX, observationKeys } from './dynamo-keys';
import { DAYS } from './dynamo-summaries';

/** A row's keys as the index holds them: no row fetched. */
export interface RowKeys {
  id: number;
  uuid: string;
  lastUpdated: string;
}

const byUpdated = (table: string, patientId: number, attributes: readonly string[]) => ({ table, pk: observationKeys.patientPk(patientId), index: INDEX.byUpdated.name, attributes });

/**
 * One page of a patient's readings in order of last update, then id (an upload's readings
 * together), whole: the index holds keys only, so DynamoDB fetches each row's fields from the table,
 * as the layout-2 adapter read them. `next` is the index key of the page's last row.
 */
export async function readingsByUpdate(table: string, patientId: number, limit: number, start?: Item): Promise<{ readings: StoredObservation[]; next?: Item }> {
  const page = await queryPage(byUpdated(table, patientId, ROW_FIELDS), { limit, ...(start ? { start } : {}) });
  return { readings: page.items.map(fromItem), ...(page.next ? { next: page.next } : {}) };
}

/** One page of the keys of a patient's readings in the same order, from the index entries alone. */
export async function keysByUpdate(table: string, patientId: number, limit: number, start?: Item): Promise<{ rows: RowKeys[]; next?: Item }> {
  const page = await queryPage(byUpdated(table, patientId, ['sk', INDEX.byUpdated.sortKey]), { limit, ...(start ? { start } : {}) });
  const rows = page.items.map((item) => ({ id: idOfUpdatedSortKey(String(item[INDEX.byUpdated.sortKey])), uuid: uuidOf(item), lastUpdated: lastUpdatedOf(item) }));
  return { rows, ...(page.next ? { next: page.next } : {}) };
}

/** The patient's stored span (the longest effective period), if any. */
export async function storedSpan(table: string, patientId: number): Promise<number | undefined> {
  const item = await getItem(table, observationKeys.spanStats(patientId));
  return item?.maxSpan === undefined ? undefined : Number(item.maxSpan);
}

/** Every day summary item of the patient, as stored. */
export const daySummaryItems = (table: string, patientId: number): Promise<Item[]> => queryAll({ table, pk: observationKeys.patientPk(patientId), skPrefix: DAYS });

/** A Scan filter keeping what belongs to a patient's partition (rows, span, summaries): the patients to move. */
export const PATIENT_ITEMS = { expression: 'begins_with(#pk, :patient)', names: { '#pk': 'pk' }, values: { ':patient': observationKeys.patientPk(0).slice(0, 2) } };

/** A Scan filter keeping the identifier claims. */
export const IDENTIFIER_CLAIMS = { expression: 'begins_with(#pk, :claim)', names: { '#pk': 'pk' }, values: { ':claim': observationKeys.identifier('', '').pk.slice(0, 2) } };

/** The patient whose partition a key is in. */
export const patientOfKey = (pk: unknown): number => Number(String(pk).slice(2));
