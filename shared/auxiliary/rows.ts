/**
 * The items one auxiliary resource is stored as (see `keys.ts`), as typed values. Both carry the
 * owner, version and body location, so a search, an update and a deletion each need only the
 * items they already read.
 */
import type { Id } from '../directory/model';
import type { SearchIndex } from '../fhir/search';
import { auxiliaryKeys, type Key } from './keys';

/** Who a row belongs to and which version it is: the same on both items. */
export interface RowHead {
  id: string;
  type: string;
  patientId: Id;
  sourceId: Id;
  version: number;
  /** ISO instant in UTC with milliseconds (`meta.lastUpdated`). */
  lastUpdated: string;
  /** The id the resource had when it was submitted, if any (unique per source and type). */
  upstreamId?: string;
  /** S3 key of the body when it is too large for the item. */
  bodyKey?: string;
}

/** The resource item: the body (inline, or where it lives) and its owner. */
export interface ResourceRow extends RowHead {
  /** The stored resource as JSON text, when inline. */
  body?: string;
}

/** The search-index item in the patient's partition. */
export interface IndexRow extends RowHead {
  pk: string;
  sk: string;
  srcSk: string;
  /** The search index values (JSON text of a `SearchIndex`). */
  idx: string;
}

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
  return { ...headOf(item), pk: String(item.pk), sk: String(item.sk), srcSk: String(item.srcSk), idx: String(item.idx) };
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
    srcSk: auxiliaryKeys.sourceSk(head.sourceId, head.type, head.lastUpdated, head.id),
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

export function parseIndex(row: IndexRow): SearchIndex {
  return JSON.parse(row.idx) as SearchIndex;
}
