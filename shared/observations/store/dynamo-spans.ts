/** The span statistics item of each patient (`#SPAN` in the patient's partition). */
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { batchGetAll } from '../../store/batch';
import { dynamo } from '../../store/clients';
import { observationKeys } from './dynamo-keys';
import { patientOfPk } from './block-keys';
import { table } from './dynamo-table';

/** A conditional update, idempotent; a refused one returns the larger span already stored. */
export async function raiseSpan(patientId: number, span: number): Promise<number> {
  try {
    await dynamo().send(
      new UpdateCommand({
        TableName: table(),
        Key: observationKeys.spanStats(patientId),
        UpdateExpression: 'SET maxSpan = :span',
        ConditionExpression: 'attribute_not_exists(maxSpan) OR maxSpan < :span',
        ExpressionAttributeValues: { ':span': span },
        ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
      }),
    );
    return span;
  } catch (e) {
    if (!(e instanceof ConditionalCheckFailedException)) throw e;
    return Number(e.Item?.maxSpan?.N ?? span);
  }
}

/** Strongly consistent, as every read of this table. The item also holds the patient's code set (layout 3), so it may have no span. */
export async function spans(patientIds: readonly number[]): Promise<Map<number, number>> {
  const items = await batchGetAll(table(), patientIds.map((p) => observationKeys.spanStats(p)));
  return new Map(items.filter((item) => item.maxSpan !== undefined).map((item) => [patientOfPk(item.pk), Number(item.maxSpan)]));
}
