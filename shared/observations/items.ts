/** Observations to and from their stored items (keys, index attributes and fields). */
import type { EffectiveTime } from '../omh/effective-time';
import { codeEffectiveSortKey, codeShard, effectiveSortKey, observationKeys, updatedSortKey } from './keys';
import type { ObservationIdentifier, StoredObservation } from './model';

export type ObservationItem = Record<string, unknown>;

export function toItem(o: StoredObservation): ObservationItem {
  const start = o.effective?.start;
  return {
    ...observationKeys.observation(o.patientId, o.uuid),
    effSk: effectiveSortKey(start, o.id),
    codeEffSk: codeEffectiveSortKey(o.codeId, start, o.id),
    updatedSk: updatedSortKey(o.lastUpdated, o.id),
    codeShard: codeShard(o.codeId, o.id),
    id: o.id,
    patientId: o.patientId,
    codeId: o.codeId,
    deviceId: o.deviceId,
    status: o.status,
    ...(o.identifiers.length > 0 ? { identifiers: o.identifiers } : {}),
    data: o.data,
    uuid: o.uuid,
    ...(o.effective ? { effKind: o.effective.kind, effStart: o.effective.start, effEnd: o.effective.end } : {}),
    lastUpdated: o.lastUpdated,
  };
}

export function fromItem(item: ObservationItem): StoredObservation {
  const effective: EffectiveTime | undefined =
    item.effKind === undefined
      ? undefined
      : { kind: item.effKind as EffectiveTime['kind'], start: item.effStart as number, end: item.effEnd as number };
  return {
    id: item.id as number,
    patientId: item.patientId as number,
    codeId: item.codeId as number,
    deviceId: item.deviceId as number,
    status: item.status as string,
    identifiers: (item.identifiers as ObservationIdentifier[] | undefined) ?? [],
    data: item.data as string,
    uuid: item.uuid as string,
    effective,
    lastUpdated: item.lastUpdated as string,
  };
}

/** Rough stored size of an item in bytes (attribute names and values), to keep within DynamoDB's limits. */
export function itemBytes(item: ObservationItem): number {
  return Buffer.byteLength(JSON.stringify(item), 'utf8');
}
