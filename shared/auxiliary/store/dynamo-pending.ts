/** The pending-body entries on the auxiliary table: one item per object key in the patient's partition `B#<patientId>`. */
import { DeleteCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { config } from '../../config';
import type { Id } from '../../directory/model';
import { batchDeleteAll } from '../../store/batch';
import { dynamo } from '../../store/clients';
import { queryAll } from '../../store/reads';
import { auxiliaryKeys, bodyKeys, type Key } from './dynamo-keys';
import type { PendingBodies, PendingBody, PendingState, Segment } from './port';

const table = () => config().auxTable;

export function pendingBodyItem(patientId: Id, bodyKey: string, state: PendingState): Record<string, unknown> {
  return { ...auxiliaryKeys.pendingBody(patientId, bodyKey), state, since: new Date().toISOString() };
}

/** A patient's entries are the whole partition; a source's, those under its objects' prefix. */
async function list(segment: Segment): Promise<PendingBody[]> {
  const keyPrefix = segment.sourceId === undefined ? undefined : bodyKeys.ofSegment(segment);
  const items = await queryAll({ table: table(), pk: auxiliaryKeys.pendingPartition(segment.patientId), ...(keyPrefix === undefined ? {} : { skPrefix: keyPrefix }) });
  return items.map((item) => ({ bodyKey: String(item.sk), state: item.state as PendingState, since: String(item.since) }));
}

export const pending: PendingBodies = {
  recordWriting: async (patientId, bodyKey) => {
    await dynamo().send(new PutCommand({ TableName: table(), Item: pendingBodyItem(patientId, bodyKey, 'writing') }));
  },
  remove: async (patientId, bodyKey) => {
    await dynamo().send(new DeleteCommand({ TableName: table(), Key: auxiliaryKeys.pendingBody(patientId, bodyKey) }));
  },
  list,
  forget: async (segment) => {
    const keys: Key[] = (await list(segment)).map((e) => auxiliaryKeys.pendingBody(segment.patientId, e.bodyKey));
    await batchDeleteAll(table(), keys);
  },
};
