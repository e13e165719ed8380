/**
 * What an R4 -> R5 conversion lost, by value: every scalar leaf of the R5 output goes into a set;
 * an R4 node none of whose leaves has its value in that set is lost, and reported once, at its
 * highest path (`CarePlan.activity` when every activity is lost, `CarePlan.activity[0].detail` when
 * only that is). A renamed element keeps its values and is not reported; a lost value that equals a
 * surviving one elsewhere is missed (the price of comparing by value); `1` and `1.0` differ.
 */

type State = 'empty' | 'lost' | 'kept';

function leafText(value: unknown): string | undefined {
  return typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean' ? String(value) : undefined;
}

function collectLeaves(value: unknown, into: Set<string>): void {
  const stack: unknown[] = [value];
  while (stack.length > 0) {
    const v = stack.pop();
    // One push at a time: spreading a list of a few hundred thousand items overflows the call stack.
    if (v !== null && typeof v === 'object') for (const item of Array.isArray(v) ? v : Object.values(v)) stack.push(item);
    else {
      const text = leafText(v);
      if (text !== undefined) into.add(text);
    }
  }
}

/** Paths (`<Type>.<path>`) of the R4 input whose values appear nowhere in the output. */
export function droppedPaths(input: Record<string, unknown>, output: unknown): string[] {
  const kept = new Set<string>();
  collectLeaves(output, kept);
  /** A node's state, with (when partly kept) the paths lost under it, in document order. */
  const visit = (value: unknown, path: string): { state: State; lost: string[] } => {
    if (value === null || value === undefined) return { state: 'empty', lost: [] };
    if (typeof value !== 'object') return { state: kept.has(leafText(value) ?? '') ? 'kept' : 'lost', lost: [] };
    const children: Array<[string, unknown]> = Array.isArray(value)
      ? value.map((v, i) => [`${path}[${i}]`, v])
      : Object.entries(value).map(([k, v]) => [`${path}.${k}`, v]);
    const visited = children.map(([p, v]) => ({ path: p, ...visit(v, p) }));
    if (!visited.some((c) => c.state === 'kept')) return { state: visited.some((c) => c.state === 'lost') ? 'lost' : 'empty', lost: [] };
    return { state: 'kept', lost: visited.flatMap((c) => (c.state === 'lost' ? [c.path] : c.lost)) };
  };
  const type = typeof input.resourceType === 'string' ? input.resourceType : 'Resource';
  return Object.entries(input)
    .filter(([key]) => key !== 'resourceType')
    .flatMap(([key, value]) => {
      const path = `${type}.${key}`;
      const { state, lost } = visit(value, path);
      return state === 'lost' ? [path] : lost;
    });
}
