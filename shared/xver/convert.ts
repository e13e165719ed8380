/**
 * The R4 -> R5 converter: walks an R4 resource by its R4 definitions (each JSON key looked up in the
 * compiled table of the type it belongs to) and writes each value where its rule says, converting
 * the datatype when R5 changed it. What has no rule is not carried: unknown keys, primitive
 * extensions (`_field`), elements R5 dropped. A rule that fails on a value is skipped and the rest
 * still converts; empty containers are pruned. The loss detector then says what was not carried.
 */
import { targetTypeOf, type Conversion } from './conversions';
import type { ConversionRule, R4Element, RuleCondition } from './model';
import { conversionTable, typeKinds, type ConversionTable } from './tables';

type Json = Record<string, unknown>;

const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);
const capitalised = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);

/** Where converted values are written: an R5 node and the (canonical) R5 path it stands at. */
interface Frame {
  path: string;
  node: Json;
}

/** Deeper than this (nested backbones, datatypes, contained resources) is refused, not recursed. */
const MAX_DEPTH = 64;

export type TableLookup = (type: string) => ConversionTable | undefined;

class Converter {
  constructor(private readonly tables: TableLookup) {}

  resource(r4: Json, depth = 0): Json | undefined {
    const type = r4.resourceType;
    const table = typeof type === 'string' ? this.tables(type) : undefined;
    if (!table?.r5 || table.type !== type) return undefined;
    const out: Json = { resourceType: table.r5 };
    this.into(r4, table, table.type, [{ path: table.r5, node: out }], depth);
    return out;
  }

  /** Converts the children of an R4 node (at `r4Path` of `table`) into the frames' R5 nodes. */
  private into(src: Json, table: ConversionTable, r4Path: string, frames: Frame[], depth: number): void {
    if (depth > MAX_DEPTH) throw new Error('nested too deeply');
    const keys = table.keys.get(r4Path);
    if (!keys) return;
    for (const [key, value] of Object.entries(src)) {
      const hit = keys.get(key);
      if (!hit || value === null || value === undefined) continue;
      const [elementPath, r4Type] = hit;
      const element = table.elements.get(elementPath);
      if (!element) continue;
      for (const rule of element.rules) {
        if (rule.fromType !== undefined && rule.fromType !== r4Type) continue;
        try {
          this.apply(rule, element, r4Type, value, table, frames, depth);
        } catch {
          // A rule that errors is skipped; the loss detector reports what it did not carry.
        }
      }
    }
  }

  private apply(rule: ConversionRule, element: R4Element, r4Type: string, value: unknown, table: ConversionTable, frames: Frame[], depth: number): void {
    const target = targetTypeOf(r4Type, rule.toTypes, typeKinds);
    if (!target) return;
    for (const item of Array.isArray(value) ? value : [value]) {
      if (item === null || item === undefined) continue;
      if (rule.when && !holds(rule.when, item)) continue;
      const converted = this.value(item, r4Type, target.conversion, rule, element, table, frames, depth);
      if (converted === undefined) continue;
      place(rule, target.type, converted, frames, table);
      for (const constant of rule.set ?? []) {
        place({ to: constant.to, toTypes: [], ...(constant.toList ? { toList: true } : {}) }, '', structuredClone(constant.value), frames, table, true);
      }
    }
  }

  private value(
    item: unknown,
    r4Type: string,
    conversion: Conversion,
    rule: ConversionRule,
    element: R4Element,
    table: ConversionTable,
    frames: Frame[],
    depth: number,
  ): unknown {
    switch (conversion) {
      case 'same': {
        const kind = typeKinds.r4Primitive(r4Type);
        if (kind !== undefined) return typeof item === kind ? item : undefined;
        return isObject(item) ? this.datatype(item, r4Type, depth) : undefined;
      }
      case 'string-to-identifier':
        return typeof item === 'string' ? { value: item } : undefined;
      case 'number-to-integer64':
        return typeof item === 'number' && Number.isSafeInteger(item) ? String(item) : undefined;
      case 'code-to-coding':
        return typeof item === 'string' ? { ...(rule.coding ?? {}), code: item } : undefined;
      case 'code-to-concept':
        return typeof item === 'string' ? { coding: [{ ...(rule.coding ?? {}), code: item }] } : undefined;
      case 'coding-to-concept':
        return isObject(item) ? { coding: [this.datatype(item, 'Coding', depth)] } : undefined;
      case 'reference-to-codeable-reference':
        return isObject(item) ? { reference: this.datatype(item, 'Reference', depth) } : undefined;
      case 'concept-to-codeable-reference':
        return isObject(item) ? { concept: this.datatype(item, 'CodeableConcept', depth) } : undefined;
      case 'backbone': {
        if (!isObject(item) || !element.childrenAt) return undefined;
        const node: Json = {};
        this.into(item, table, element.childrenAt, [...frames, { path: rule.toChildrenAt ?? rule.to, node }], depth + 1);
        return node;
      }
      case 'resource':
        return isObject(item) ? this.resource(item, depth + 1) : undefined;
    }
  }

