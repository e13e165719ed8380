/**
 * What the simulated devices were told: for every reading, the id an answer acknowledged it with
 * (an entry `201 Created` or `200 OK` of a batch answer the device saw), and every id any answer
 * named for it, seen or lost (two ids for one reading would be a second row). Also where each
 * batch's first post stands, for the retries that wait on it.
 */
import type { PlannedBatch } from './load-plan';

export interface ReadingRecord {
  patientId: number;
  uuid: string;
  /** The id of the first answer the device saw for it, if any. */
  acknowledged?: string;
  /** Ids named by any answer, lost ones included. */
  ids: Set<string>;
}

type FirstPost = 'in flight' | 'answered';

const ACKNOWLEDGING = /^(201|200) /;

export class LoadLedger {
  readonly readings = new Map<string, ReadingRecord>();
  private readonly firstPosts = new Map<PlannedBatch, FirstPost>();
  private readonly posted = new Set<PlannedBatch>();
  /** Readings sent, counting each time a batch is posted. */
  readingsSent = 0;
  /** Entries answered `503` inside a batch's `200` (not done before the deadline, or the store busy): sent again later. */
  entriesUnfinished = 0;

  /** The device's own post of the batch is being sent. */
  postingFirst(batch: PlannedBatch): void {
    this.firstPosts.set(batch, 'in flight');
    this.posted.add(batch);
    this.readingsSent += batch.uuids.length;
  }

  /** A retry (or a later re-post) of the batch is being sent. */
  postingAgain(batch: PlannedBatch): void {
    this.posted.add(batch);
    this.readingsSent += batch.uuids.length;
  }

  firstPost(batch: PlannedBatch): FirstPost | 'not sent' {
    return this.firstPosts.get(batch) ?? 'not sent';
  }

  /** The device's own post was answered (whether or not the device gets to see the answer). */
  firstPostAnswered(batch: PlannedBatch): void {
    this.firstPosts.set(batch, 'answered');
  }

  /**
   * Records an answer to a post of `batch`; `seen` when it reaches the device. Returns how many
   * of its entries were stored (201) and how many already were (200).
   */
  answer(batch: PlannedBatch, status: number, body: string, seen: boolean): { created: number; existing: number } {
    const tally = { created: 0, existing: 0 };
    if (status !== 200) return tally;
    const entries = (JSON.parse(body) as { entry?: Array<{ response: { status: string; location?: string } }> }).entry ?? [];
    entries.forEach((entry, i) => {
      if (entry.response.status.startsWith('503')) this.entriesUnfinished += 1;
      if (!ACKNOWLEDGING.test(entry.response.status)) return;
      if (entry.response.status.startsWith('201')) tally.created += 1;
      else tally.existing += 1;
      const id = entry.response.location?.split('/').pop();
      const record = this.record(batch, batch.uuids[i]!);
      if (id) record.ids.add(id);
      if (seen && id) record.acknowledged ??= id;
    });
    return tally;
  }

  /** Batches posted at least once whose readings the device has not all seen acknowledged. */
  unacknowledged(): PlannedBatch[] {
    return [...this.posted].filter((batch) => batch.uuids.some((uuid) => !this.record(batch, uuid).acknowledged));
  }

  private record(batch: PlannedBatch, uuid: string): ReadingRecord {
    const key = `${batch.patient.id}/${uuid}`;
    let record = this.readings.get(key);
    if (!record) {
      record = { patientId: batch.patient.id, uuid, ids: new Set() };
      this.readings.set(key, record);
    }
    return record;
  }
}
