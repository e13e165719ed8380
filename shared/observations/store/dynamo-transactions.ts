/**
 * Readings with identifiers go in TransactWriteItems of up to 100 actions: the row's conditional
 * put and one claim per identifier, conditional on being free, so DynamoDB refuses a second holder
 * of an identifier across requests and processes, and the claims commit with the row or not at
 * all. The cancellation reasons name the actions that failed and return the existing items
 * (`ALL_OLD`). The actions of a cancelled transaction that did not fail are retried.
 */
import { createHash } from 'node:crypto';
import { TransactionCanceledException, type CancellationReason } from '@aws-sdk/client-dynamodb';
import { TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import { PASSING_CANCELLATIONS } from '../../store/busy';
import { dynamo } from '../../store/clients';
import { backoff, isRetryable, MAX_ATTEMPTS } from '../../store/retry';
import { rootLogger } from '../../telemetry/logger';
import { fromItem } from './dynamo-items';
import type { Pending } from './dynamo-pending';
import { table } from './dynamo-table';
import { storeBusy, storeRefused, type WriteOutcome } from './port';

/** DynamoDB's limits: 100 actions and 4 MB a transaction (kept under with room). */
const MAX_ACTIONS = 100;
const MAX_TRANSACTION_BYTES = 3_500_000;

export function groupForTransactions(round: Pending[]): Pending[][] {
  const groups: Pending[][] = [];
  let current: Pending[] = [];
  let actions = 0;
  let bytes = 0;
  for (const p of round) {
    if (current.length > 0 && (actions + p.actions.length > MAX_ACTIONS || bytes + p.bytes > MAX_TRANSACTION_BYTES)) {
      groups.push(current);
      current = [];
      actions = 0;
      bytes = 0;
    }
    current.push(p);
    actions += p.actions.length;
    bytes += p.bytes;
  }
  if (current.length > 0) groups.push(current);
  return groups;
}

/**
 * Same actions, same token: a transaction the SDK resends after a lost answer is applied once.
 * Tokens are remembered per account and region, so the table is part of it (ids repeat across
 * deployments that share an account).
 */
function requestToken(group: readonly Pending[]): string {
  const actions = group.map((p) => `${p.observation.id}:${p.observation.patientId}:${p.observation.uuid}`).join(',');
  return createHash('sha256').update(`${table()}|${actions}`).digest('base64url').slice(0, 36);
}

export async function runTransaction(group: Pending[], outcomes: WriteOutcome[]): Promise<void> {
  let remaining = group;
  let fruitless = 0;
  while (remaining.length > 0) {
    if (fruitless >= MAX_ATTEMPTS) {
      for (const p of remaining) outcomes[p.index] = storeBusy();
      return;
    }
    if (fruitless > 0) await backoff(fruitless);
    try {
      await dynamo().send(
        new TransactWriteCommand({ TransactItems: remaining.flatMap((p) => p.actions), ClientRequestToken: requestToken(remaining) }),
      );
      for (const p of remaining) outcomes[p.index] = { kind: 'created', observation: p.observation };
      return;
    } catch (e) {
      if (e instanceof TransactionCanceledException && e.CancellationReasons) {
        const retry = settleCancelled(remaining, e.CancellationReasons, outcomes);
        // Settling some readings is progress; only a round that settled none counts towards giving up.
        fruitless = retry.length === remaining.length ? fruitless + 1 : 0;
        remaining = retry;
      } else if (isRetryable(e)) {
        fruitless += 1;
      } else {
        rootLogger().error('observation transaction refused', e instanceof Error ? e : String(e));
        for (const p of remaining) outcomes[p.index] = storeRefused();
        return;
      }
    }
  }
}

/** Where a reading's identifier claims start among its actions (after the row's put). */
const FIRST_CLAIM = 1;

/**
 * Settles the readings whose own conditions failed (duplicates, identifier conflicts) and returns
 * the ones to try again (cancelled only because of others, or by a conflict or throttling).
 */
function settleCancelled(group: Pending[], reasons: CancellationReason[], outcomes: WriteOutcome[]): Pending[] {
  const retry: Pending[] = [];
  let at = 0;
  for (const p of group) {
    const own = reasons.slice(at, at + p.actions.length);
    at += p.actions.length;
    const failedCondition = (r: CancellationReason | undefined) => r?.Code === 'ConditionalCheckFailed';
    if (failedCondition(own[0])) {
      const existing = own[0]!.Item ? fromItem(unmarshall(own[0]!.Item)) : undefined;
      if (existing && existing.id === p.observation.id) outcomes[p.index] = { kind: 'created', observation: p.observation };
      else if (existing) outcomes[p.index] = { kind: 'existing', observation: existing };
      else retry.push(p);
      continue;
    }
    // The row's put comes first; the identifier claims follow.
    const claim = own.findIndex((r, i) => i >= FIRST_CLAIM && failedCondition(r));
    if (claim >= FIRST_CLAIM) {
      const holder = own[claim]!.Item ? Number(unmarshall(own[claim]!.Item).id) : 0;
      outcomes[p.index] = { kind: 'conflict', identifier: p.observation.identifiers[claim - FIRST_CLAIM]!, heldBy: holder };
      continue;
    }
    // Anything but "not now" (a validation error, say) will not change on a retry.
    const refusal = own.find((r) => r.Code !== 'ConditionalCheckFailed' && !PASSING_CANCELLATIONS.has(r.Code ?? 'None'));
    if (refusal) {
      rootLogger().error('observation transaction refused', { reason: refusal.Code, message: refusal.Message });
      outcomes[p.index] = storeRefused();
      continue;
    }
    retry.push(p);
  }
  return retry;
}
