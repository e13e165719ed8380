/** Which contained resources an R5 resource keeps: those something in it refers to (R5 refuses the rest). */
import { isObject, type JsonObject } from '../json';

/** The element a dropped unreferenced contained resource is reported under (the loss report's and the docs' one name for it). */
export const CONTAINED_ELEMENT = 'Resource.contained';

/**
 * The contained resources of `resource` nothing refers to: not the resource itself, not a contained
 * resource it reaches, and none referring to its container (`#`). Any string `#<id>` counts as a
 * reference (R5's rule counts references, canonicals and URIs). Linear in the resource's size.
 */
export function unreferencedContained(resource: JsonObject): Set<JsonObject> {
  const contained = (resource.contained as unknown[]).filter(isObject);
  const byId = new Map<string, JsonObject[]>();
  for (const c of contained) {
    if (typeof c.id !== 'string') continue;
    const same = byId.get(`#${c.id}`);
    if (same) same.push(c);
    else byId.set(`#${c.id}`, [c]);
  }
  const refsIn = (value: unknown): string[] => {
    const refs: string[] = [];
    const stack = [value];
    while (stack.length > 0) {
      const v = stack.pop();
      if (typeof v === 'string') {
        if (v.startsWith('#')) refs.push(v);
      } else if (v !== null && typeof v === 'object') for (const child of Array.isArray(v) ? v : Object.values(v)) stack.push(child);
    }
    return refs;
  };
  const reached = new Set<JsonObject>();
  const queue: string[] = [];
  for (const [key, value] of Object.entries(resource)) if (key !== 'contained') for (const r of refsIn(value)) queue.push(r);
  const refsOf = new Map(contained.map((c) => [c, refsIn(c)]));
  for (const c of contained) {
    const refs = refsOf.get(c)!;
    if (refs.includes('#')) {
      reached.add(c);
      for (const r of refs) queue.push(r);
    }
  }
  while (queue.length > 0) {
    const ref = queue.pop()!;
    // Each id's resources are reached once: a reference named a thousand times is followed once.
    const targets = byId.get(ref);
    if (!targets) continue;
    byId.delete(ref);
    for (const c of targets) {
      if (reached.has(c)) continue;
      reached.add(c);
      for (const r of refsOf.get(c)!) queue.push(r);
    }
  }
  return new Set(contained.filter((c) => !reached.has(c)));
}

