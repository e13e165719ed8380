/**
 * The R4 -> R5 converter: walks an R4 resource by its R4 definitions (each JSON key looked up in the
 * compiled table of the type it belongs to) and writes each value where its rule says, converting
 * the datatype when R5 changed it. What it does not carry it records, with why (`Skip`): a key R4
 * does not define, a value whose JSON shape does not fit its R4 type, an element R5 removed, a value
 * R5 has no place for, a primitive extension (`_field`), a contained resource nothing refers to any
 * more. An element R5 removed, or one R4's values cannot fill validly in R5, goes into its standard
 * cross-version extension where its rule says so. A rule that fails on a value is skipped and the
 * rest still converts; empty containers are pruned. The loss report (`loss.ts`) then says what was lost, and these records why.
 */
import { targetTypeOf, type Conversion, type JsonKind } from './conversions';
import type { ConversionRule, R4Element, RuleCondition } from './model';
import { CONTAINED_ELEMENT, unreferencedContained } from './contained';
import { isObject, type JsonObject } from '../json';
import { place, placeInExtension, type Frame } from './place';
import { conversionTable, typeKinds, type ConversionTable } from './tables';
import { pathOf, type Skip, type SkipKind } from './why';


/** Why a rule did not carry a value; `takes`: the values a rule's condition lets through. */
interface Miss {
  kind: SkipKind;
  why: string;
  takes?: string;
}

/** A conversion that produced no value, with why. */
class NoValue {
  constructor(readonly why: string) {}
}

/**
 * Nesting an imported resource may have (the deepest R4 example nests 13 levels): the import refuses
 * a deeper resource before converting it, and the conversion refuses deeper nesting (backbones,
 * datatypes, contained resources) rather than recursing.
 */
export const MAX_IMPORT_DEPTH = 64;

export type TableLookup = (type: string) => ConversionTable | undefined;

/** The JSON shape of a value, in the words a reason uses. */
function shapeOf(value: unknown): JsonKind | 'object' | 'list' | 'null' {
  if (Array.isArray(value)) return 'list';
  if (value === null) return 'null';
  const t = typeof value;
  return t === 'string' || t === 'number' || t === 'boolean' ? t : 'object';
}

const capitalised = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);

const SHAPE_WORDS: Record<ReturnType<typeof shapeOf>, string> = {
  string: 'a JSON string',
  number: 'a JSON number',
  boolean: 'a JSON boolean',
  object: 'a JSON object',
  list: 'a list',
  null: 'null',
};

class Converter {
  readonly skips = new Map<string, Skip>();
  /** Contained resources of the top-level resource, by converted node: their R4 paths. */
  private readonly containedAt = new Map<JsonObject, string>();
  /** Where the walk stands in the R4 input: the type, then keys and list indexes. */
  private readonly at: Array<string | number>;

  constructor(
    private readonly tables: TableLookup,
    type: string,
  ) {
    this.at = [type];
  }

  resource(r4: JsonObject, depth = 0): JsonObject | undefined {
    const type = r4.resourceType;
    const table = typeof type === 'string' ? this.tables(type) : undefined;
    if (!table?.r5 || table.type !== type) return undefined;
    const out: JsonObject = { resourceType: table.r5 };
    this.into(r4, table, table.type, [{ path: table.r5, node: out }], depth);
    return out;
  }

  /** Drops the top-level resource's contained resources that nothing refers to any more (R5 requires a reference). */
  dropUnreferenced(out: JsonObject): void {
    if (!Array.isArray(out.contained)) return;
    const unreferenced = unreferencedContained(out);
    if (unreferenced.size === 0) return;
    out.contained = out.contained.filter((c) => !unreferenced.has(c as JsonObject));
    for (const node of unreferenced) {
      const path = this.containedAt.get(node);
      if (path !== undefined) {
        this.record(path, 'no-place', CONTAINED_ELEMENT, 'nothing in the R5 resource refers to this contained resource any more (what referred to it was dropped), and R5 keeps a contained resource only where something refers to it');
      }
    }
  }

  /** Records what was not carried at the current place (or at its child `key`). */
  private skip(kind: SkipKind, element: string | undefined, why: string, key?: string): void {
    this.record(pathOf(key === undefined ? this.at : [...this.at, key]), kind, element, why);
  }

  private record(path: string, kind: SkipKind, element: string | undefined, why: string): void {
    if (!this.skips.has(path)) this.skips.set(path, { kind, why, ...(element ? { element } : {}) });
  }

