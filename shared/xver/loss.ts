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
    if (v !== null && typeof v === 'object') stack.push(...(Array.isArray(v) ? v : Object.values(v)));
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
  const visit = (value: unknown, path: string, report: string[]): State => {
    if (value === null || value === undefined) return 'empty';
    if (typeof value !== 'object') return kept.has(leafText(value) ?? '') ? 'kept' : 'lost';
    const children: Array<[string, unknown]> = Array.isArray(value)
      ? value.map((v, i) => [`${path}[${i}]`, v])
      : Object.entries(value).map(([k, v]) => [`${path}.${k}`, v]);
    const inner: string[] = [];
    const states = children.map(([p, v]) => [p, visit(v, p, inner)] as const);
    if (!states.some(([, s]) => s === 'kept')) return states.some(([, s]) => s === 'lost') ? 'lost' : 'empty';
    for (const [p, s] of states) if (s === 'lost') inner.push(p);
    report.push(...inner);
    return 'kept';
  };
  const type = typeof input.resourceType === 'string' ? input.resourceType : 'Resource';
  const report: string[] = [];
  for (const [key, value] of Object.entries(input)) {
    if (key === 'resourceType') continue;
    const path = `${type}.${key}`;
    const inner: string[] = [];
    const state = visit(value, path, inner);
    if (state === 'lost') report.push(path);
    else report.push(...inner);
  }
  return report;
}