  /** A datatype value, converted by its own table into the R5 datatype of the same name. */
  private datatype(item: Json, r4Type: string, depth: number): Json | undefined {
    const table = this.tables(r4Type);
    if (!table?.r5) return undefined;
    const node: Json = {};
    this.into(item, table, table.type, [{ path: table.r5, node }], depth + 1);
    return node;
  }
}

/** `s = 'x'` / `s.child != 'x'` on an R4 value; an absent value satisfies neither. */
function holds(condition: RuleCondition, item: unknown): boolean {
  const value = condition.child === undefined ? item : isObject(item) && Object.hasOwn(item, condition.child) ? item[condition.child] : undefined;
  if (typeof value !== 'string' && typeof value !== 'number' && typeof value !== 'boolean') return false;
  return (String(value) === condition.value) === (condition.op === '=');
}

/**
 * Writes a converted value at the rule's R5 path, under the innermost frame that path lies in
 * (a rule may move a value up or down the tree), building the nodes on the way.
 */
function place(rule: ConversionRule, type: string, value: unknown, frames: readonly Frame[], table: ConversionTable, unlessPresent = false): void {
  let frame: Frame | undefined;
  for (let i = frames.length - 1; i >= 0 && !frame; i -= 1) if (rule.to.startsWith(`${frames[i]!.path}.`)) frame = frames[i];
  if (!frame) throw new Error(`no R5 node for ${rule.to}`);
  const segments = rule.to.slice(frame.path.length + 1).split('.');
  let node = frame.node;
  let path = frame.path;
  for (const segment of segments.slice(0, -1)) {
    path = `${path}.${segment}`;
    if (table.r5Lists.has(path)) {
      const list = Array.isArray(node[segment]) ? (node[segment] as Json[]) : (node[segment] = [{}] as Json[]);
      node = list[list.length - 1]!;
    } else {
      node = isObject(node[segment]) ? (node[segment] as Json) : (node[segment] = {} as Json);
    }
  }
  const name = segments[segments.length - 1]!;
  const key = rule.toChoice ? `${name}${capitalised(type)}` : name;
  if (unlessPresent && node[key] !== undefined) return;
  if (rule.toList) {
    const list = Array.isArray(node[key]) ? (node[key] as unknown[]) : (node[key] = [] as unknown[]);
    list.push(value);
    return;
  }
  // A single R5 element takes the first value; later ones are not carried (and are reported lost).
  const taken = rule.toChoice ? Object.keys(node).some((k) => k.startsWith(name) && /^[A-Z]/.test(k.slice(name.length))) : node[key] !== undefined;
  if (!taken) node[key] = value;
}

/** Removes empty objects and lists, innermost first; an empty result is undefined. */
export function pruned(value: unknown): unknown {
  if (Array.isArray(value)) {
    const items = value.map(pruned).filter((v) => v !== undefined);
    return items.length > 0 ? items : undefined;
  }
  if (isObject(value)) {
    const out: Json = {};
    for (const [k, v] of Object.entries(value)) {
      const kept = pruned(v);
      if (kept !== undefined) out[k] = kept;
    }
    return Object.keys(out).length > 0 ? out : undefined;
  }
  return value;
}

/**
 * An R4 resource as R5, or undefined when its type has no R5 counterpart. The input is not
 * changed; the output shares no objects with it.
 */
export function convertR4Resource(r4: Json, tables: TableLookup = conversionTable): Json | undefined {
  const out = new Converter(tables).resource(r4);
  return out === undefined ? undefined : ((pruned(out) as Json | undefined) ?? { resourceType: out.resourceType });
}
