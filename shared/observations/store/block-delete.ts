/**
 * Removing a patient's readings from the blocks layout: every item of the patient's partition but
 * the day summaries (blocks, uuid claims, the update log, span statistics and code set), the id
 * ranges the log leads to, and the identifier claims the blocks name. Key reads only; deleting is
 * idempotent, so an interrupted run is finished by running it again (the log goes last, as it
 * leads to the ranges).
 */
import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { batchDeleteAll } from '../../store/batch';
import { dynamo } from '../../store/clients';
import { factsOfBlock, type BlockItem } from './block-items';
import { blockKeys } from './block-keys';
import { logUpdated, pointedIds, pointerItems } from './block-pointers';
import { forgetKnownCodes } from './block-write';
import { SUMMARY_ITEMS } from './dynamo-summaries';
import { table } from './dynamo-table';
import { claimKey } from './rounds';

/** The day summaries and hour digests: the summary store removes them. */
const isSummary = (sk: string) => sk.startsWith(SUMMARY_ITEMS);

export async function deletePatient(patientId: number): Promise<number> {
  const pk = blockKeys.patientPk(patientId);
  let deleted = 0;
  const logs: BlockItem[] = [];
  let start: Record<string, unknown> | undefined;
  do {
    const page = await dynamo().send(
      new QueryCommand({ TableName: table(), KeyConditionExpression: 'pk = :pk', ExpressionAttributeValues: { ':pk': pk }, ProjectionExpression: 'pk, sk, n, c, u, st, x', ConsistentRead: true, ExclusiveStartKey: start }),
    );
    const items = (page.Items ?? []) as BlockItem[];
    const keys: Array<{ pk: string; sk: string }> = [];
    for (const item of items) {
      const sk = String(item.sk);
      if (isSummary(sk)) continue;
      if (sk.startsWith(blockKeys.logPrefix)) {
        logs.push(item);
        continue;
      }
      if (sk.startsWith('B#')) {
        const facts = factsOfBlock(item, patientId);
        deleted += facts.length;
        for (const f of facts) for (const identifier of f.identifiers) keys.push(claimKey(identifier));
      }
      keys.push({ pk, sk });
    }
    await batchDeleteAll(table(), keys);
    start = page.LastEvaluatedKey;
  } while (start);
  // The ranges an upload wrote are those its log item's ids make (the same runs), then the log itself.
  const ranges = pointerItems(logs.flatMap((log) => pointedIds(log).map(({ id, ref }) => ({ id, ref, patientId, lastUpdated: logUpdated(log) })))).filter((item) => String(item.pk).startsWith('R#'));
  await batchDeleteAll(table(), ranges.map(({ pk, sk }) => ({ pk: String(pk), sk: String(sk) })));
  await batchDeleteAll(table(), logs.map(({ sk }) => ({ pk, sk: String(sk) })));
  forgetKnownCodes();
  return deleted;
}
