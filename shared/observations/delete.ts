/**
 * Removing a patient's observations (with their id pointers, identifier claims and span
 * statistics), for the deletion of a patient. Key reads only: the patient's partition, page by
 * page. Deleting is idempotent, so an interrupted run is finished by running it again.
 */
import { config } from '../config';
import { batchWriteAll, type WriteRequest } from '../store/batch';
import { observationKeys } from './keys';
import type { ObservationIdentifier } from './model';
import { queryPartition } from './read';
import { forgetKnownSpans } from './span-stats';

const PAGE = 500;

/** Deletes every observation of the patient; returns how many rows were deleted. */
export async function deletePatientObservations(patientId: number): Promise<number> {
  const table = config().observationsTable;
  let deleted = 0;
  let start: Record<string, unknown> | undefined;
  do {
    const page = await queryPartition(
      { patientId, index: 'byUpdated', ascending: true, attributes: ['pk', 'sk', 'id', 'identifiers'] },
      PAGE,
      start,
    );
    const requests: WriteRequest[] = page.items.flatMap((item) => [
      { DeleteRequest: { Key: observationKeys.pointer(item.id as number) } },
      ...((item.identifiers as ObservationIdentifier[] | undefined) ?? []).map((i) => ({ DeleteRequest: { Key: observationKeys.identifier(i.system ?? '', i.value) } })),
      { DeleteRequest: { Key: { pk: item.pk, sk: item.sk } } },
    ]);
    const failed = await batchWriteAll(table, requests);
    if (failed.length > 0) throw new Error(`could not delete ${failed.length} observation items of patient ${patientId}; run the deletion again`);
    deleted += page.items.length;
    start = page.next;
  } while (start);
  const stats = await batchWriteAll(table, [{ DeleteRequest: { Key: observationKeys.spanStats(patientId) } }]);
  if (stats.length > 0) throw new Error(`could not delete the span statistics of patient ${patientId}`);
  forgetKnownSpans();
  return deleted;
}
