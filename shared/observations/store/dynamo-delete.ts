/**
 * Removing a patient's readings (with their id pointers, identifier claims and span statistics).
 * Key reads only: the patient's partition, page by page. Deleting is idempotent, so an interrupted
 * run is finished by running it again.
 */
import { batchWriteAll, type WriteRequest } from '../../store/batch';
import { observationKeys } from './dynamo-keys';
import type { ObservationIdentifier } from '../model';
import { patientItems } from './dynamo-reads';
import { table } from './dynamo-table';
import type { PageStart } from './port';
import { claimKey } from './rounds';

const PAGE = 500;

export async function deletePatient(patientId: number): Promise<number> {
  let deleted = 0;
  let start: PageStart | undefined;
  do {
    const page = await patientItems(patientId, PAGE, start);
    const requests: WriteRequest[] = page.items.flatMap((item) => [
      { DeleteRequest: { Key: observationKeys.pointer(item.id as number) } },
      ...((item.identifiers as ObservationIdentifier[] | undefined) ?? []).map((i) => ({ DeleteRequest: { Key: claimKey(i) } })),
      { DeleteRequest: { Key: { pk: item.pk, sk: item.sk } } },
    ]);
    const failed = await batchWriteAll(table(), requests);
    if (failed.length > 0) throw new Error(`could not delete ${failed.length} observation items of patient ${patientId}; run the deletion again`);
    deleted += page.items.length;
    start = page.next;
  } while (start);
  const stats = await batchWriteAll(table(), [{ DeleteRequest: { Key: observationKeys.spanStats(patientId) } }]);
  if (stats.length > 0) throw new Error(`could not delete the span statistics of patient ${patientId}`);
  return deleted;
}
