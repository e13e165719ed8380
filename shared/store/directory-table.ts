/**
 * The shared store helpers bound to the directory table (`DIRECTORY` in `tables.ts`) and its key
 * layout (`directory-keys.ts`): key reads (GetItem, BatchGetItem, Query on a key or on `gsi1` /
 * `gsi2`) and the builders of its transactions' actions. Nothing here scans. The table keeps the
 * directory and the OAuth records, and the auxiliary writes check directory items in it, so its
 * helpers are the platform's: each of those adapters (`shared/directory/store/`,
 * `shared/oauth/store/`, `shared/auxiliary/store/`) builds on them, none on another's adapter.
 */
import { config } from '../config';
import { batchGetInOrder } from './batch';
import type { Key } from './directory-keys';
import * as reads from './reads';
import type { Item } from './reads';
import { writesOn } from './transact';

export type { Item } from './reads';
export { atVersion, concurrentChange, MAX_TRANSACTION, transact, transactInChunks, type Expression, type Write } from './transact';

const table = () => config().directoryTable;

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
