/**
 * The R4 -> R5 element correspondence of one type: each R4 element goes to the R5 element at the
 * same path (under wherever its parent went) when one of its types converts to one of the R5
 * element's types; a conversion fact (facts.ts) replaces that default; whatever neither finds has
 * no rule and is dropped (and reported by the loss detector at run time).
 */
import type { ElementDef, TypeDefinition } from '../../shared/fhir/definitions/model';
import { elementAtPath } from '../../shared/fhir/definitions';
import { conversionOf, type TypeKinds } from '../../shared/xver/conversions';
import type { ConversionRule, R4Element, R4TypeTable } from '../../shared/xver/model';
import { parseCondition } from './conditions';
import type { ConversionFact } from './facts';

export interface R5Lookup {
  typeDefinition(name: string): TypeDefinition | undefined;
}

/** An R5 element found by path, with its canonical path (where its children are defined). */
interface R5Element {
  el: ElementDef;
  canonical: string;
}

/** The R5 element at `path` (from the type's root), following contentReferences on the way. */
export function r5ElementAt(def: TypeDefinition, path: string): R5Element | undefined {
  const names = path.split('.').slice(1);
  let list: ElementDef[] | undefined = def.elements;
  let canonical = def.name;
  let found: ElementDef | undefined;
  for (const name of names) {
    found = list?.find((e) => e.name === name);
    if (!found) return undefined;
    canonical = `${canonical}.${name}`;
    if (found.contentRef) {
      canonical = found.contentRef;
      list = elementAtPath(def, found.contentRef)?.children;
    } else list = found.children;
  }
  return found ? { el: found, canonical } : undefined;
}

function typesOf(el: ElementDef, def: TypeDefinition): string[] {
  if (el.types) return el.types.map((t) => t.code);
  return el.contentRef ? typesOf(elementAtPath(def, el.contentRef)!, def) : [];
}

export interface CorrespondenceInput {
  r4: TypeDefinition;
  r5: TypeDefinition | undefined;
  facts: ReadonlyMap<string, ConversionFact[]>;
  kinds: TypeKinds;
  /** Notes for the compiler's output: facts it refused. */
  notes: string[];
  /** Every R4 path the table covers, to check that each fact names a real element. */
  seenPaths: Set<string>;
}

const capitalised = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);

export function correspondence(input: CorrespondenceInput): R4TypeTable {
  const { r4, r5 } = input;
  const table: R4TypeTable = { type: r4.name, kind: r4.kind, keys: {}, elements: {}, r5Lists: [] };
  if (r5) table.r5 = r5.name;
  const r5Lists = new Set<string>();

  const ruleTo = (path: string, fromType: string | undefined, r4Types: string[]): ConversionRule | undefined => {
    if (!r5) return undefined;
    const target = r5ElementAt(r5, path);
    if (!target) return undefined;
    const toTypes = typesOf(target.el, r5);
    const candidates = fromType ? [fromType] : r4Types;
    if (!candidates.some((t) => toTypes.some((u) => conversionOf(t, u, input.kinds)))) return undefined;
    // The R5 lists on the way are where a rule into a deeper path may have to build a node.
    const segments = path.split('.');
    for (let i = 2; i < segments.length; i += 1) {
      const at = r5ElementAt(r5, segments.slice(0, i).join('.'));
      if (at && at.el.max !== 1) r5Lists.add(at.canonical);
    }
    const rule: ConversionRule = { to: path, toTypes };
    if (target.el.choice) rule.toChoice = true;
    if (target.el.max !== 1) rule.toList = true;
    if (target.canonical !== path) rule.toChildrenAt = target.canonical;
    if (fromType) rule.fromType = fromType;
    return rule;
  };

  const factRules = (path: string, r4Types: string[]): ConversionRule[] | undefined => {
    const facts = input.facts.get(path);
    if (!facts) return undefined;
    const rules: ConversionRule[] = [];
    for (const fact of facts) {
      if (fact.to === null) continue;
      const when = fact.when === undefined ? undefined : parseCondition(fact.when);
      if (fact.when !== undefined && !when) {
        input.notes.push(`${path}: condition ${fact.when} is not an equality; fact not compiled`);
        continue;
      }
      const rule = ruleTo(fact.to, fact.fromType, r4Types);
      if (!rule) throw new Error(`conversion fact ${path} -> ${fact.to}: no R5 element of a type the R4 value converts to`);
      if (when) rule.when = when;
      if (fact.coding) rule.coding = fact.coding;
      if (fact.set) {
        rule.set = fact.set.map(({ to, value }) => {
          const at = r5 ? r5ElementAt(r5, to) : undefined;
          if (!at || at.el.choice) throw new Error(`conversion fact ${path}: constant target ${to} is not a single-typed R5 element`);
          return at.el.max !== 1 ? { to, value, toList: true as const } : { to, value };
        });
      }
      rules.push(rule);
    }
    return rules;
  };

  const walk = (elements: readonly ElementDef[], parentPath: string, mappedParent: string | undefined) => {
    const keys: Record<string, [string, string]> = (table.keys[parentPath] ??= {});
    for (const el of elements) {
      const path = `${parentPath}.${el.name}`;
      input.seenPaths.add(path);
      const r4Types = el.contentRef ? ['BackboneElement'] : (el.types ?? []).map((t) => t.code);
      if (el.choice) for (const t of r4Types) keys[`${el.name}${capitalised(t)}`] = [path, t];
      else keys[el.name] = [path, r4Types[0] ?? 'BackboneElement'];

      const fromFacts = factRules(path, r4Types);
      const byDefault = mappedParent === undefined ? undefined : ruleTo(`${mappedParent}.${el.name}`, undefined, r4Types);
      const rules = fromFacts ?? (byDefault ? [byDefault] : []);
      const element: R4Element = { rules };
      if (el.max !== 1) element.list = true;
      if (el.contentRef) element.childrenAt = el.contentRef;
      else if (el.children) element.childrenAt = path;
      table.elements[path] = element;
      if (el.children) {
        // Children follow the backbone: under the R5 element it went to, else unmatched.
        const backboneRule = rules.find((r) => r.toTypes.some((t) => t === 'BackboneElement' || t === 'Element'));
        walk(el.children, path, backboneRule ? (backboneRule.toChildrenAt ?? backboneRule.to) : undefined);
      }
    }
  };
  walk(r4.elements, r4.name, r5?.name);
  table.r5Lists = [...r5Lists].sort();
  return table;
}
