/**
 * The count after a load run, against the store itself: the readings the devices were told are
 * stored must be exactly the rows stored for their patients, each under the one id every answer
 * named for it.
 */
import pMap from 'p-map';
import { readReadings } from '../../shared/observations/read';
import type { PageStart } from '../../shared/observations/store/port';
import type { LoadLedger } from './load-ledger';

export interface LoadCount {
  /** Readings acknowledged to the devices. */
  acknowledged: number;
  /** Rows stored for the devices' patients. */
  stored: number;
  /** Acknowledged, yet not stored (`patient/uuid`). */
  lost: string[];
  /** Stored, yet never acknowledged to the device. */
  unacknowledged: string[];
  /** Readings that answers named with more than one id, stored under another id than answered, or stored more than once. */
  duplicates: string[];
}

const PAGE = 1000;

/**
 * `uuid -> id` of every reading stored for the patient (page by page, in update order); a uuid
 * stored under several ids maps to them all, joined by commas (a duplicate).
 */
export async function storedReadings(patientId: number): Promise<Map<string, string>> {
  const rows = new Map<string, string>();
  let start: PageStart | undefined;
  do {
    const page = await readReadings({ patientId, order: 'updated', ascending: true, time: {} }, PAGE, start);
    for (const reading of page.readings) {
      const held = rows.get(reading.uuid);
      const id = String(reading.id);
      rows.set(reading.uuid, held === undefined || held.split(',').includes(id) ? (held ?? id) : `${held},${id}`);
    }
    start = page.next;
  } while (start);
  return rows;
}

export async function countAgainstStore(ledger: LoadLedger, patientIds: readonly number[]): Promise<LoadCount> {
  const stored = new Map(await pMap(patientIds, async (id) => [id, await storedReadings(id)] as const, { concurrency: 8 }));
  const count: LoadCount = { acknowledged: 0, stored: 0, lost: [], unacknowledged: [], duplicates: [] };
  for (const record of ledger.readings.values()) {
    const key = `${record.patientId}/${record.uuid}`;
    const row = stored.get(record.patientId)?.get(record.uuid);
    if (record.acknowledged) {
      count.acknowledged += 1;
      if (!row) count.lost.push(key);
    }
    if (record.ids.size > 1 || (row && (row.includes(',') || (record.ids.size > 0 && !record.ids.has(row))))) count.duplicates.push(key);
  }
  for (const [patientId, rows] of stored) {
    count.stored += rows.size;
    for (const uuid of rows.keys()) {
      if (!ledger.readings.get(`${patientId}/${uuid}`)?.acknowledged) count.unacknowledged.push(`${patientId}/${uuid}`);
    }
  }
  return count;
}
