/**
 * The R4 -> R5 element correspondence of one type: each R4 element goes to the R5 element at the
 * same path (under wherever its parent went) when one of its types converts to one of the R5
 * element's types; a conversion fact (facts.ts) replaces that default; whatever neither finds has
 * no rule and is dropped (and reported by the loss detector at run time, with the element's `why`).
 *
 * Facts may also move values across levels and into R5 datatypes: an R5 path may run through a
 * datatype (`Location.contact.telecom`, contact being an ExtendedContactDetail); a backbone R5 has
 * no node for may be lifted (its children go where their own facts say, under the node its parent
 * went to); a fact may take one part of an R4 datatype value (`Medication.amount.numerator`).
 * An element R5 removed, or one whose R5 element R4's values cannot fill validly, may go into the
 * standard cross-version extension, where a fact says so (`inExtensionOf`): the compiler places the
 * extension on the R5 node the extension's element's parent went to and checks that R5's
 * Extension.value[x] takes every type the value holds.
 * Every fact is checked here: its R4 path and its R5 path must exist, the types must convert, and it
 * must be reachable (a fact under a backbone that goes nowhere could never apply).
 */
import type { ElementDef, TypeDefinition } from '../../shared/fhir/definitions/model';
import { elementAtPath, isComplexType, typeDefinition } from '../../shared/fhir/definitions';
import { conversionOf, type TypeKinds } from '../../shared/r4-import/conversions';
import type { ConversionRule, R4Element, R4TypeTable } from '../../shared/r4-import/model';
import { parseCondition } from './conditions';
import type { ConversionFact } from './facts';

/** An R5 element found by path, with its canonical path (where its children are defined). */
interface R5Element {
  el: ElementDef;
  canonical: string;
}

/** The one datatype of an element whose children are the datatype's (not inline, not a primitive). */
function datatypeOf(el: ElementDef): string | undefined {
  const code = el.types?.length === 1 ? el.types[0]!.code : undefined;
  return code !== undefined && isComplexType(code) ? code : undefined;
}

/**
 * The R5 element at `path` (from the type's root), following contentReferences, and stepping into
 * an element's datatype where the path goes on below it (`Location.contact.telecom`). Inside a
 * datatype the canonical path stays the instance path.
 */
export function r5ElementAt(def: TypeDefinition, path: string): R5Element | undefined {
  const names = path.split('.').slice(1);
  let list: ElementDef[] | undefined = def.elements;
  let canonical = def.name;
  let found: ElementDef | undefined;
  let inDatatype = false;
  for (const name of names) {
    if (!list) {
      const type = found ? datatypeOf(found) : undefined;
      list = type ? typeDefinition(type)?.elements : undefined;
      if (!list) return undefined;
      inDatatype = true;
    }
    found = list.find((e) => e.name === name);
    if (!found) return undefined;
    canonical = `${canonical}.${name}`;
    if (found.contentRef) {
      if (inDatatype) return undefined;
      canonical = found.contentRef;
      list = elementAtPath(def, found.contentRef)?.children;
    } else list = found.children;
  }
  return found ? { el: found, canonical } : undefined;
}

/** The types R5's Extension.value[x] takes. */
function extensionValueTypes(): ReadonlySet<string> {
  const extension = typeDefinition('Extension');
  const value = extension ? r5ElementAt(extension, 'Extension.value') : undefined;
  return new Set(value?.el.types?.map((t) => t.code) ?? []);
}

/**
 * The types of an R4 value (a backbone: of its children, recursively) that R5's Extension.value[x]
 * does not take, as `path: type`. A backbone's own id and extensions become the extension's; a
 * modifierExtension has no place in one and is reported when met.
 */
function typesNoExtensionTakes(el: ElementDef, path: string): string[] {
  if (el.contentRef) return [`${path}: a contentReference`];
  if (el.children) {
    return el.children.filter((c) => !ELEMENT_CHILDREN.has(c.name)).flatMap((c) => typesNoExtensionTakes(c, `${path}.${c.name}`));
  }
  const takes = extensionValueTypes();
  return (el.types ?? []).filter((t) => !takes.has(t.code)).map((t) => `${path}: ${t.code}`);
}

