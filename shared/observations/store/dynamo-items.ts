/** Observations to and from their stored items (keys, index attributes and fields). */
import type { EffectiveTime } from '../../omh/effective-time';
import { itemSize, type StoredItem } from '../../store/capacity';
import { codeEffectiveSortKey, codeShard, effectiveSortKey, observationKeys, updatedSortKey } from './dynamo-keys';
import type { KeptValue, ObservationIdentifier, ReadingFacts, StoredObservation } from '../model';

export type ObservationItem = Record<string, unknown>;

/** Nearly every reading's status: the one a row does not store. */
const FINAL = 'final';

/**
 * The payload as stored: its bytes when the uploaded Base64 text is exactly what encoding them
 * gives back (a quarter smaller than the text), else the text itself, so the payload is always
 * returned byte for byte as uploaded.
 */
export function storedPayload(data: string): string | Uint8Array {
  const bytes = Buffer.from(data, 'base64');
  return bytes.toString('base64') === data ? new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength) : data;
}

/** The uploaded Base64 text of a stored payload (either form). */
export function uploadedPayload(stored: unknown): string {
  return stored instanceof Uint8Array ? Buffer.from(stored.buffer, stored.byteOffset, stored.byteLength).toString('base64') : (stored as string);
}

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
    ...(o.status !== FINAL ? { status: o.status } : {}),
    ...(o.identifiers.length > 0 ? { identifiers: o.identifiers } : {}),
    data: storedPayload(o.data),
    ...(o.values !== undefined ? { q: encodeValues(o.values) } : {}),
    // Only what differs from an instant is stored: a period's kind, an end after the start.
    ...(o.effective
      ? {
          ...(o.effective.kind !== 'dateTime' ? { effKind: o.effective.kind } : {}),
          effStart: o.effective.start,
          ...(o.effective.end !== o.effective.start ? { effEnd: o.effective.end } : {}),
        }
      : {}),
  };
}

/** `meta.lastUpdated`: the start of the last-update index key (`<instant>#<id>`), so the row does not repeat it. */
export const lastUpdatedOf = (item: ObservationItem): string => String(item.updatedSk).slice(0, String(item.updatedSk).indexOf('#'));

/** `Observation.status`; `final` unless the row says otherwise. */
export const statusOf = (item: ObservationItem): string => (item.status as string | undefined) ?? FINAL;

/** The reading's `header.uuid`: its row key names it (`U#<uuid>`), so the row does not repeat it. */
export const uuidOf = (item: ObservationItem): string => String(item.sk).slice(2);

/**
 * Every field `fromItem` reads: what a search asks of each row. The keys and index attributes
 * (`pk`, `effSk`, `codeEffSk`, `codeShard`) stay behind: a page is a sixth fewer bytes to send and
 * decode. A field added to `toItem` and read back must be named here too (a unit test reads a
 * row of every shape through this list).
 */
export const ROW_FIELDS: readonly string[] = ['sk', 'id', 'patientId', 'codeId', 'deviceId', 'status', 'identifiers', 'data', 'effKind', 'effStart', 'effEnd', 'updatedSk', 'q'];

/**
 * A reading's kept values as one short text: `member:value[:unit]` joined by `;`, the unit
 * percent-encoded (a heart rate is `0:58`, a weight in pounds `0:154.3:lb`): a few bytes instead of
 * a list of maps, so the row and the index that copies it stay within the write unit they had.
 */
export function encodeValues(values: readonly KeptValue[]): string {
  return values.map((v) => (v.unit === undefined ? `${v.member}:${v.value}` : `${v.member}:${v.value}:${encodeURIComponent(v.unit)}`)).join(';');
}

export function decodeValues(text: string): KeptValue[] {
  if (text === '') return [];
  return text.split(';').map((entry) => {
    const [member, value, unit] = entry.split(':');
    return unit === undefined ? { member: Number(member), value: Number(value) } : { member: Number(member), value: Number(value), unit: decodeURIComponent(unit) };
  });
}

/** What a count tests of a row (`ReadingFacts`): everything but the payload and `header.uuid`. */
export function factsOf(item: ObservationItem): ReadingFacts {
  const effective: EffectiveTime | undefined =
    item.effStart === undefined
      ? undefined
      : { kind: (item.effKind ?? 'dateTime') as EffectiveTime['kind'], start: item.effStart as number, end: (item.effEnd ?? item.effStart) as number };
  return {
    id: item.id as number,
    patientId: item.patientId as number,
    codeId: item.codeId as number,
    deviceId: item.deviceId as number,
    status: statusOf(item),
    identifiers: (item.identifiers as ObservationIdentifier[] | undefined) ?? [],
    effective,
    lastUpdated: lastUpdatedOf(item),
    ...(item.q !== undefined ? { values: decodeValues(item.q as string) } : {}),
  };
}

export function fromItem(item: ObservationItem): StoredObservation {
  // The facts' object grows by two fields rather than being spread into a new one: every row a
  // search or download reads comes through here, and a spread costs ten times the rest.
  const reading = factsOf(item) as StoredObservation;
  reading.data = uploadedPayload(item.data);
  reading.uuid = uuidOf(item);
  return reading;
}

/** Stored size of an item in bytes as DynamoDB counts it, to keep within its limits. */
export const itemBytes = (item: ObservationItem): number => itemSize(item as StoredItem);

/** What one identifier claim is counted as, beside the row, towards a transaction's size. */
const CLAIM_BYTES = 200;

/** Bytes writing a reading takes: its row and its identifier claims. */
export const readingBytes = (item: ObservationItem, claims: number): number => itemBytes(item) + CLAIM_BYTES * claims;

/** DynamoDB's limit of 400 KB an item, kept under with room. */
export const MAX_ITEM_BYTES = 380_000;

/** Why a reading cannot be written (its row and claims over the item limit), or undefined. */
export function tooLarge(o: StoredObservation): string | undefined {
  const bytes = readingBytes(toItem(o), o.identifiers.length);
  return bytes > MAX_ITEM_BYTES ? `The reading is too large to store (${bytes} bytes; at most ${MAX_ITEM_BYTES}).` : undefined;
}
