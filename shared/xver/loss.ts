/**
 * What an R4 -> R5 conversion lost, by value: every scalar leaf of the R5 output goes into a set;
 * an R4 node none of whose leaves has its value in that set is lost, and reported once, at its
 * highest path (`CarePlan.activity` when every activity is lost, `CarePlan.activity[0].detail` when
 * only that is). A renamed element keeps its values and is not reported; `1` and `1.0` differ.
 *
 * The converter's own record of what it did not carry (`R4Conversion.skips`) sharpens this: a node it
 * skipped is lost whole, even where one of its values equals a surviving one elsewhere (which the
 * comparison by value alone would miss), and each reported path takes its cause from that record.
 */
import type { R4Conversion } from './convert';
import type { Drop, Skip } from './why';

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

/** A lost path, with the path of the first skip at or below it. */
interface Lost {
  path: string;
  cause?: string;
}

interface Visited {
  state: State;
  /** When partly kept: the paths lost under the node, in document order. */
  lost: Lost[];
  /** When lost: the first skip at or below the node. */
  cause?: string;
}

const NO_SKIPS: ReadonlyMap<string, Skip> = new Map();

function lostPaths(input: Record<string, unknown>, output: unknown, skips: ReadonlyMap<string, Skip>): Lost[] {
  const kept = new Set<string>();
  collectLeaves(output, kept);
  const visit = (value: unknown, path: string): Visited => {
    if (value === null || value === undefined) return { state: 'empty', lost: [] };
    const skipped = skips.has(path);
    if (typeof value !== 'object') {
      return skipped || !kept.has(leafText(value) ?? '') ? { state: 'lost', lost: [], cause: skipped ? path : undefined } : { state: 'kept', lost: [] };
    }
    const children: Array<[string, unknown]> = Array.isArray(value)
      ? value.map((v, i) => [`${path}[${i}]`, v])
      : Object.entries(value).map(([k, v]) => [`${path}.${k}`, v]);
    const visited = children.map(([p, v]) => ({ path: p, ...visit(v, p) }));
    const anyLost = visited.some((c) => c.state === 'lost');
    if (skipped) return anyLost || visited.some((c) => c.state === 'kept') ? { state: 'lost', lost: [], cause: path } : { state: 'empty', lost: [] };
    if (!visited.some((c) => c.state === 'kept')) {
      return anyLost ? { state: 'lost', lost: [], cause: visited.find((c) => c.state === 'lost' && c.cause !== undefined)?.cause } : { state: 'empty', lost: [] };
    }
    return { state: 'kept', lost: visited.flatMap((c) => (c.state === 'lost' ? [{ path: c.path, cause: c.cause }] : c.lost)) };
  };
  const type = typeof input.resourceType === 'string' ? input.resourceType : 'Resource';
  return Object.entries(input)
    .filter(([key]) => key !== 'resourceType')
    .flatMap(([key, value]) => {
      const path = `${type}.${key}`;
      const { state, lost, cause } = visit(value, path);
      return state === 'lost' ? [{ path, cause }] : lost;
    });
}

/** Paths (`<Type>.<path>`) of the R4 input whose values appear nowhere in the output (by value alone). */
export function droppedPaths(input: Record<string, unknown>, output: unknown): string[] {
  return lostPaths(input, output, NO_SKIPS).map((l) => l.path);
}

/** What the conversion lost, each path with its cause. */
export function lossReport(input: Record<string, unknown>, conversion: R4Conversion): Drop[] {
  return lostPaths(input, conversion.resource, conversion.skips).map(({ path, cause }): Drop => {
    const skip = cause === undefined ? undefined : conversion.skips.get(cause);
    if (!skip) return { path, kind: 'no-place', why: 'its values appear nowhere in the R5 resource' };
    return { path, ...skip, ...(cause !== path ? { at: cause } : {}) };
  });
}
