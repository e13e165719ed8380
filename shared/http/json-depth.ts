/**
 * How deep a parsed JSON value nests, counted without recursion: the value is untrusted, and every
 * recursive walk after it (key conversion, merge patches, validation) relies on this bound.
 */

/** The nesting depth of objects and lists (a scalar is 0, `{}` is 1), counting no further than `limit + 1`. */
export function jsonDepth(value: unknown, limit = Number.POSITIVE_INFINITY): number {
  let deepest = 0;
  const stack: Array<[unknown, number]> = [[value, 1]];
  while (stack.length > 0) {
    const [v, depth] = stack.pop()!;
    if (v === null || typeof v !== 'object') continue;
    if (depth > deepest) deepest = depth;
    if (deepest > limit) return deepest;
    for (const child of Array.isArray(v) ? v : Object.values(v)) stack.push([child, depth + 1]);
  }
  return deepest;
}
