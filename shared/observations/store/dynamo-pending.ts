/**
 * A reading on its way into the observations table: its row, its id pointer, and (with
 * identifiers) the transaction actions that put the row and claim each identifier.
 */
import type { TransactWriteCommandInput } from '@aws-sdk/lib-dynamodb';
import { readingBytes, toItem, type ObservationItem } from './dynamo-items';
import { observationKeys } from './dynamo-keys';
import type { StoredObservation } from '../model';
import { table } from './dynamo-table';
import { claimKey, keyId, readingKeys } from './rounds';

export type TransactItem = NonNullable<TransactWriteCommandInput['TransactItems']>[number];

export interface Pending {
  /** The reading's place among those of the call (and of its outcomes). */
  index: number;
  observation: StoredObservation;
  item: ObservationItem;
  /** The row's id pointer. */
  pointer: ObservationItem;
  /** With identifiers: the row's put first, then one claim per identifier (one transaction). */
  actions: TransactItem[];
  /** Keys the row and its claims take, to keep two writes of one item out of a round. */
  keys: string[];
  bytes: number;
}

/** The item that leads from an id to its row. */
export const pointerItem = (o: StoredObservation): ObservationItem => ({ ...observationKeys.pointer(o.id), patientId: o.patientId, uuid: o.uuid });

export function pendingOf(observation: StoredObservation, index: number): Pending {
  const item = toItem(observation);
  const claims = observation.identifiers.map((identifier) => ({ ...claimKey(identifier), id: observation.id, patientId: observation.patientId }));
  const conditional = (Item: Record<string, unknown>): TransactItem => ({
    Put: { TableName: table(), Item, ConditionExpression: 'attribute_not_exists(pk)', ReturnValuesOnConditionCheckFailure: 'ALL_OLD' },
  });
  return {
    index,
    observation,
    item,
    pointer: pointerItem(observation),
    actions: [conditional(item), ...claims.map(conditional)],
    keys: readingKeys(observation).map(keyId),
    bytes: readingBytes(item, claims.length),
  };
}

export const claimsIdentifiers = (p: Pending) => p.observation.identifiers.length > 0;
