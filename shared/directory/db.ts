/**
 * The shared store helpers (shared/store) bound to the directory table and its key layout: key
 * reads (GetItem, BatchGetItem, Query on a key or on `gsi1` / `gsi2`) and the builders of its
 * transactions' actions. Nothing here scans.
 */
import { config } from '../config';
import { fieldErrors } from '../http/errors';
import { batchGetInOrder } from '../store/batch';
import * as reads from '../store/reads';
import type { Item } from '../store/reads';
import { writesOn } from '../store/transact';
import type { Key } from './keys';

export type { Item } from '../store/reads';
export { atVersion, concurrentChange, MAX_TRANSACTION, transact, transactInChunks, type Expression, type Write } from '../store/transact';

const table = () => config().directoryTable;

/** Longest free text allowed inside a key (DynamoDB allows 2048 bytes for a partition key). */
export const MAX_KEY_TEXT = 512;

/** Refuses text that cannot be part of a key (empty, or so long the store would reject it). */
export function assertKeyText(field: string, value: string): void {
  if (value.length === 0) throw fieldErrors({ [field]: ['This field may not be blank.'] });
  if (Buffer.byteLength(value, 'utf8') > MAX_KEY_TEXT) {
    throw fieldErrors({ [field]: [`Ensure this field has no more than ${MAX_KEY_TEXT} bytes.`] });
  }
}

/** Strongly consistent read of one directory item. */
export function getItem(key: Key): Promise<Item | undefined> {
  return reads.getItem(table(), key);
}

/** Items for many keys (any number), in the order of `keys`; missing items are skipped. */
export function batchGet(keys: readonly Key[]): Promise<Item[]> {
  return batchGetInOrder(table(), keys.map((k) => ({ pk: k.pk, sk: k.sk })));
}

export interface QuerySpec {
  pk: string;
  /** Only sort keys starting with this. */
  skPrefix?: string;
  /** A global index (`gsi1`, `gsi2`); the base table when absent. */
  index?: string;
  /** Descending sort-key order. */
  descending?: boolean;
  /** Attributes to return (all when absent). */
  attributes?: readonly string[];
}

/** Every item of one partition of the table or of a global index (optionally one sort-key prefix). */
export function queryAll(spec: QuerySpec): Promise<Item[]> {
  const { index } = spec;
  // Global indexes are eventually consistent by nature; the base table is read strongly.
  return reads.queryAll({ ...spec, table: table(), ...(index ? { pkName: `${index}pk`, skName: `${index}sk`, consistent: false } : {}) });
}

export const { putNew, put, remove, update, check } = writesOn(table);

/** Current time as the directory stores it. */
export function now(): string {
  return new Date().toISOString();
}

/** Removes the key and index attributes from an item, leaving the entity's own fields. */
export function withoutKeys(item: Item): Item {
  const { pk: _pk, sk: _sk, gsi1pk: _a, gsi1sk: _b, gsi2pk: _c, gsi2sk: _d, version: _v, ...rest } = item;
  return rest;
}

/** A DynamoDB number set as a sorted array (an absent set is empty). */
export function idList(value: unknown): number[] {
  if (value instanceof Set) return [...(value as Set<number>)].map(Number).sort((a, b) => a - b);
  return [];
}
