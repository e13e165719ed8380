/** StructureDefinitions -> compact type definitions, primitive formats and FHIRPath type tables. */
import type { Binding, Constraint, ElementDef, PrimitiveDef, TypeDefinition, TypeRef } from '../../shared/fhir/definitions/model';
import { UNBOUNDED } from '../../shared/fhir/definitions/model';
import { lastSegment, unversioned, type Json } from './packages';

const FHIR_TYPE_EXT = 'http://hl7.org/fhir/StructureDefinition/structuredefinition-fhir-type';
const REGEX_EXT = 'http://hl7.org/fhir/StructureDefinition/regex';
const SYSTEM_PREFIX = 'http://hl7.org/fhirpath/';

/**
 * Codes an element's definition allows beyond its required value set, in prose the compiler cannot
 * read: CapabilityStatement.format's comment says '"xml", "json" and "ttl" are allowed, ...
 * Otherwise, mime types are legal here'.
 */
const ALSO_ALLOWED: Record<string, string[]> = {
  'CapabilityStatement.format': ['json', 'ttl', 'xml'],
};

/** Checked natively by the validator for every element; evaluating it per node would cost more than all else. */
const NATIVE_CONSTRAINTS = new Set(['ele-1']);

export interface CompiledStructures {
  types: TypeDefinition[];
  primitives: Record<string, PrimitiveDef>;
  resourceTypes: string[];
  abstractResourceTypes: string[];
  complexTypes: string[];
  type2Parent: Record<string, string>;
  pathsDefinedElsewhere: Record<string, string>;
}

/** The definitions a server validates against: the base specialisations, not profiles or logical models. */
function isBaseDefinition(sd: Json): boolean {
  return (sd.derivation === 'specialization' || sd.id === 'Base') && sd.kind !== 'logical';
}

