/**
 * What DynamoDB charges for an item, by its published rules, so the cost of a layout can be
 * computed from the requests the store sends (the bench does; no AWS account needed):
 *
 * - An item's size is the UTF-8 length of its attribute names plus its values: a string its UTF-8
 *   bytes, a binary its bytes, a number about one byte per two significant digits plus one, a
 *   boolean or null one byte, a list or map three bytes plus one per element plus the elements
 *   (a map's member names count like attribute names).
 * - A write costs one write unit per started KB of the item (inside TransactWriteItems, two), plus
 *   one write per started KB of each index entry the item lands in (an index holds an entry only
 *   when the item has the index's key attributes; it holds the index keys, the table keys and the
 *   projected attributes).
 * - A strongly consistent read costs one read unit per started 4 KB: per item for GetItem and
 *   BatchGetItem, per Query for the items it returns together. A Query on a local index that asks
 *   for attributes the index does not project fetches each item from the table: a read of the whole
 *   item, per item.
 * - Storage is each item's size plus 100 bytes, and each index entry's size plus 100 bytes.
 */
import type { NativeAttributeValue } from '@aws-sdk/util-dynamodb';
import { heldAttributes, indexNamed, type IndexDefinition, type TableDefinition } from './tables';

export type StoredItem = Record<string, NativeAttributeValue>;

/** Bytes DynamoDB adds to each item and each index entry for storage. */
export const ITEM_OVERHEAD = 100;
const WRITE_UNIT = 1024;
const READ_UNIT = 4096;

const utf8 = (s: string) => Buffer.byteLength(s, 'utf8');

function numberSize(n: number | bigint): number {
  const digits = String(n).replace(/^-/, '').replace('.', '').replace(/e.*$/i, '').replace(/^0+/, '').replace(/0+$/, '');
  return Math.ceil(Math.max(1, digits.length) / 2) + 1;
}

/** Size of one attribute value. */
export function valueSize(v: NativeAttributeValue): number {
  if (v === null || v === undefined || typeof v === 'boolean') return 1;
  if (typeof v === 'string') return utf8(v);
  if (typeof v === 'number' || typeof v === 'bigint') return numberSize(v);
  if (v instanceof Uint8Array) return v.byteLength;
  if (v instanceof Set) return [...v].reduce((n: number, e) => n + valueSize(e as NativeAttributeValue), 0);
  if (Array.isArray(v)) return 3 + v.reduce((n: number, e) => n + 1 + valueSize(e as NativeAttributeValue), 0);
  if (typeof v === 'object') return 3 + Object.entries(v as Record<string, NativeAttributeValue>).reduce((n, [k, e]) => n + 1 + utf8(k) + valueSize(e), 0);
  return utf8(String(v));
}

/** An item's size as DynamoDB counts it (names and values). */
export function itemSize(item: StoredItem): number {
  let n = 0;
  for (const [name, value] of Object.entries(item)) if (value !== undefined) n += utf8(name) + valueSize(value);
  return n;
}

const present = (item: StoredItem, name: string) => item[name] !== undefined && item[name] !== null;

/** The entry an item has in an index (undefined when it lacks the index's keys: a sparse index). */
export function indexEntry(table: TableDefinition, index: IndexDefinition, item: StoredItem): StoredItem | undefined {
  if (!present(item, index.partitionKey.name) || (index.sortKey && !present(item, index.sortKey.name))) return undefined;
  const held = heldAttributes(table, index);
  if (!held) return { ...item };
  return Object.fromEntries(held.filter((name) => present(item, name)).map((name) => [name, item[name]]));
}

/** Every index entry of an item, with its index. */
export function indexEntries(table: TableDefinition, item: StoredItem): Array<{ index: IndexDefinition; entry: StoredItem }> {
  return [...table.localIndexes, ...table.globalIndexes].flatMap((index) => {
    const entry = indexEntry(table, index, item);
    return entry ? [{ index, entry }] : [];
  });
}

const units = (bytes: number, unit: number) => Math.max(1, Math.ceil(bytes / unit));

/** Write units of putting (or deleting) an item: the item, doubled in a transaction, and each index entry. */
export function writeUnits(table: TableDefinition, item: StoredItem, transactional = false): number {
  const own = units(itemSize(item), WRITE_UNIT) * (transactional ? 2 : 1);
  return own + indexEntries(table, item).reduce((n, { entry }) => n + units(itemSize(entry), WRITE_UNIT), 0);
}

/** Bytes stored for an item: itself and its index entries, each with DynamoDB's overhead. */
export function storedBytes(table: TableDefinition, item: StoredItem): number {
  return itemSize(item) + ITEM_OVERHEAD + indexEntries(table, item).reduce((n, { entry }) => n + itemSize(entry) + ITEM_OVERHEAD, 0);
}

/** Read units of reading items one by one (GetItem, BatchGetItem): per item, per started 4 KB. */
export function itemReadUnits(items: readonly StoredItem[], consistent = true): number {
  return items.reduce((n, item) => n + units(itemSize(item), READ_UNIT), 0) / (consistent ? 1 : 2);
}

/**
 * Read units of a Query that returned these (whole) items: their index entries together, per
 * started 4 KB, plus a whole-item read per item when the index does not project what was asked.
 */
export function queryReadUnits(table: TableDefinition, indexName: string | undefined, items: readonly StoredItem[], opts: { consistent?: boolean; fetched?: boolean } = {}): number {
  const index = indexNamed(table, indexName);
  const entries = index ? items.map((item) => indexEntry(table, index, item) ?? item) : items;
  const together = units(entries.reduce((n, e) => n + itemSize(e), 0), READ_UNIT);
  const fetched = index && opts.fetched ? items.reduce((n, item) => n + units(itemSize(item), READ_UNIT), 0) : 0;
  return (together + fetched) / (opts.consistent === false ? 2 : 1);
}