function typesOf(el: ElementDef, def: TypeDefinition): string[] {
  if (el.types) return el.types.map((t) => t.code);
  return el.contentRef ? typesOf(elementAtPath(def, el.contentRef)!, def) : [];
}

export interface CorrespondenceInput {
  r4: TypeDefinition;
  r5: TypeDefinition | undefined;
  /** The R4 complex datatypes by name: a fact may take a part of a value of one. */
  r4Datatypes: ReadonlyMap<string, TypeDefinition>;
  facts: ReadonlyMap<string, ConversionFact[]>;
  kinds: TypeKinds;
  /**
   * Every element of this type that has no rule must have a fact saying why (the types the service
   * stores: each of their drops is the team's documented decision, not an accident of matching).
   */
  requireReasons: boolean;
  /** Notes for the compiler's output: facts it refused. */
  notes: string[];
  /** Every R4 path the table covers, to check that each fact names a real element. */
  seenPaths: Set<string>;
}

/** HL7's standard cross-version extensions for R4 elements: this, then the R4 element path (`Encounter.statusHistory`). */
export const CROSS_VERSION_EXTENSION_BASE = 'http://hl7.org/fhir/4.0/StructureDefinition/extension-';

const capitalised = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);
const BACKBONE_TYPES = new Set(['BackboneElement', 'Element']);
/**
 * The children every backbone has: where R5 has no node for them (a lifted backbone, an R5 Element
 * without modifierExtension), the compiler says why itself.
 */
const ELEMENT_CHILDREN = new Set(['id', 'extension', 'modifierExtension']);

