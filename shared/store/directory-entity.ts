/**
 * The reads and writes every directory entity shares, given how its items are keyed and mapped:
 * get one, get many, read for an update (with the version the update must still find), and the
 * create / replace / delete writes. Every entity item carries a `version`, so a concurrent change
 * makes an update fail with a 409 instead of being lost.
 */
import type { HttpError } from '../http/errors';
import type { Key } from './directory-keys';
import { atVersion, batchGet, getItem, put, putNew, remove, transact, update, withoutKeys, type Item, type Write } from './directory-table';

export interface EntityKind<T, K> {
  key: (id: K) => Key;
  /** Entity fields from a stored item; absent: the item's own fields as they are (`withoutKeys`). */
  toEntity?: (item: Item) => T;
  /** The stored item of an entity: keys, index attributes and fields (not the version). */
  toItem: (entity: T) => Item;
  notFound: (id: K) => HttpError;
}

export interface EntityStore<T, K> {
  /** The entity of a stored item (for items a query returned). */
  fromItem(item: Item): T;
  /** Strongly consistent read. */
  get(id: K): Promise<T | undefined>;
  /** Entities for ids, in the order given; missing ones are skipped. */
  getMany(ids: readonly K[]): Promise<T[]>;
  /** The entity and its version, for an update; 404 when missing. */
  read(id: K): Promise<{ entity: T; version: number }>;
  create(entity: T, onConflict: () => HttpError): Write;
  /** Writes the whole item over the version read. */
  replace(entity: T, version: number): Write;
  /**
   * Sets these fields (an `undefined` value removes the field) over the version read, leaving every
   * other attribute alone: for items whose sets or maps other writes change (a patient's
   * memberships, a user's roles), which a whole-item write would overwrite.
   */
  setFields(id: K, fields: Record<string, unknown>, version: number): Write;
  remove(id: K, version: number): Write;
  /** Reads the entity (404 when missing), writes `change(entity)` over the version read (409 when it moved on), returns it. */
  change(id: K, change: (current: T) => T): Promise<T>;
}

function setFieldsExpression(fields: Record<string, unknown>, version: number) {
  const names: Record<string, string> = { '#version': 'version' };
  const values: Record<string, unknown> = { ':version': version, ':next': version + 1 };
  const sets = ['#version = :next'];
  const removals: string[] = [];
  Object.entries(fields).forEach(([field, value], i) => {
    names[`#f${i}`] = field;
    if (value === undefined) removals.push(`#f${i}`);
    else {
      values[`:f${i}`] = value;
      sets.push(`#f${i} = :f${i}`);
    }
  });
  const expression = `SET ${sets.join(', ')}${removals.length > 0 ? ` REMOVE ${removals.join(', ')}` : ''}`;
  return { expression, names, values };
}

/** The named fields of a value (for `setFields`); absent ones come out `undefined`, i.e. removed. */
export function pick<T extends object>(value: T, fields: readonly (keyof T & string)[]): Record<string, unknown> {
  return Object.fromEntries(fields.map((f) => [f, value[f]]));
}

export function entityStore<T, K>(kind: EntityKind<T, K>): EntityStore<T, K> {
  const fromItem = kind.toEntity ?? ((item: Item) => withoutKeys(item) as T);
  const read: EntityStore<T, K>['read'] = async (id) => {
    const item = await getItem(kind.key(id));
    if (!item) throw kind.notFound(id);
    return { entity: fromItem(item), version: item.version as number };
  };
  const replace: EntityStore<T, K>['replace'] = (entity, version) => put({ ...kind.toItem(entity), version: version + 1 }, atVersion(version));
  return {
    fromItem,
    get: async (id) => {
      const item = await getItem(kind.key(id));
      return item && fromItem(item);
    },
    getMany: async (ids) => (await batchGet(ids.map(kind.key))).map(fromItem),
    read,
    create: (entity, onConflict) => putNew({ ...kind.toItem(entity), version: 1 }, onConflict),
    replace,
    setFields: (id, fields, version) => {
      const { expression, names, values } = setFieldsExpression(fields, version);
      const condition = atVersion(version);
      return update(kind.key(id), expression, { condition: condition.condition!, names: { ...names, ...condition.names }, values: { ...values, ...condition.values } });
    },
    remove: (id, version) => remove(kind.key(id), atVersion(version)),
    change: async (id, change) => {
      const { entity, version } = await read(id);
      const next = change(entity);
      await transact([replace(next, version)]);
      return next;
    },
  };
}
