/**
 * What the directory twin's record families share beyond the twins' common helpers
 * (shared/store/memory.ts): records with the versions the directory's optimistic updates check,
 * and links from a container to its members.
 */
import { ascending, byId, copy, innerMap, nestedEntries, withFields } from '../../store/memory';
import type { Id } from '../model';
import { concurrentChange, type Versioned } from './port';

/**
 * Records by id with the version an update must still find, as the table keeps them: a new record
 * is at version 1 and each update moves it on; a link kept on a record (changed through `stored`)
 * does not. Reads hand out copies made by `clone`.
 */
export function versionedTable<T extends { id: Id }>(notFound: (id: Id) => Error, clone: (value: T) => T = copy) {
  const rows = new Map<Id, { entity: T; version: number }>();
  /** The record itself, for a change that does not move its version; 404 when there is none. */
  const stored = (id: Id): T => {
    const row = rows.get(id);
    if (!row) throw notFound(id);
    return row.entity;
  };
  /** Refuses an update whose record moved on, or went, since it was read. */
  const assertAt = (read: Versioned<T>): void => {
    if (rows.get(read.entity.id)?.version !== read.version) throw concurrentChange();
  };
  const all = (): T[] => [...rows.values()].map((row) => row.entity).sort(byId);
  return {
    has: (id: Id) => rows.has(id),
    stored,
    /** The records themselves, in id order, for the twin's own scans. */
    all,
    assertAt,
    get: async (id: Id): Promise<T | undefined> => (rows.has(id) ? clone(stored(id)) : undefined),
    getMany: async (ids: readonly Id[]): Promise<T[]> => ids.flatMap((id) => (rows.has(id) ? [clone(stored(id))] : [])),
    list: async (): Promise<T[]> => all().map(clone),
    read: async (id: Id): Promise<Versioned<T>> => ({ entity: clone(stored(id)), version: rows.get(id)!.version }),
    insert: (entity: T): void => void rows.set(entity.id, { entity: clone(entity), version: 1 }),
    /** Writes `next` over the version read (409 when it moved on). */
    replace: (read: Versioned<T>, next: T): void => {
      assertAt(read);
      rows.set(next.id, { entity: clone(next), version: read.version + 1 });
    },
    /** Sets these fields (an `undefined` one removed) over the version read, leaving the others. */
    setFields: (read: Versioned<T>, fields: Record<string, unknown>): void => {
      assertAt(read);
      rows.set(read.entity.id, { entity: clone(withFields(stored(read.entity.id), fields)), version: read.version + 1 });
    },
    remove: (id: Id): void => void rows.delete(id),
    /** Every record with its version, for a test's look (`holding`). */
    held: () => rows.entries(),
  };
}

export type VersionedTable<T extends { id: Id }> = ReturnType<typeof versionedTable<T>>;

/** Links from a container to its members (a study's codes, apps, ...), each member once, listed in member id order. */
export function links<V>() {
  const byContainer = new Map<Id, Map<Id, V>>();
  const of = (container: Id) => [...(byContainer.get(container) ?? new Map<Id, V>())].sort(([a], [b]) => a - b);
  return {
    set: (container: Id, member: Id, value: V): void => void innerMap(byContainer, container).set(member, value),
    has: (container: Id, member: Id): boolean => byContainer.get(container)?.has(member) ?? false,
    /** Whether there was such a link. */
    delete: (container: Id, member: Id): boolean => byContainer.get(container)?.delete(member) ?? false,
    ids: (container: Id): Id[] => of(container).map(([member]) => member),
    /** Copies of the links' values. */
    values: (container: Id): V[] => of(container).map(([, value]) => copy(value)),
    clear: (container: Id): void => void byContainer.delete(container),
    /** The containers that hold a member, ascending. */
    containersOf: (member: Id): Id[] => ascending([...byContainer].filter(([, members]) => members.has(member)).map(([container]) => container)),
    /** Takes a member out of every container. */
    unlinkEverywhere: (member: Id): void => byContainer.forEach((members) => members.delete(member)),
    /** Every link as `[[container, member], value]`, for a test's look (`holding`). */
    held: () => nestedEntries(byContainer),
  };
}