export function correspondence(input: CorrespondenceInput): R4TypeTable {
  const { r4, r5 } = input;
  const table: R4TypeTable = { type: r4.name, kind: r4.kind, keys: {}, elements: {}, r5Lists: [] };
  if (r5) table.r5 = r5.name;
  const r5Lists = new Set<string>();
  /** Each R4 element walked, with the R5 path its parent went to (where its cross-version extension goes). */
  const walked = new Map<string, { el: ElementDef; parentGoesTo: string | undefined }>();

  /** The R5 lists on the way to `path`: where a rule into a deeper path may have to build a node. */
  const noteListsOnTheWay = (def: TypeDefinition, path: string) => {
    const segments = path.split('.');
    for (let i = 2; i < segments.length; i += 1) {
      const at = r5ElementAt(def, segments.slice(0, i).join('.'));
      if (at && at.el.max !== 1) r5Lists.add(at.canonical);
    }
  };

  const ruleTo = (path: string, fromType: string | undefined, r4Types: string[]): ConversionRule | undefined => {
    if (!r5) return undefined;
    const target = r5ElementAt(r5, path);
    if (!target) return undefined;
    const toTypes = typesOf(target.el, r5);
    const candidates = fromType ? [fromType] : r4Types;
    if (!candidates.some((t) => toTypes.some((u) => conversionOf(t, u, input.kinds)))) return undefined;
    noteListsOnTheWay(r5, path);
    const rule: ConversionRule = { to: path, toTypes };
    if (target.el.choice) rule.toChoice = true;
    if (target.el.max !== 1) rule.toList = true;
    if (target.canonical !== path) rule.toChildrenAt = target.canonical;
    if (fromType) rule.fromType = fromType;
    return rule;
  };

  /** The rule of one fact with a target, checked: the target exists and the value converts to it. */
  const factRule = (path: string, fact: ConversionFact, to: string, r4Types: string[]): ConversionRule | undefined => {
    const when = fact.when === undefined ? undefined : parseCondition(fact.when);
    if (fact.when !== undefined && !when) {
      input.notes.push(`${path}: condition ${fact.when} is not an equality; fact not compiled`);
      return undefined;
    }
    const rule = ruleTo(to, fact.fromType, r4Types);
    if (!rule) throw new Error(`conversion fact ${fact.from} -> ${to}: no R5 element of a type the R4 value converts to`);
    if (when) rule.when = when;
    if (fact.coding) rule.coding = fact.coding;
    if (fact.set) {
      rule.set = fact.set.map(({ to, value }) => {
        const at = r5 ? r5ElementAt(r5, to) : undefined;
        if (!at || at.el.choice) throw new Error(`conversion fact ${fact.from}: constant target ${to} is not a single-typed R5 element`);
        return at.el.max !== 1 ? { to, value, toList: true as const } : { to, value };
      });
    }
    return rule;
  };

  /** Facts on the parts of a datatype value (`Medication.amount.numerator`): one rule per part. */
  const partRules = (path: string, el: ElementDef): { rules: ConversionRule[]; why?: string } | undefined => {
    const type = datatypeOf(el);
    const datatype = type ? input.r4Datatypes.get(type) : undefined;
    if (!datatype) return undefined;
    const rules: ConversionRule[] = [];
    let why: string | undefined;
    for (const part of datatype.elements) {
      const partPath = `${path}.${part.name}`;
      const facts = input.facts.get(partPath);
      if (!facts) continue;
      input.seenPaths.add(partPath);
      const partType = part.types?.length === 1 && !part.choice && part.max === 1 ? part.types[0]!.code : undefined;
      for (const fact of facts) {
        if (fact.to === null) throw new Error(`conversion fact ${partPath}: a part of a value is dropped by having no fact; say why on the part that is carried`);
        if (!partType) throw new Error(`conversion fact ${partPath}: a part must be a single value of one type`);
        const rule = factRule(partPath, fact, fact.to, [partType]);
        if (!rule) continue;
        rule.part = { key: part.name, type: partType };
        rules.push(rule);
        why ??= fact.reason;
      }
    }
    return rules.length > 0 ? { rules, ...(why ? { why } : {}) } : undefined;
  };

  /**
   * The rule of a fact that keeps an R4 element in a cross-version extension, checked: the named
   * element is this one or an ancestor (single, with single elements down to this one, so that the one
   * extension holds one R4 value), R5 has an extension list where its parent went, and R5's
   * Extension.value[x] takes every type the value holds.
   */
  const extensionRule = (path: string, fact: ConversionFact, el: ElementDef): ConversionRule => {
    const owner = fact.inExtensionOf!;
    const refuse = (why: string) => new Error(`conversion fact ${path}: cross-version extension of ${owner}: ${why}`);
    if (fact.to !== null) throw refuse('only an element with no R5 element (to: null) goes into a cross-version extension');
    if (owner !== path && !path.startsWith(`${owner}.`)) throw refuse('not this element or an ancestor of it');
    const within = owner === path ? undefined : path.slice(owner.length + 1).split('.');
    for (let i = 0; within && i < within.length; i += 1) {
      const on = [owner, ...within.slice(0, i)].join('.');
      if (walked.get(on)?.el.max !== 1) throw refuse(`${on} repeats, so one extension would not say which of its values this belongs to`);
    }
    const under = walked.get(owner)?.parentGoesTo;
    const to = `${under}.extension`;
    const at = r5 && under !== undefined ? r5ElementAt(r5, to) : undefined;
    if (!r5 || !at || !typesOf(at.el, r5).includes('Extension')) throw refuse(`R5 has no extension list at ${to}`);
    const untaken = typesNoExtensionTakes(el, path);
    if (untaken.length > 0) throw refuse(`R5's Extension.value[x] takes no ${untaken.join(', ')}`);
    noteListsOnTheWay(r5, to);
    return { to, toTypes: ['Extension'], toList: true, extension: { url: `${CROSS_VERSION_EXTENSION_BASE}${owner}`, ...(within ? { within } : {}) } };
  };

  /** Why an element with no rule is not carried, when no fact says: what R5 has at that path. */
  const foundWhy = (r5Path: string | undefined, r4Types: string[]): string => {
    const at = r5 && r5Path ? r5ElementAt(r5, r5Path) : undefined;
    if (!r5 || !r5Path || !at) return `R5 has no element ${r5Path ?? 'for it'}`;
    return `R5's ${r5Path} is ${typesOf(at.el, r5).join(' or ')}, and no ${r4Types.join(' or ')} converts to that`;
  };

  /**
   * Walks the R4 elements under `parentPath`. `mappedParent`: the R5 path their parent went to
   * (undefined: nowhere, so nothing below can apply); `lifted`: the parent is a lifted backbone,
   * whose children go only where facts say.
   */
  const walk = (elements: readonly ElementDef[], parentPath: string, mappedParent: string | undefined, lifted: boolean) => {
    const keys: Record<string, [string, string]> = (table.keys[parentPath] ??= {});
    for (const el of elements) {
      const path = `${parentPath}.${el.name}`;
      input.seenPaths.add(path);
      walked.set(path, { el, parentGoesTo: mappedParent });
      const r4Types = el.contentRef ? ['BackboneElement'] : (el.types ?? []).map((t) => t.code);
      if (el.choice) for (const t of r4Types) keys[`${el.name}${capitalised(t)}`] = [path, t];
      else keys[el.name] = [path, r4Types[0] ?? 'BackboneElement'];
      const isBackbone = Boolean(el.children || el.contentRef);

      const element: R4Element = { rules: [] };
      const facts = input.facts.get(path);
      if (facts && mappedParent === undefined) {
        throw new Error(`conversion fact ${path} can never apply: its parent ${parentPath} goes nowhere in R5 (lift the parent or map it)`);
      }
      if (facts) {
        for (const fact of facts) {
          if (fact.inExtensionOf !== undefined) element.rules.push(extensionRule(path, fact, el));
          if (fact.to === null) element.why = fact.reason;
          else if (fact.to === mappedParent && isBackbone) {
            element.lift = true;
            element.why = fact.reason;
          } else {
            const rule = factRule(path, fact, fact.to, r4Types);
            if (rule) element.rules.push(rule);
          }
        }
        // A datatype value kept whole in its cross-version extension may still have parts with R5 elements.
        const parts = el.children ? undefined : partRules(path, el);
        if (parts) element.rules.push(...parts.rules);
      } else if (mappedParent !== undefined) {
        const parts = el.children ? undefined : partRules(path, el);
        if (parts) {
          element.rules = parts.rules;
          if (parts.why) element.why = parts.why;
        } else if (!lifted) {
          const byDefault = ruleTo(`${mappedParent}.${el.name}`, undefined, r4Types);
          if (byDefault) element.rules.push(byDefault);
        }
        if (element.rules.length === 0) {
          if (input.requireReasons && !ELEMENT_CHILDREN.has(el.name)) {
            throw new Error(`${path} has no R5 rule and no conversion fact saying why (a stored type: add a fact, to: null with its reason)`);
          }
          element.why = lifted
            ? `R5 has no node for ${parentPath}, whose children moved; its own ${el.name} has nowhere to go`
            : foundWhy(`${mappedParent}.${el.name}`, r4Types);
        }
      }
      if (el.max !== 1) element.list = true;
      if (el.contentRef) element.childrenAt = el.contentRef;
      else if (el.children) element.childrenAt = path;
      table.elements[path] = element;
      if (el.children) {
        // Children follow the backbone: under the R5 element it went to, under its parent's node
        // when lifted, else unmatched.
        const backboneRule = element.rules.find((r) => r.toTypes.some((t) => BACKBONE_TYPES.has(t)));
        const childrenGoTo = element.lift ? mappedParent : backboneRule ? (backboneRule.toChildrenAt ?? backboneRule.to) : undefined;
        walk(el.children, path, childrenGoTo, Boolean(element.lift));
      }
    }
  };
  walk(r4.elements, r4.name, r5?.name, false);
  table.r5Lists = [...r5Lists].sort();
  return table;
}
