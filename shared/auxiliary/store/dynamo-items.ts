/**
 * The items of the auxiliary table (keys in `dynamo-keys.ts`) to and from the typed rows of
 * `../rows.ts`, and the size a body may take inside its item. The twin keeps the same items, so
 * both adapters answer alike.
 */
import type { SearchIndex } from '../../fhir/search';
import type { IndexRow, ResourceRow, RowHead } from '../rows';
import { auxiliaryKeys, type Key } from './dynamo-keys';

/**
 * Largest body kept inside the item (UTF-8 bytes of its JSON). DynamoDB items hold 400 KB with
 * their attribute names and the other fields; 350 KiB leaves room for those. A larger body is kept
 * apart (`Bodies` in `port.ts`; S3 in the service).
 */
export const INLINE_BODY_LIMIT = 350 * 1024;

export const keepsInline = (json: string): boolean => Buffer.byteLength(json, 'utf8') <= INLINE_BODY_LIMIT;

type Item = Record<string, unknown>;

const headOf = (item: Item): RowHead => ({
  id: String(item.id),
  type: String(item.type),
  patientId: Number(item.patientId),
  sourceId: Number(item.sourceId),
  version: Number(item.version),
  lastUpdated: String(item.lastUpdated),
  ...(typeof item.upstreamId === 'string' ? { upstreamId: item.upstreamId } : {}),
  ...(typeof item.bodyKey === 'string' ? { bodyKey: item.bodyKey } : {}),
});

export function resourceRowOf(item: Item): ResourceRow {
  return { ...headOf(item), ...(typeof item.body === 'string' ? { body: item.body } : {}) };
}

export function indexRowOf(item: Item): IndexRow {
  return { ...headOf(item), place: String(item.sk), idx: String(item.idx) };
}

export function resourceItem(row: ResourceRow): Item {
  return { ...auxiliaryKeys.resource(row.id), ...row };
}

export function indexKeyOf(head: RowHead): Key {
  return { pk: auxiliaryKeys.patientPartition(head.patientId), sk: auxiliaryKeys.indexSk(head.type, head.lastUpdated, head.id) };
}

export function indexItem(head: RowHead, index: SearchIndex): Item {
  return {
    ...indexKeyOf(head),
    srcSk: auxiliaryKeys.onSource(head.sourceId, auxiliaryKeys.indexSk(head.type, head.lastUpdated, head.id)),
    ...headFields(head),
    idx: JSON.stringify(index),
  };
}

/** Only the head's own fields (a ResourceRow passed as a head would otherwise bring its body along). */
function headFields(head: RowHead): RowHead {
  return headOf(head as unknown as Item);
}

export function claimKeyOf(head: RowHead): Key | undefined {
  return head.upstreamId === undefined ? undefined : auxiliaryKeys.upstreamClaim(head.sourceId, head.type, head.upstreamId);
}

