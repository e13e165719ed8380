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

/** A node's state; when lost, the first skip at or below it. */
interface Visited {
  state: State;
  cause?: string;
}

const EMPTY: Visited = { state: 'empty' };
const KEPT: Visited = { state: 'kept' };
const LOST: Visited = { state: 'lost' };
const NO_SKIPS: ReadonlyMap<string, Skip> = new Map();

/**
 * The lost paths in document order. A partly kept node leaves in `out` the lost paths under it; a
 * wholly lost one leaves nothing there (its caller reports it, or its own highest lost ancestor).
 */
class LossWalk {
  readonly out: Lost[] = [];
  private readonly kept = new Set<string>();

  constructor(
    output: unknown,
    private readonly skips: ReadonlyMap<string, Skip>,
  ) {
    collectLeaves(output, this.kept);
  }

  visit(value: unknown, path: string): Visited {
    if (value === null || value === undefined) return EMPTY;
    const skipped = this.skips.size > 0 && this.skips.has(path);
    if (typeof value !== 'object') return skipped ? { state: 'lost', cause: path } : this.kept.has(leafText(value) ?? '') ? KEPT : LOST;
    const mark = this.out.length;
    const children = { kept: false, lost: false, cause: undefined as string | undefined };
    if (Array.isArray(value)) for (let i = 0; i < value.length; i += 1) this.child(value[i], `${path}[${i}]`, children);
    else for (const k in value) this.child((value as Record<string, unknown>)[k], `${path}.${k}`, children);
    if (!skipped && children.kept) return KEPT;
    this.out.length = mark;
    if (skipped) return children.kept || children.lost ? { state: 'lost', cause: path } : EMPTY;
    if (!children.lost) return EMPTY;
    return children.cause === undefined ? LOST : { state: 'lost', cause: children.cause };
  }

  private child(value: unknown, path: string, into: { kept: boolean; lost: boolean; cause: string | undefined }): void {
    const c = this.visit(value, path);
    if (c.state === 'kept') into.kept = true;
    else if (c.state === 'lost') {
      into.lost = true;
      into.cause ??= c.cause;
      this.out.push(c.cause === undefined ? { path } : { path, cause: c.cause });
    }
  }
}

function lostPaths(input: Record<string, unknown>, output: unknown, skips: ReadonlyMap<string, Skip>): Lost[] {
  const walk = new LossWalk(output, skips);
  const type = typeof input.resourceType === 'string' ? input.resourceType : 'Resource';
  for (const key in input) {
    if (key === 'resourceType') continue;
    const path = `${type}.${key}`;
    const v = walk.visit(input[key], path);
    if (v.state === 'lost') walk.out.push(v.cause === undefined ? { path } : { path, cause: v.cause });
  }
  return walk.out;
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
