/**
 * What the simulated devices send in one upload phase of a load run, decided before it starts:
 *
 * - every device posts `batches` batch Bundles of `readings` heart-rate readings, in order, over
 *   its own connection, each batch once;
 * - every other batch is retried (the first, the third, ...; or every third, as a storm is run), and the
 *   retries alternate between two kinds, so that half of them re-send a batch already stored and half
 *   follow a lost answer (or all of them follow a lost answer):
 *   - `resend`: the device got its answer and posts the batch again (an app that did not record
 *     the answer); the retry waits for that answer, so every reading is stored and answers 200;
 *   - `lost`: the answer to the batch's post never reaches the device (the connection dropped, the
 *     phone timed out) and the batch is posted again while the first post may still be in flight,
 *     as an impatient retry is: the two race in the store, and only the retry's answer counts.
 *   Retries are posted by connections of their own (`load-traffic.ts`), which pick them as they
 *   become due.
 */
import { randomUUID } from 'node:crypto';
import type { Patient } from '../../shared/directory/model';
import { LOAD_CODE, type Fleet } from './load-fleet';
import { batchOf, observation } from './observations';

export interface PlannedBatch {
  /** `<phase>/<device>/<batch>`, for messages. */
  name: string;
  patient: Patient & { token: string };
  /** `header.uuid` of each reading, in entry order. */
  uuids: string[];
  /** The request body, built once. */
  body: string;
  retry?: 'resend' | 'lost';
}

export interface UploadPlan {
  /** Per device, its batches in the order its connection posts them. */
  devices: PlannedBatch[][];
  /** The batches to post a second time. */
  retries: PlannedBatch[];
}

export interface PlanOptions {
  phase: string;
  batches: number;
  readings: number;
  /** Every how many batches one is retried (from the first): 2 by default. */
  retryEvery?: number;
  /** `alternate` (default): retries alternate between a re-send after the answer and a race after a lost one; `raced`: every retry races. */
  retries?: 'alternate' | 'raced';
  /** Effective time of the first reading; each later one a minute on. */
  from: number;
}

export function planUploads(fleet: Fleet, options: PlanOptions): UploadPlan {
  const retries: PlannedBatch[] = [];
  const devices = fleet.patients.map((patient, d) =>
    Array.from({ length: options.batches }, (_, k) => {
      const batch = plannedBatch(fleet, patient, `${options.phase}/${d}/${k}`, options, k);
      if (k % (options.retryEvery ?? 2) === 0) {
        batch.retry = options.retries === 'raced' || retries.length % 2 === 1 ? 'lost' : 'resend';
        retries.push(batch);
      }
      return batch;
    }),
  );
  return { devices, retries };
}

function plannedBatch(fleet: Fleet, patient: PlannedBatch['patient'], name: string, options: PlanOptions, k: number): PlannedBatch {
  const uuids = Array.from({ length: options.readings }, () => randomUUID());
  const who = { patient: patient as never, device: fleet.device };
  const resources = uuids.map((uuid, i) => observation(who, { code: LOAD_CODE, uuid, at: options.from + (k * options.readings + i) * 60_000, form: 'date_time' }));
  return { name, patient, uuids, body: JSON.stringify(batchOf(resources)) };
}