  /** Records a key R4 does not define at `r4Path`: a primitive's extensions (`_field`), or an unknown element. */
  private skipUndefined(key: string, keys: ReadonlyMap<string, unknown>, r4Path: string): void {
    if (key.startsWith('_') && keys.has(key.slice(1))) {
      this.skip('primitive-extension', undefined, "it holds the extensions of a primitive value (R4 JSON's sibling object), which this import does not carry", key);
    } else {
      this.skip('unknown-element', undefined, `R4's ${r4Path} has no ${key}`, key);
    }
  }

  /** Converts the children of an R4 node (at `r4Path` of `table`) into the frames' R5 nodes. */
  private into(src: JsonObject, table: ConversionTable, r4Path: string, frames: Frame[], depth: number): void {
    if (depth > MAX_IMPORT_DEPTH) throw new Error('nested too deeply');
    const keys = table.keys.get(r4Path);
    if (!keys) return;
    const isRoot = r4Path === table.type && table.kind === 'resource';
    for (const [key, value] of Object.entries(src)) {
      if (value === null || value === undefined || (isRoot && key === 'resourceType')) continue;
      const hit = keys.get(key);
      if (!hit) {
        this.skipUndefined(key, keys, r4Path);
        continue;
      }
      const [elementPath, r4Type] = hit;
      const element = table.elements.get(elementPath);
      if (!element) continue;
      this.at.push(key);
      this.element(element, elementPath, r4Type, value, table, frames, depth);
      this.at.pop();
    }
  }

  /** One element's value (each item of a list): checked against its R4 type, then converted by its rules. */
  private element(element: R4Element, elementPath: string, r4Type: string, value: unknown, table: ConversionTable, frames: Frame[], depth: number): void {
    const list = Array.isArray(value);
    if (list && !element.list) {
      this.skip('wrong-shape', elementPath, `R4's ${elementPath} holds one ${r4Type}, and the value is a list`);
      return;
    }
    if (element.rules.length === 0 && !element.lift) {
      this.skip('removed', elementPath, element.why ?? 'R5 has no counterpart for it');
      return;
    }
    // A single value where R4 has a list is read as a list of one: the value is unambiguous.
    const items: unknown[] = list ? value : [value];
    const expected: JsonKind | 'object' = typeKinds.r4Primitive(r4Type) ?? 'object';
    for (let i = 0; i < items.length; i += 1) {
      const item = items[i];
      if (item === null || item === undefined) continue;
      if (list) this.at.push(i);
      this.item(element, elementPath, r4Type, expected, item, table, frames, depth);
      if (list) this.at.pop();
    }
  }

  private item(element: R4Element, elementPath: string, r4Type: string, expected: JsonKind | 'object', item: unknown, table: ConversionTable, frames: Frame[], depth: number): void {
    const shape = shapeOf(item);
    if (shape !== expected) {
      this.skip('wrong-shape', elementPath, `R4's ${elementPath} is a ${r4Type}, ${SHAPE_WORDS[expected]}, and the value is ${SHAPE_WORDS[shape]}`);
      return;
    }
    if (element.lift) {
      this.into(item as JsonObject, table, element.childrenAt!, frames, depth + 1);
      return;
    }
    let carried = false;
    let misses: Miss[] | undefined;
    let hasParts = false;
    for (const rule of element.rules) {
      if (rule.part) hasParts = true;
      if (rule.part || (rule.fromType !== undefined && rule.fromType !== r4Type)) continue;
      const result = this.attempt(rule, r4Type, item, element, table, frames, depth);
      if (result === true) carried = true;
      else (misses ??= []).push(result);
    }
    if (hasParts) {
      this.parts(element, elementPath, item as JsonObject, table, frames, depth, carried);
      return;
    }
    if (!carried) {
      const miss = combined(misses ?? [], r4Type, elementPath, element);
      this.skip(miss.kind, elementPath, miss.why);
    }
  }

