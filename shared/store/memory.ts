/**
 * What the in-memory twins of the store ports share: values handed out as a table read hands them
 * out (copies), the orders a table keeps, fresh numbers, keyed tables, one page of a Query and the
 * directory table's fixed-window counters. It names no domain type: each twin brings its own
 * records and refusals.
 */

/**
 * A value as a write to the table and a read back leave it: fields without a value left out, and
 * list entries without one (the DynamoDB client drops both), binary data, Sets and Maps copied,
 * nothing shared with the caller.
 */
export function copy<T>(value: T): T {
  if (value instanceof Uint8Array) return new Uint8Array(value) as T;
  if (value instanceof Set) return new Set([...value].map(copy)) as T;
  if (value instanceof Map) return new Map([...value].map(([k, v]) => [k, copy(v)])) as T;
  if (Array.isArray(value)) return value.filter((v) => v !== undefined).map(copy) as T;
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).flatMap(([k, v]) => (v === undefined ? [] : [[k, copy(v)]]))) as T;
  }
  return value;
}

/** Records in id order. */
export const byId = (a: { id: number }, b: { id: number }): number => a.id - b.id;

/** Ids in ascending order. */
export const ascending = (ids: Iterable<number>): number[] => [...ids].sort((a, b) => a - b);

/** As DynamoDB orders sort keys: by their UTF-8 bytes (not JavaScript's UTF-16 units). */
export const byKeyBytes = (a: string, b: string): number => Buffer.compare(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8'));

/** Fresh ids, 1, 2, ... */
export function counter(): () => Promise<number> {
  let last = 0;
  return async () => ++last;
}

/** A read by key: a copy of the row, or `undefined`. */
export const readCopy =
  <K, T>(rows: ReadonlyMap<K, T>) =>
  async (key: K): Promise<T | undefined> => {
    const row = rows.get(key);
    return row && copy(row);
  };

/** A read through a pointer kept beside the records (a claim, a number): the record it names, or `undefined`. */
export const readThrough =
  <P, K, T>(pointers: ReadonlyMap<P, K>, read: (key: K) => Promise<T | undefined>) =>
  async (pointer: P): Promise<T | undefined> => {
    const key = pointers.get(pointer);
    return key === undefined ? undefined : read(key);
  };

/** Copies of the rows of these keys, in the order given; keys with no row are skipped (as a batch read). */
export const copiesOf = <K, T>(rows: ReadonlyMap<K, T>, keys: readonly K[]): T[] => keys.flatMap((key) => (rows.has(key) ? [copy(rows.get(key)!)] : []));

/** The inner map of a key (a partition's rows, a container's links), made on first use. */
export function innerMap<K, K2, V>(outer: Map<K, Map<K2, V>>, key: K): Map<K2, V> {
  const inner = outer.get(key) ?? new Map<K2, V>();
  outer.set(key, inner);
  return inner;
}

/** The record with these fields set, an `undefined` one removed, as an update expression's SET and REMOVE leave it. */
export function withFields<T extends object>(record: T, fields: object): T {
  const next = { ...record } as Record<string, unknown>;
  for (const [field, value] of Object.entries(fields)) {
    if (value === undefined) delete next[field];
    else next[field] = value;
  }
  return next as T;
}

/** Records by key: reads hand out copies; `existing` is a record or the family's 404. */
export function recordTable<K, T extends { id: number }>(notFound: (key: K) => Error) {
  const rows = new Map<K, T>();
  const existing = (key: K): T => {
    const row = rows.get(key);
    if (!row) throw notFound(key);
    return row;
  };
  return {
    rows,
    existing,
    get: readCopy(rows),
    getMany: async (keys: readonly K[]) => copiesOf(rows, keys),
    list: async () => [...rows.values()].sort(byId).map(copy),
    /** Replaces a record by `change(current)`; the twin runs one call at a time, so nothing lands in between. */
    update: async (key: K, change: (current: T) => T) => {
      const next = copy(change(copy(existing(key))));
      rows.set(key, next);
      return copy(next);
    },
  };
}

/** Windows beyond this many are swept of the expired ones (as the table's TTL would). */
const SWEEP_WINDOWS_AT = 10_000;

/**
 * Fixed-window counters as `takeWindowSlot` (`directory-windows.ts`) keeps them on the table: per
 * scope and window start, the slots taken under a limit, a refused take changing nothing; as they
 * grow, swept of the windows past their `expiresAt` (epoch seconds) at `now` (ms).
 */
export function windowSlots(now: () => number = () => Date.now()) {
  /** `[scope, window start]` as JSON -> the slots taken. */
  const rows = new Map<string, { taken: number; expiresAt: number }>();
  const take = (scope: string, windowStart: number, limit: number, expiresAt: number, slots = 1): boolean => {
    const key = JSON.stringify([scope, windowStart]);
    const row = rows.get(key) ?? { taken: 0, expiresAt };
    if (slots < 1 || row.taken + slots > limit) return false;
    row.taken += slots;
    row.expiresAt = expiresAt;
    rows.set(key, row);
    if (rows.size > SWEEP_WINDOWS_AT) for (const [k, r] of rows) if (r.expiresAt * 1000 < now()) rows.delete(k);
    return true;
  };
  return { rows, take };
}

/** Where a Query is asked to read: its order, where it goes on from, how many rows at most. */
export interface KeyRange {
  descending?: boolean;
  /** Only rows whose key follows this one in the Query's order. */
  after?: string;
  limit?: number;
}

/**
 * One page of a Query over rows by their sort key: the rows after `after` in key order, at most
 * `limit`. As a Query, a page that reached its limit names its `last` row, where the next page
 * starts, even when none follows.
 */
export function keyPage<T>(rows: Iterable<T>, keyOf: (row: T) => string, range: KeyRange): { rows: T[]; last?: T } {
  const direction = range.descending ? -1 : 1;
  const { after, limit } = range;
  const following = [...rows].filter((row) => after === undefined || direction * byKeyBytes(keyOf(row), after) > 0).sort((a, b) => direction * byKeyBytes(keyOf(a), keyOf(b)));
  const page = limit === undefined ? following : following.slice(0, limit);
  return { rows: page, ...(limit !== undefined && page.length === limit && page.length > 0 ? { last: page[page.length - 1] } : {}) };
}

/**
 * What a part of a twin holds, for a test's look at every record (the service never reads it): per
 * kind of record, its entries as `[key, record]`, read when the look is taken.
 */
export type Holdings = Readonly<Record<string, () => Iterable<readonly [unknown, unknown]>>>;

/** One record a twin holds: its kind, its key within the kind, a copy of the record. */
export interface HeldRecord {
  kind: string;
  key: unknown;
  record: unknown;
}

const holdingsOf = new WeakMap<object, Holdings>();

/** Lets a test look at what this part of a twin holds (`heldRecords`); returns the part as it was. */
export function holding<T extends object>(part: T, holdings: Holdings): T {
  holdingsOf.set(part, holdings);
  return part;
}

/** The entries of a map of maps (a partition's rows, a container's links) as `[[outer, inner], value]`; an empty inner map holds nothing. */
export function* nestedEntries<K, K2, V>(outer: ReadonlyMap<K, ReadonlyMap<K2, V>>): Iterable<readonly [readonly [K, K2], V]> {
  for (const [key, inner] of outer) for (const [innerKey, value] of inner) yield [[key, innerKey], value];
}

const isPlainObject = (value: unknown): value is object => value !== null && typeof value === 'object' && Object.getPrototypeOf(value) === Object.prototype;

/**
 * Every record held by the twin parts reachable from `value` (a twin, a set of twins) through its
 * fields, each part once: what a Scan of every table would show, in the twins' own terms.
 */
export function heldRecords(value: object): HeldRecord[] {
  const seen = new Set<object>();
  const records: HeldRecord[] = [];
  const visit = (part: object): void => {
    if (seen.has(part)) return;
    seen.add(part);
    for (const [kind, entries] of Object.entries(holdingsOf.get(part) ?? {})) {
      for (const [key, record] of entries()) records.push({ kind, key: copy(key), record: copy(record) });
    }
    for (const field of Object.values(part)) if (isPlainObject(field)) visit(field);
  };
  visit(value);
  return records;
}

/** A value in one spelling whatever the order it was built in: object fields, Sets and Maps sorted, binary data as base64. */
export function stableJson(value: unknown): string {
  return JSON.stringify(ordered(value));
}

function ordered(value: unknown): unknown {
  const sorted = (values: unknown[]) => values.map(ordered).sort((a, b) => byKeyBytes(JSON.stringify(a), JSON.stringify(b)));
  if (value instanceof Uint8Array) return { base64: Buffer.from(value).toString('base64') };
  if (value instanceof Set) return sorted([...value]);
  if (value instanceof Map) return sorted([...value]);
  if (Array.isArray(value)) return value.map(ordered);
  if (value !== null && typeof value === 'object') return Object.fromEntries(Object.entries(value).sort(([a], [b]) => byKeyBytes(a, b)).map(([k, v]) => [k, ordered(v)]));
  return value;
}

/** Every record held from `value` on, as sorted JSON lines `[kind, key, record]`. */
export const heldLines = (value: object): string[] => heldRecords(value).map(({ kind, key, record }) => stableJson([kind, key, record])).sort();
