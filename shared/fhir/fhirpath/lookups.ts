/**
 * The lookups of one evaluation pass (a validation, an index extraction): a resource's contained
 * resources by id and a Bundle's entries by fullUrl, built once per resource however many
 * references ask. A search from the start at each reference would make a resource with many
 * contained resources and references cost the square of its size. A pass makes its own, so a
 * resource changed between two passes is never answered from the earlier one. Invariants that ask
 * the same question of every node of a tree remember their answers here for the same reason.
 */
import { isObject } from '../../json';

type Json = Record<string, unknown>;

export class Lookups {
  private readonly byOwner = new Map<object, Map<string, Json>>();
  private readonly remembered = new Map<string, Map<object, unknown>>();

  /** What `compute` says of `owner`, computed once per pass for each `what` (an invariant's key). */
  remember<T>(what: string, owner: object, compute: () => T): T {
    let values = this.remembered.get(what);
    if (!values) this.remembered.set(what, (values = new Map()));
    if (values.has(owner)) return values.get(owner) as T;
    const value = compute();
    values.set(owner, value);
    return value;
  }

  /** The resources contained in `owner`, by id (the first of a repeated id wins, as a search would find it). */
  contained(owner: unknown): ReadonlyMap<string, Json> {
    return this.index(owner, 'contained', 'id', (item) => item);
  }

  /** The resources of a Bundle's entries, by fullUrl. */
  entries(bundle: unknown): ReadonlyMap<string, Json> {
    return this.index(bundle, 'entry', 'fullUrl', (entry) => (isObject(entry.resource) ? entry.resource : undefined));
  }

  private index(owner: unknown, list: 'contained' | 'entry', key: 'id' | 'fullUrl', target: (item: Json) => Json | undefined): ReadonlyMap<string, Json> {
    if (!isObject(owner)) return new Map();
    let index = this.byOwner.get(owner);
    if (!index) {
      index = new Map();
      const items = owner[list];
      for (const item of Array.isArray(items) ? items : []) {
        if (!isObject(item)) continue;
        const k = item[key];
        const found = target(item);
        if (typeof k === 'string' && found && !index.has(k)) index.set(k, found);
      }
      this.byOwner.set(owner, index);
    }
    return index;
  }
}