  /**
   * A value of which rules take parts (`Medication.amount.numerator`): the other children are not
   * carried, unless the whole value was (`wholeKept`: in its cross-version extension), in which case
   * no part is lost whatever its rule does.
   */
  private parts(element: R4Element, elementPath: string, item: JsonObject, table: ConversionTable, frames: Frame[], depth: number, wholeKept: boolean): void {
    const taken = new Set<string>();
    for (const rule of element.rules) {
      if (!rule.part) continue;
      const { key, type } = rule.part;
      if (!Object.hasOwn(item, key) || item[key] === null || item[key] === undefined) continue;
      taken.add(key);
      this.at.push(key);
      if (shapeOf(item[key]) !== (typeKinds.r4Primitive(type) ?? 'object')) {
        if (!wholeKept) this.skip('wrong-shape', `${elementPath}.${key}`, `R4's ${elementPath}.${key} is a ${type}, and the value is ${SHAPE_WORDS[shapeOf(item[key])]}`);
      } else {
        const result = this.attempt(rule, type, item[key], element, table, frames, depth);
        if (result !== true && !wholeKept) this.skip(result.kind, `${elementPath}.${key}`, result.why);
      }
      this.at.pop();
    }
    if (wholeKept) return;
    for (const key of Object.keys(item)) {
      if (!taken.has(key)) this.skip('removed', elementPath, element.why ?? `R5 keeps only part of ${elementPath}`, key);
    }
  }

  /** Applies one rule to one value: true when carried, else why not. A rule that throws carries nothing. */
  private attempt(rule: ConversionRule, r4Type: string, item: unknown, element: R4Element, table: ConversionTable, frames: Frame[], depth: number): true | Miss {
    const at = this.at.length;
    try {
      return this.apply(rule, r4Type, item, element, table, frames, depth);
    } catch {
      // The rest of the resource still converts; this value is reported.
      this.at.length = at;
      return { kind: 'no-place', why: 'its conversion rule failed on this value' };
    }
  }

  private apply(rule: ConversionRule, r4Type: string, item: unknown, element: R4Element, table: ConversionTable, frames: Frame[], depth: number): true | Miss {
    if (rule.extension) return this.crossVersion(rule, rule.extension, r4Type, item, element, table, frames, depth);
    const target = targetTypeOf(r4Type, rule.toTypes, typeKinds);
    if (!target) {
      const takes = rule.toTypes.length <= 3 ? ` (it takes ${rule.toTypes.join(' or ')})` : '';
      return { kind: 'removed', why: `R5's ${rule.to} takes no ${r4Type}${takes}` };
    }
    if (rule.when && !holds(rule.when, item)) {
      const takes = conditionText(rule.when);
      return { kind: 'no-place', why: `R5 takes only ${takes} here`, takes };
    }
    const converted = this.value(item, r4Type, target.conversion, rule, element, table, frames, depth);
    if (converted instanceof NoValue) return { kind: 'no-place', why: converted.why };
    if (!place(rule, target.type, converted, frames, table)) {
      return { kind: 'no-place', why: `R5's ${rule.to} holds one value, and an earlier value took it` };
    }
    for (const constant of rule.set ?? []) {
      place({ to: constant.to, toTypes: [], ...(constant.toList ? { toList: true } : {}) }, '', structuredClone(constant.value), frames, table, true);
    }
    return true;
  }

  /** The converted value, or why there is none. The item's JSON shape was checked. */
  private value(item: unknown, r4Type: string, conversion: Conversion, rule: ConversionRule, element: R4Element, table: ConversionTable, frames: Frame[], depth: number): unknown {
    switch (conversion) {
      case 'same':
        return typeKinds.r4Primitive(r4Type) !== undefined ? item : this.datatype(item as JsonObject, r4Type, depth);
      case 'string-to-identifier':
        return { value: item };
      case 'number-to-integer64':
        return Number.isSafeInteger(item) ? String(item) : new NoValue("R5's integer64 takes whole numbers only, and this one is not one");
      case 'integer-to-string':
        return Number.isInteger(item) ? String(item) : new NoValue('R4 takes whole numbers only here, and this one is not one');
      case 'code-to-coding':
        return { ...(rule.coding ?? {}), code: item };
      case 'code-to-concept':
        return { coding: [{ ...(rule.coding ?? {}), code: item }] };
      case 'coding-to-concept':
        return wrapped(this.datatype(item as JsonObject, 'Coding', depth), 'coding');
      case 'reference-to-codeable-reference':
        return wrapped(this.datatype(item as JsonObject, 'Reference', depth), 'reference');
      case 'concept-to-codeable-reference':
        return wrapped(this.datatype(item as JsonObject, 'CodeableConcept', depth), 'concept');
      case 'backbone': {
        if (!element.childrenAt) return new NoValue('R4 defines no children for it');
        const node: JsonObject = {};
        this.into(item as JsonObject, table, element.childrenAt, [...frames, { path: rule.toChildrenAt ?? rule.to, node }], depth + 1);
        return node;
      }
      case 'resource': {
        const type = (item as JsonObject).resourceType;
        const converted = this.resource(item as JsonObject, depth + 1);
        if (converted === undefined) {
          const table = typeof type === 'string' ? this.tables(type) : undefined;
          return new NoValue(table?.type === type ? `R5 has no resource type ${String(type)}` : 'it is not an R4 resource (no R4 resourceType)');
        }
        if (depth === 0) this.containedAt.set(converted, pathOf(this.at));
        return converted;
      }
    }
  }

