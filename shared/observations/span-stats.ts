/**
 * The longest effective period stored per patient. The local indexes order rows by effective
 * START, but "ends after X" (`date=ge`, `gt`, `ap`) is a condition on the end. Knowing that no row
 * of the patient spans more than W, such a search becomes the key condition `start >= X - W` plus
 * an exact test of each row read.
 *
 * The value only grows and is rounded up to a power of two (so it changes a few times in a
 * patient's life). An upload raises it BEFORE it writes the rows that need it (a conditional
 * update, idempotent), so a reader that sees a row always sees a span at least as long as the
 * row's. A process remembers what it has raised, so the hot path costs no extra write.
 */
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { config } from '../config';
import { batchGetAll } from '../store/batch';
import { dynamo } from '../store/clients';
import type { EffectiveTime } from '../omh/effective-time';
import { observationKeys } from './keys';

/** Width of a row's effective time as a half-open range: at least 1 ms (an instant). */
export function spanOf(effective: EffectiveTime | undefined): number {
  return effective ? Math.max(1, effective.end - effective.start) : 1;
}

/** The power of two at or above a span, so the stored value changes rarely. */
export function spanBucket(span: number): number {
  return 2 ** Math.ceil(Math.log2(Math.max(1, span)));
}

/** Spans known to be stored per patient in this process (never larger than what is stored). */
const known = new Map<number, number>();
const KNOWN_LIMIT = 50_000;

function remember(patientId: number, span: number) {
  if (known.size >= KNOWN_LIMIT) known.clear();
  known.set(patientId, Math.max(span, known.get(patientId) ?? 1));
}

/** Makes sure the stored span of each patient is at least the given one. */
export async function raiseSpans(spans: ReadonlyMap<number, number>): Promise<void> {
  await Promise.all(
    [...spans].map(async ([patientId, span]) => {
      const bucket = spanBucket(span);
      if (bucket <= 1 || (known.get(patientId) ?? 1) >= bucket) return;
      try {
        await dynamo().send(
          new UpdateCommand({
            TableName: config().observationsTable,
            Key: observationKeys.spanStats(patientId),
            UpdateExpression: 'SET maxSpan = :span',
            ConditionExpression: 'attribute_not_exists(maxSpan) OR maxSpan < :span',
            ExpressionAttributeValues: { ':span': bucket },
            ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
          }),
        );
        remember(patientId, bucket);
      } catch (e) {
        if (!(e instanceof ConditionalCheckFailedException)) throw e;
        remember(patientId, Number(e.Item?.maxSpan?.N ?? bucket));
      }
    }),
  );
}

/** The stored span per patient (1 ms, an instant, when none is stored); strongly consistent. */
export async function storedSpans(patientIds: readonly number[]): Promise<Map<number, number>> {
  const out = new Map<number, number>(patientIds.map((p) => [p, 1]));
  const items = await batchGetAll(config().observationsTable, patientIds.map((p) => observationKeys.spanStats(p)));
  for (const item of items) out.set(Number(String(item.pk).slice(2)), Number(item.maxSpan));
  return out;
}

/** The span this process knows to be stored for a patient (at least; 1 ms when it knows none). */
export function knownSpan(patientId: number): number {
  return known.get(patientId) ?? 1;
}

/** Forget what this process knows (tests that delete rows behind its back). */
export function forgetKnownSpans(): void {
  known.clear();
}
