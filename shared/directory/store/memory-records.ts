/** What every in-memory record family of the twin shares: copies out, id order, a counter, a keyed table. */
import type { Id } from '../model';

/** What a store hands out is a copy, as a read from a table is, with absent fields left out. */
export const copy = <T>(value: T): T => JSON.parse(JSON.stringify(value)) as T;

export const byId = (a: { id: Id }, b: { id: Id }) => a.id - b.id;

/** Fresh ids, 1, 2, ... */
export function counter(): () => Promise<Id> {
  let last = 0;
  return async () => ++last;
}

/** Records by key: reads hand out copies; `existing` is a record or the family's 404. */
export function recordTable<K, T extends { id: Id }>(notFound: (key: K) => Error) {
  const rows = new Map<K, T>();
  const existing = (key: K): T => {
    const row = rows.get(key);
    if (!row) throw notFound(key);
    return row;
  };
  return {
    rows,
    existing,
    get: async (key: K) => (rows.has(key) ? copy(rows.get(key)!) : undefined),
    getMany: async (keys: readonly K[]) => keys.flatMap((key) => (rows.has(key) ? [copy(rows.get(key)!)] : [])),
    list: async () => [...rows.values()].sort(byId).map(copy),
    /** Replaces a record by `change(current)`; the twin runs one call at a time, so nothing lands in between. */
    update: async (key: K, change: (current: T) => T) => {
      const next = copy(change(copy(existing(key))));
      rows.set(key, next);
      return copy(next);
    },
  };
}