  /**
   * A value with no valid R5 element, into its standard cross-version extension (docs/r4-import.md#cross-version-extensions):
   * an extension of its own, or a sub-extension of the one extension of an ancestor (`within`).
   */
  private crossVersion(
    rule: ConversionRule,
    { url, within }: NonNullable<ConversionRule['extension']>,
    r4Type: string,
    item: unknown,
    element: R4Element,
    table: ConversionTable,
    frames: Frame[],
    depth: number,
  ): true | Miss {
    const content = this.extensionContent(r4Type, item, element, table, depth);
    if (content instanceof NoValue) return { kind: 'no-place', why: content.why };
    if (!within) place(rule, 'Extension', { url, ...content }, frames, table);
    else placeInExtension(rule, [url, ...within.slice(0, -1)], { url: within[within.length - 1]!, ...content }, frames, table);
    return true;
  }

  /** What an extension holds for an R4 value: `value[x]` (the value converted as any is), or a backbone's children as sub-extensions. */
  private extensionContent(r4Type: string, item: unknown, element: R4Element, table: ConversionTable, depth: number): JsonObject | NoValue {
    if (depth > MAX_IMPORT_DEPTH) throw new Error('nested too deeply');
    if (element.childrenAt) return this.subExtensions(item as JsonObject, table, element.childrenAt, depth + 1);
    const value = typeKinds.r4Primitive(r4Type) !== undefined ? item : this.datatype(item as JsonObject, r4Type, depth);
    if (value instanceof NoValue) return value;
    // An extension must hold a value: a datatype none of whose children converted is none.
    if (pruned(value) === undefined) return new NoValue('none of its values converts');
    return { [`value${capitalised(r4Type)}`]: value };
  }

  /**
   * The children of an R4 backbone as sub-extensions named by the child elements (one per value of a
   * list); its id and extensions become the extension's own. A modifier extension has no place in
   * an extension and is reported.
   */
  private subExtensions(item: JsonObject, table: ConversionTable, childrenAt: string, depth: number): JsonObject | NoValue {
    const keys = table.keys.get(childrenAt) ?? new Map<string, readonly [string, string]>();
    const out: JsonObject = {};
    const extension: unknown[] = [];
    for (const [key, value] of Object.entries(item)) {
      if (value === null || value === undefined) continue;
      const hit = keys.get(key);
      if (!hit) {
        this.skipUndefined(key, keys, childrenAt);
        continue;
      }
      const [childPath, childType] = hit;
      const child = table.elements.get(childPath);
      if (!child) continue;
      const name = childPath.slice(childPath.lastIndexOf('.') + 1);
      this.at.push(key);
      if (Array.isArray(value) && !child.list) {
        this.skip('wrong-shape', childPath, `R4's ${childPath} holds one ${childType}, and the value is a list`);
      } else {
        const list = Array.isArray(value);
        const expected: JsonKind | 'object' = typeKinds.r4Primitive(childType) ?? 'object';
        const items: unknown[] = list ? value : [value];
        for (let i = 0; i < items.length; i += 1) {
          const childItem = items[i];
          if (childItem === null || childItem === undefined) continue;
          if (list) this.at.push(i);
          const shape = shapeOf(childItem);
          if (shape !== expected) {
            this.skip('wrong-shape', childPath, `R4's ${childPath} is a ${childType}, ${SHAPE_WORDS[expected]}, and the value is ${SHAPE_WORDS[shape]}`);
          } else if (name === 'id') {
            out.id = childItem;
          } else if (name === 'modifierExtension') {
            this.skip('no-place', childPath, 'a cross-version extension has no place for a modifier extension');
          } else {
            const content = name === 'extension' ? this.datatype(childItem as JsonObject, 'Extension', depth) : this.extensionContent(childType, childItem, child, table, depth);
            if (content instanceof NoValue) this.skip('no-place', childPath, content.why);
            else extension.push(name === 'extension' ? content : { url: name, ...content });
          }
          if (list) this.at.pop();
        }
      }
      this.at.pop();
    }
    if (extension.length === 0) return new NoValue('none of its values converts');
    out.extension = extension;
    return out;
  }

