/**
 * References between the entries of one Bundle (docs/api.md#references-between-entries): an entry
 * may refer to another by the other's `fullUrl` (`urn:uuid:...`, or an absolute URL ending in
 * `<Type>/<id>`) or, where that is unambiguous, by `<Type>/<id>` (the relative form, against the
 * Bundle's own base). The service gives every stored resource an id of its own, so such a reference
 * would point at nothing once stored. Entries are therefore stored in waves: an entry after those it
 * refers to, its references rewritten to the ids they were stored under (`Observation/<id>`).
 *
 * Each entry is still answered on its own: one whose target was not stored (refused, not finished,
 * or in a cycle of references) keeps the reference as written, and its answer says so. Planning is
 * linear in the Bundle: one walk of each resource and one lookup per reference.
 */
import { issue, type OutcomeIssue } from '../../fhir/outcome';
import { isObject } from '../../json';
import type { ParsedEntry } from './bundle';

/** A `<Type>/<id>` at the end of a URL (FHIR ids: at most 64 of `A-Za-z0-9-.`). */
const TYPED_ID = /(?:^|\/)([A-Z][A-Za-z]+\/[A-Za-z0-9\-.]{1,64})$/;

/** The names other entries may refer to this one by. */
function namesOf(entry: ParsedEntry): string[] {
  if (!entry.ok) return [];
  const names = new Set<string>();
  if (entry.fullUrl !== undefined) {
    names.add(entry.fullUrl);
    const typed = TYPED_ID.exec(entry.fullUrl)?.[1];
    if (typed !== undefined && !entry.fullUrl.startsWith('urn:')) names.add(typed);
  }
  const id = isObject(entry.resource) ? entry.resource.id : undefined;
  if (typeof id === 'string') names.add(`${entry.type}/${id}`);
  return [...names];
}

/** Where a reference is written in a resource, and to what. */
interface ReferenceSite {
  /** `DiagnosticReport.result[0].reference` */
  path: string;
  value: string;
}

/** Every `reference` text in a resource (contained resources included; local `#id` ones left out). */
function referenceSites(resource: unknown, path: string, out: ReferenceSite[] = []): ReferenceSite[] {
  if (Array.isArray(resource)) {
    resource.forEach((item, i) => referenceSites(item, `${path}[${i}]`, out));
  } else if (isObject(resource)) {
    for (const [key, value] of Object.entries(resource)) {
      if (key === 'reference' && typeof value === 'string' && !value.startsWith('#')) out.push({ path: `${path}.reference`, value });
      else if (typeof value === 'object' && value !== null) referenceSites(value, `${path}.${key}`, out);
    }
  }
  return out;
}

export interface ReferencePlan {
  /** Entry indexes in the order they are stored: each wave after the ones its entries refer to. */
  waves: number[][];
  /** Per entry, its references to other entries: where, and which entry. */
  references: Map<number, Array<ReferenceSite & { target: number }>>;
}

/** The waves a Bundle's entries are stored in; one wave (every entry) when none refers to another. */
export function planReferences(entries: readonly ParsedEntry[]): ReferencePlan {
  const byName = new Map<string, number>();
  const ambiguous = new Set<string>();
  entries.forEach((entry, index) => {
    for (const name of namesOf(entry)) {
      if (byName.has(name) && byName.get(name) !== index) ambiguous.add(name);
      else byName.set(name, index);
    }
  });
  for (const name of ambiguous) byName.delete(name);

  const references = new Map<number, Array<ReferenceSite & { target: number }>>();
  const dependents = new Map<number, number[]>();
  const waiting = new Array<number>(entries.length).fill(0);
  entries.forEach((entry, index) => {
    if (!entry.ok || byName.size === 0) return;
    const sites = referenceSites(entry.resource, entry.type).flatMap((site) => {
      const target = byName.get(site.value);
      return target === undefined ? [] : [{ ...site, target }];
    });
    if (sites.length === 0) return;
    references.set(index, sites);
    for (const target of new Set(sites.map((s) => s.target))) {
      if (target === index) continue;
      waiting[index]! += 1;
      dependents.set(target, [...(dependents.get(target) ?? []), index]);
    }
  });
  if (references.size === 0) return { waves: [entries.map((_, i) => i)], references };

  // Kahn's layering: a wave is every entry whose targets are all in earlier waves.
  const waves: number[][] = [];
  let ready = entries.map((_, i) => i).filter((i) => waiting[i] === 0);
  const placed = new Set<number>();
  while (ready.length > 0) {
    waves.push(ready);
    for (const i of ready) placed.add(i);
    const next: number[] = [];
    for (const i of ready) {
      for (const d of dependents.get(i) ?? []) {
        waiting[d]! -= 1;
        if (waiting[d] === 0) next.push(d);
      }
    }
    ready = next;
  }
  // Entries in a cycle (and those after them) go last; their references within it stay as written.
  const rest = entries.map((_, i) => i).filter((i) => !placed.has(i));
  if (rest.length > 0) waves.push(rest);
  return { waves, references };
}

/**
 * The entry's resource with its references to stored entries rewritten to where they were stored
 * (`stored`: entry index to `<Type>/<id>`), and a warning for each reference whose target was not
 * stored (kept as written).
 */
export function resolveReferences(entry: ParsedEntry, sites: ReadonlyArray<ReferenceSite & { target: number }>, stored: ReadonlyMap<number, string>): { entry: ParsedEntry; notes: OutcomeIssue[] } {
  if (!entry.ok) return { entry, notes: [] };
  const rewritten = new Map<string, string>();
  const notes: OutcomeIssue[] = [];
  for (const site of sites) {
    const to = stored.get(site.target);
    if (to !== undefined) rewritten.set(site.value, to);
    else notes.push(issue('warning', 'not-found', `${site.path} names entry ${site.target} of the Bundle (${site.value}), which was not stored before this one; the reference is kept as written.`, site.path));
  }
  if (rewritten.size === 0) return { entry, notes };
  return { entry: { ...entry, resource: rewrite(entry.resource, rewritten) }, notes };
}

/** A copy of `value` with each `reference` text found in `to` replaced. */
function rewrite(value: unknown, to: ReadonlyMap<string, string>): unknown {
  if (Array.isArray(value)) return value.map((item) => rewrite(item, to));
  if (!isObject(value)) return value;
  return Object.fromEntries(
    Object.entries(value).map(([key, v]) => [key, key === 'reference' && typeof v === 'string' && to.has(v) ? to.get(v)! : rewrite(v, to)]),
  );
}