export function compileStructures(sds: Json[], bindingFor: (valueSetUrl: string) => Binding): CompiledStructures {
  const base = sds.filter(isBaseDefinition).sort((a, b) => (a.type as string).localeCompare(b.type));
  const urlToType = new Map<string, string>(base.map((sd) => [sd.url as string, sd.type as string]));
  const types: TypeDefinition[] = [];
  const primitives: Record<string, PrimitiveDef> = {};
  const type2Parent: Record<string, string> = {};
  const pathsDefinedElsewhere: Record<string, string> = {};

  for (const sd of base) {
    const name = sd.type as string;
    if (sd.baseDefinition) type2Parent[name] = lastSegment(sd.baseDefinition);
    if (sd.kind === 'primitive-type') {
      primitives[name] = primitiveDef(sd);
      continue;
    }
    if (sd.id === 'Base') continue;
    for (const el of sd.snapshot.element as Json[]) {
      if (el.contentReference) pathsDefinedElsewhere[el.path] = (el.contentReference as string).replace(/^.*#/, '');
    }
    types.push(typeDefinition(sd, urlToType, bindingFor));
  }
  // The package types positiveInt.value and unsignedInt.value as System.String (a publication
  // defect): they are integers, JSON numbers, like the base they specialise.
  for (const [name, def] of Object.entries(primitives)) {
    if (def.base === 'integer') primitives[name] = { ...def, json: 'number', systemType: primitives.integer!.systemType };
  }
  // Core datatype profiles (SimpleQuantity, MoneyQuantity) are types to FHIRPath's `is` as well.
  for (const sd of sds) {
    if (sd.kind === 'complex-type' && sd.derivation === 'constraint' && /^[A-Z]/.test(sd.id) && urlToType.has(sd.baseDefinition)) {
      type2Parent[sd.id] = lastSegment(sd.baseDefinition);
    }
  }
  const resources = types.filter((t) => t.kind === 'resource');
  return {
    types,
    primitives,
    resourceTypes: resources.filter((t) => !t.abstract).map((t) => t.name),
    abstractResourceTypes: resources.filter((t) => t.abstract).map((t) => t.name),
    complexTypes: types.filter((t) => t.kind === 'complex-type').map((t) => t.name),
    type2Parent,
    pathsDefinedElsewhere,
  };
}

function primitiveDef(sd: Json): PrimitiveDef {
  const valueEl = (sd.snapshot.element as Json[]).find((e) => e.path === `${sd.type}.value`);
  const systemCode = (valueEl?.type?.[0]?.code as string | undefined) ?? '';
  const regex = valueEl?.type?.[0]?.extension?.find((x: Json) => x.url === REGEX_EXT)?.valueString as string | undefined;
  const json: PrimitiveDef['json'] =
    systemCode.endsWith('System.Boolean')
      ? 'boolean'
      : systemCode.endsWith('System.Integer') || systemCode.endsWith('System.Decimal')
        ? 'number'
        : 'string';
  // R5 JSON carries integer64 as a string (its range exceeds a JSON number's exact integers).
  const def: PrimitiveDef = {
    json: sd.type === 'integer64' ? 'string' : json,
    systemType: systemCode.slice(SYSTEM_PREFIX.length),
  };
  if (regex) def.regex = regex;
  const parent = sd.baseDefinition ? lastSegment(sd.baseDefinition) : undefined;
  if (parent && parent !== 'PrimitiveType') def.base = parent;
  return def;
}

function typeDefinition(sd: Json, urlToType: Map<string, string>, bindingFor: (url: string) => Binding): TypeDefinition {
  const elements = sd.snapshot.element as Json[];
  const root = elements[0]!;
  const def: TypeDefinition = {
    name: sd.type,
    kind: sd.kind === 'resource' ? 'resource' : 'complex-type',
    elements: [],
  };
  if (sd.baseDefinition) def.base = lastSegment(sd.baseDefinition);
  if (sd.abstract) def.abstract = true;
  const rootConstraints = constraintsOf(root, () => false);
  if (rootConstraints.length > 0) def.constraints = rootConstraints;

  const byPath = new Map<string, ElementDef>();
  for (const el of elements.slice(1)) {
    if (el.sliceName) continue;
    const path = (el.path as string).replace(/\[x\]$/, '');
    const parentPath = path.slice(0, path.lastIndexOf('.'));
    const node = elementDef(el, urlToType, bindingFor);
    byPath.set(path, node);
    if (parentPath === sd.type) def.elements.push(node);
    else {
      const parent = byPath.get(parentPath);
      if (!parent) throw new Error(`${el.path}: parent ${parentPath} not seen before it`);
      (parent.children ??= []).push(node);
    }
  }
  return def;
}

function elementDef(el: Json, urlToType: Map<string, string>, bindingFor: (url: string) => Binding): ElementDef {
  const path = el.path as string;
  const name = path.slice(path.lastIndexOf('.') + 1).replace(/\[x\]$/, '');
  const node: ElementDef = { name, min: el.min as number, max: el.max === '*' ? UNBOUNDED : Number(el.max) };
  if (path.endsWith('[x]')) node.choice = true;
  if (el.contentReference) node.contentRef = (el.contentReference as string).replace(/^.*#/, '');
  // An element's own `id` is Element.id, a string. The package types ElementDefinition.id as `id`,
  // which its own StructureDefinitions break (`Observation.code.coding:slice`): follow the base.
  const declared = (el.type ?? []) as Json[];
  const fromBase = el.base?.path === 'Element.id' && declared[0]?.code?.startsWith(SYSTEM_PREFIX);
  const types = (fromBase ? [{ ...declared[0], extension: [{ url: FHIR_TYPE_EXT, valueUrl: 'string' }] }] : declared).map(typeRef);
  if (types.length > 0) node.types = types;
  if (el.binding?.strength === 'required' && el.binding.valueSet) {
    node.binding = bindingFor(unversioned(el.binding.valueSet));
    const extra = ALSO_ALLOWED[path];
    if (extra) node.binding = { ...node.binding, alsoAllowed: extra };
  }
  // A datatype's own invariants are checked wherever the datatype occurs; keep only this element's.
  const typeUrls = new Set(((el.type ?? []) as Json[]).map((t) => `http://hl7.org/fhir/StructureDefinition/${t.code}`));
  const own = constraintsOf(el, (source) => typeUrls.has(source) && urlToType.has(source));
  if (own.length > 0) node.constraints = own;
  return node;
}

function typeRef(t: Json): TypeRef {
  let code = t.code as string;
  const ref: TypeRef = { code };
  if (code.startsWith(SYSTEM_PREFIX)) {
    ref.systemType = code.slice(SYSTEM_PREFIX.length);
    code = (t.extension as Json[] | undefined)?.find((x) => x.url === FHIR_TYPE_EXT)?.valueUrl ?? 'string';
    ref.code = code;
  }
  if (t.targetProfile?.length) ref.targets = (t.targetProfile as string[]).map(lastSegment);
  if (t.profile?.length) ref.profiles = (t.profile as string[]).map(lastSegment);
  return ref;
}

function constraintsOf(el: Json, inheritedFromType: (source: string) => boolean): Constraint[] {
  return ((el.constraint ?? []) as Json[])
    .filter((c) => c.expression && !NATIVE_CONSTRAINTS.has(c.key) && !inheritedFromType(c.source ?? ''))
    .map((c) => ({ key: c.key, severity: c.severity === 'warning' ? 'warning' : 'error', human: c.human, expression: c.expression }));
}