  /** A datatype value, converted by its own table into the R5 datatype of the same name. */
  private datatype(item: JsonObject, r4Type: string, depth: number): JsonObject | NoValue {
    const table = this.tables(r4Type);
    if (!table?.r5) return new NoValue(`R5 has no datatype ${r4Type}`);
    const node: JsonObject = {};
    this.into(item, table, table.type, [{ path: table.r5, node }], depth + 1);
    return node;
  }
}

/** A converted datatype under a key of the R5 value (`{ coding: [c] }` for a Coding, `{ reference: r }`, `{ concept: c }`). */
function wrapped(value: JsonObject | NoValue, key: 'coding' | 'reference' | 'concept'): JsonObject | NoValue {
  if (value instanceof NoValue) return value;
  return key === 'coding' ? { coding: [value] } : { [key]: value };
}

/** The reason a value no rule carried is reported with: the most telling of the rules' misses. */
function combined(misses: readonly Miss[], r4Type: string, elementPath: string, element: R4Element): Miss {
  if (misses.length === 0) return { kind: 'removed', why: element.why ?? `R5 has no counterpart for a ${r4Type} in ${elementPath}` };
  const takes = misses.map((m) => m.takes).filter((t) => t !== undefined);
  if (takes.length === misses.length && takes.length > 1) return { kind: 'no-place', why: `R5 takes only ${takes.join(' or ')} here` };
  return misses.find((m) => m.kind === 'no-place') ?? misses[0]!;
}

/** The values a condition lets through, in words: `'allergy'`, `a value whose type is not 'x'`. */
function conditionText({ child, op, value }: RuleCondition): string {
  if (child === undefined) return op === '=' ? `'${value}'` : `a value other than '${value}'`;
  return `a value whose ${child} is ${op === '=' ? '' : 'not '}'${value}'`;
}

/** `s = 'x'` / `s.child != 'x'` on an R4 value; an absent value satisfies neither. */
function holds(condition: RuleCondition, item: unknown): boolean {
  const value = condition.child === undefined ? item : isObject(item) && Object.hasOwn(item, condition.child) ? item[condition.child] : undefined;
  if (typeof value !== 'string' && typeof value !== 'number' && typeof value !== 'boolean') return false;
  return (String(value) === condition.value) === (condition.op === '=');
}

/** Removes empty objects and lists, innermost first; an empty result is undefined. */
export function pruned(value: unknown): unknown {
  if (Array.isArray(value)) {
    const items = value.map(pruned).filter((v) => v !== undefined);
    return items.length > 0 ? items : undefined;
  }
  if (isObject(value)) {
    const out: JsonObject = {};
    for (const [k, v] of Object.entries(value)) {
      const kept = pruned(v);
      if (kept !== undefined) out[k] = kept;
    }
    return Object.keys(out).length > 0 ? out : undefined;
  }
  return value;
}

/** An R4 resource as R5, with what the converter did not carry and why (keyed by R4 path). */
export interface R4Conversion {
  resource: JsonObject;
  skips: ReadonlyMap<string, Skip>;
}

/**
 * An R4 resource as R5 with the converter's record of what it did not carry, or undefined when its
 * type has no R5 counterpart. The input is not changed; the output shares no objects with it.
 */
export function convertR4(r4: JsonObject, tables: TableLookup = conversionTable): R4Conversion | undefined {
  const converter = new Converter(tables, typeof r4.resourceType === 'string' ? r4.resourceType : 'Resource');
  const out = converter.resource(r4);
  if (out === undefined) return undefined;
  converter.dropUnreferenced(out);
  return { resource: (pruned(out) as JsonObject | undefined) ?? { resourceType: out.resourceType }, skips: converter.skips };
}

/** An R4 resource as R5, or undefined when its type has no R5 counterpart. */
export function convertR4Resource(r4: JsonObject, tables: TableLookup = conversionTable): JsonObject | undefined {
  return convertR4(r4, tables)?.resource;
}
