/**
 * Writing a converted value into the R5 resource being built: at its rule's R5 path, under the
 * innermost node being built that the path lies in (a rule may move a value up or down the tree),
 * building the nodes on the way.
 */
import { isObject, type JsonObject } from '../json';
import type { ConversionRule } from './model';
import type { ConversionTable } from './tables';

const capitalised = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);

/** Where converted values are written: an R5 node and the (canonical) R5 path it stands at. */
export interface Frame {
  path: string;
  node: JsonObject;
}

/**
 * The node a value at the rule's R5 path goes into, under the innermost frame that path lies in (a
 * rule may move a value up or down the tree), building the nodes on the way. Through a list it takes
 * the last entry, or a new one from the list at `freshAt` on (a segment index).
 */
function nodeFor(frame: Frame, segments: readonly string[], table: ConversionTable, freshAt?: number): { node: JsonObject; lastList?: number } {
  let node = frame.node;
  let path = frame.path;
  let lastList: number | undefined;
  for (let i = 0; i < segments.length; i += 1) {
    const segment = segments[i]!;
    path = `${path}.${segment}`;
    if (table.r5Lists.has(path)) {
      const list = Array.isArray(node[segment]) ? (node[segment] as JsonObject[]) : (node[segment] = [] as JsonObject[]);
      if (list.length === 0 || i === freshAt) list.push({});
      node = list[list.length - 1]!;
      lastList = i;
    } else {
      node = isObject(node[segment]) ? (node[segment] as JsonObject) : (node[segment] = {} as JsonObject);
    }
  }
  return { node, ...(lastList === undefined ? {} : { lastList }) };
}

const NO_SEGMENTS: readonly string[] = [];

/** `Encounter.admission.origin` lies under `Encounter.admission` (a dot after the prefix). */
const isUnder = (path: string, prefix: string) => path.length > prefix.length && path.charCodeAt(prefix.length) === 46 && path.startsWith(prefix);

/** Whether a single R5 element (of a choice: any of its types) already holds a value. */
function isTaken(node: JsonObject, rule: ConversionRule, name: string, key: string): boolean {
  if (!rule.toChoice) return node[key] !== undefined;
  for (const k in node) {
    const next = k.charCodeAt(name.length);
    if (next >= 65 && next <= 90 && k.startsWith(name)) return true;
  }
  return false;
}

/** The innermost frame the rule's R5 path lies in, the segments from it to the target's parent, and the target's name. */
function slotOf(rule: ConversionRule, frames: readonly Frame[]): { frame: Frame; on: readonly string[]; name: string } {
  let frame: Frame | undefined;
  for (let i = frames.length - 1; i >= 0 && !frame; i -= 1) if (isUnder(rule.to, frames[i]!.path)) frame = frames[i];
  if (!frame) throw new Error(`no R5 node for ${rule.to}`);
  const rest = rule.to.slice(frame.path.length + 1);
  const last = rest.lastIndexOf('.');
  return { frame, on: last < 0 ? NO_SEGMENTS : rest.slice(0, last).split('.'), name: last < 0 ? rest : rest.slice(last + 1) };
}

/**
 * Writes a sub-extension into the extension list at the rule's R5 path: into the extension whose url
 * is `chain[0]`, then its sub-extensions named by the rest of `chain`, each found by its url or
 * added. Several R4 children of one R4 value (`DocumentReference.context.related` and
 * `.sourcePatientInfo`) so share the one cross-version extension of that value.
 */
export function placeInExtension(rule: ConversionRule, chain: readonly string[], value: JsonObject, frames: readonly Frame[], table: ConversionTable): void {
  const { frame, on, name } = slotOf(rule, frames);
  const { node } = on.length === 0 ? { node: frame.node } : nodeFor(frame, on, table);
  let list = Array.isArray(node[name]) ? (node[name] as unknown[]) : (node[name] = [] as unknown[]);
  for (const url of chain) {
    let extension = list.find((e): e is JsonObject => isObject(e) && e.url === url);
    if (!extension) list.push((extension = { url }));
    list = Array.isArray(extension.extension) ? extension.extension : (extension.extension = [] as unknown[]);
  }
  list.push(value);
}

/**
 * Writes a converted value at the rule's R5 path; false when it has no place there (a single R5
 * element already holding a value). A value that would land on a taken element of the last entry of
 * a list on the way starts a new entry instead (an asserter after a recorder: a second participant).
 */
export function place(rule: ConversionRule, type: string, value: unknown, frames: readonly Frame[], table: ConversionTable, unlessPresent = false): boolean {
  const { frame, on, name } = slotOf(rule, frames);
  const key = rule.toChoice ? `${name}${capitalised(type)}` : name;
  const first = on.length === 0 ? { node: frame.node } : nodeFor(frame, on, table);
  let node = first.node;
  if (unlessPresent) {
    if (node[key] === undefined) node[key] = value;
    return true;
  }
  if (rule.toList) {
    const list = Array.isArray(node[key]) ? (node[key] as unknown[]) : (node[key] = [] as unknown[]);
    list.push(value);
    return true;
  }
  if (isTaken(node, rule, name, key)) {
    if (first.lastList === undefined) return false;
    ({ node } = nodeFor(frame, on, table, first.lastList));
  }
  node[key] = value;
  return true;
}

