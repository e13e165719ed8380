/**
 * The structural walk of a resource against its compiled definition: unknown elements, JSON
 * shapes, datatypes, primitive formats, cardinality (a primitive counts when only its `_x`
 * extension is present), choice types, contained and nested resources, required bindings. It also
 * collects where each invariant applies, for the FHIRPath pass that follows.
 */
import {
  elementAtPath,
  isKnownResourceType,
  primitiveType,
  typeDefinition,
  UNBOUNDED,
  type Constraint,
  type ElementDef,
  type TypeDefinition,
  type TypeRef,
} from '../definitions';
import { isObject } from '../../json';
import { Lookups, type FhirPathEnv } from '../fhirpath';
import { issue, type IssueCode, type OutcomeIssue } from '../outcome';
import { bindingProblems, type UcumCheck } from './bindings';
import { primitiveProblem } from './primitives';

type Json = Record<string, any>;

/** An invariant to evaluate: the constraints, the element instance and where it is. */
export interface InvariantSite {
  constraints: readonly Constraint[];
  data: unknown;
  /** Model path or type name of `data`; absent for a resource (typed by its resourceType). */
  base?: string;
  location: string;
  env: FhirPathEnv;
}

interface Walk {
  issues: OutcomeIssue[];
  sites: InvariantSite[];
  ucum: UcumCheck;
  lookups: Lookups;
}

/** The resource an element belongs to: its definition (for contentReference) and FHIRPath env. */
interface ResourceScope {
  def: TypeDefinition;
  env: FhirPathEnv;
  /** The resource this one is contained in. */
  container?: ResourceScope;
  /** Reference-like values (`reference`, canonical, uri, url) in this resource and its contained ones. */
  references: Set<string>;
  /** Scopes of the resources contained here, by position. */
  contained: ResourceScope[];
}

/**
 * Invariants checked here instead of through FHIRPath. dom-3 (a contained resource must be
 * referenced from its container, or refer to it) computes `descendants()` of the whole resource
 * once per contained resource: 150 ms on a large record. The walk collects the references anyway.
 */
const CHECKED_IN_WALK = new Set(['dom-3']);
const REFERENCE_TYPES = new Set(['canonical', 'uri', 'url']);
const evaluatedConstraints = new WeakMap<readonly Constraint[], readonly Constraint[]>();

function fhirPathConstraints(constraints: readonly Constraint[]): readonly Constraint[] {
  let kept = evaluatedConstraints.get(constraints);
  if (!kept) {
    kept = constraints.filter((c) => !CHECKED_IN_WALK.has(c.key));
    evaluatedConstraints.set(constraints, kept);
  }
  return kept;
}

function recordReference(scope: ResourceScope, value: string): void {
  for (let s: ResourceScope | undefined = scope; s; s = s.container) s.references.add(value);
}

/** dom-3, with the standard's own text and severity. */
function checkContainedAreReferenced(json: Json, scope: ResourceScope, location: string, w: Walk): void {
  const dom3 = scope.def.constraints?.find((c) => c.key === 'dom-3');
  if (!dom3 || !Array.isArray(json.contained)) return;
  scope.contained.forEach((child, i) => {
    const id = (json.contained as Json[])[i]?.id;
    const referenced = typeof id === 'string' && scope.references.has(`#${id}`);
    if (referenced || child.references.has('#')) return;
    w.issues.push(issue(dom3.severity, 'invariant', `${location}: ${dom3.human} (dom-3)`, location));
  });
}

interface KeyTarget {
  el: ElementDef;
  type: TypeRef;
}

interface Present {
  key: string;
  type: TypeRef;
  value?: unknown;
  ext?: unknown;
}

const capitalise = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);

const keyMaps = new WeakMap<readonly ElementDef[], Map<string, KeyTarget>>();

/** JSON property name -> element and type (`valueQuantity` -> value[x] as Quantity). */
function keyMap(elements: readonly ElementDef[]): Map<string, KeyTarget> {
  let map = keyMaps.get(elements);
  if (!map) {
    map = new Map();
    for (const el of elements) {
      const types = el.types ?? [{ code: 'Element' }];
      if (el.choice) for (const type of types) map.set(el.name + capitalise(type.code), { el, type });
      else map.set(el.name, { el, type: types[0]! });
    }
    keyMaps.set(elements, map);
  }
  return map;
}

/** Records an error; the diagnostics read `<location>: <problem>`, the expression is the location. */
function fail(w: Walk, code: IssueCode, location: string, problem: string): void {
  w.issues.push(issue('error', code, `${location}: ${problem}`, location));
}

const isPrimitive = (code: string) => primitiveType(code) !== undefined;

/** The elements a primitive's `_x` object may carry: those of Element (id, extension). */
function primitiveExtensionElements(): readonly ElementDef[] {
  return typeDefinition('Element')!.elements;
}

export function walkResource(
  json: unknown,
  location: string,
  w: Walk,
  options: { allowedTypes?: readonly string[]; container?: ResourceScope; bundle?: unknown } = {},
): void {
  if (!isObject(json)) {
    fail(w, 'structure', location, `must be a JSON object (a FHIR resource), not ${describeJson(json)}`);
    return;
  }
  const type = json.resourceType;
  if (typeof type !== 'string') {
    fail(w, 'required', location, 'a resource needs a resourceType');
    return;
  }
  if (!isKnownResourceType(type)) {
    fail(w, 'not-supported', `${location}.resourceType`, `'${type}' is not an R5 resource type`);
    return;
  }
  const allowed = options.allowedTypes;
  if (allowed && !allowed.includes('Resource') && !allowed.includes(type)) {
    fail(w, 'structure', location, `must be a ${allowed.join(' or ')}, not a ${type}`);
    return;
  }
  const def = typeDefinition(type)!;
  const container = options.container;
  const env: FhirPathEnv = {
    resource: json,
    rootResource: container?.env.rootResource ?? json,
    bundle: type === 'Bundle' ? json : options.bundle,
    lookups: w.lookups,
  };
  const scope: ResourceScope = { def, env, references: new Set(), contained: [] };
  if (container) {
    scope.container = container;
    container.contained.push(scope);
  }
  walkObject(json, def.elements, type, location, scope, w, true);
  checkContainedAreReferenced(json, scope, location, w);
  if (def.constraints) w.sites.push({ constraints: fhirPathConstraints(def.constraints), data: json, location, env });
}

function walkObject(
  obj: unknown,
  elements: readonly ElementDef[],
  modelPath: string,
  location: string,
  scope: ResourceScope,
  w: Walk,
  isResourceRoot = false,
  /** A primitive's `_x` object beside a value: `{id}` alone is fine there, the value is the content. */
  hasValue = false,
): void {
  if (!isObject(obj)) {
    fail(w, 'structure', location, `must be a JSON object, not ${describeJson(obj)}`);
    return;
  }
  // Keys holding `undefined` do not exist in JSON; objects built in code may carry them.
  const keys = Object.keys(obj).filter((k) => obj[k] !== undefined);
  if (!isResourceRoot && !hasValue && keys.every((k) => k === 'id')) {
    fail(w, 'structure', location, 'is empty: an element needs a value, an extension or child elements');
    return;
  }
  const map = keyMap(elements);
  const present = new Map<ElementDef, Present>();
  for (const key of keys) {
    if (isResourceRoot && key === 'resourceType') continue;
    const isExtension = key.startsWith('_');
    const name = isExtension ? key.slice(1) : key;
    const target = map.get(name);
    if (!target || (isExtension && !isPrimitive(target.type.code))) {
      fail(w, 'structure', `${location}.${key}`, `unknown element '${key}' (${modelPath} has no such element)`);
      continue;
    }
    let entry = present.get(target.el);
    if (entry && entry.key !== name) {
      fail(
        w,
        'structure',
        `${location}.${key}`,
        `${modelPath}.${target.el.name}[x] takes one type only, but both '${entry.key}' and '${name}' are present`,
      );
      continue;
    }
    if (!entry) {
      entry = { key: name, type: target.type };
      present.set(target.el, entry);
    }
    if (isExtension) entry.ext = obj[key];
    else entry.value = obj[key];
  }
  for (const el of elements) {
    const entry = present.get(el);
    const count = entry ? walkElement(entry, el, modelPath, location, scope, w) : 0;
    if (count < el.min) {
      fail(w, 'required', `${location}.${el.name}`, `missing required element ${modelPath}.${el.name}${el.choice ? '[x]' : ''} (minimum ${el.min})`);
    } else if (el.max !== UNBOUNDED && count > el.max) {
      fail(w, 'structure', `${location}.${el.name}`, `${modelPath}.${el.name} allows at most ${el.max} value(s), found ${count}`);
    }
  }
}

/** Validates the values of one element; returns how many values it has (for cardinality). */
function walkElement(entry: Present, el: ElementDef, modelPath: string, location: string, scope: ResourceScope, w: Walk): number {
  const type = entry.type;
  const elLocation = el.choice ? `${location}.${el.name}.ofType(${type.code})` : `${location}.${el.name}`;
  const childPath = `${modelPath}.${el.choice ? el.name + capitalise(type.code) : el.name}`;
  const repeating = el.max !== 1;
  const values = arrayShape(entry.value, entry.key, repeating, elLocation, w);
  if (isPrimitive(type.code)) {
    const exts = arrayShape(entry.ext, `_${entry.key}`, repeating, elLocation, w);
    if (values === null || exts === null) return 0;
    if (repeating && entry.value !== undefined && entry.ext !== undefined && values.length !== exts.length) {
      fail(w, 'structure', elLocation, `'${entry.key}' and '_${entry.key}' must have the same number of items`);
    }
    let count = 0;
    const n = Math.max(values.length, exts.length);
    for (let i = 0; i < n; i++) {
      const itemLocation = repeating ? `${elLocation}[${i}]` : elLocation;
      const value = values[i] ?? null;
      const ext = exts[i] ?? null;
      if (value === null && ext === null) {
        fail(w, 'structure', itemLocation, 'is null with no extension in its place');
        continue;
      }
      count++;
      if (ext !== null) walkObject(ext, primitiveExtensionElements(), type.code, itemLocation, scope, w, false, value !== null);
      if (value !== null) checkPrimitiveValue(value, { el, type, childPath, location: itemLocation, scope, w });
    }
    return count;
  }
  if (values === null) return 0;
  values.forEach((item, i) => {
    const itemLocation = repeating ? `${elLocation}[${i}]` : elLocation;
    if (item === null) fail(w, 'structure', itemLocation, 'must not be null');
    else walkComplex(item, { el, type, childPath, location: itemLocation, scope, w });
  });
  return values.filter((v) => v !== null).length;
}

/** The element's values as a list, after checking array-ness against the cardinality. */
function arrayShape(value: unknown, key: string, repeating: boolean, location: string, w: Walk): unknown[] | null {
  if (value === undefined) return [];
  if (repeating) {
    if (!Array.isArray(value)) {
      fail(w, 'structure', location, `'${key}' repeats: its value must be a JSON array`);
      return null;
    }
    if (value.length === 0) fail(w, 'structure', location, `'${key}' must not be an empty array (leave it out instead)`);
    return value;
  }
  if (Array.isArray(value)) {
    fail(w, 'structure', location, `'${key}' does not repeat: its value must not be an array`);
    return null;
  }
  return [value];
}

/** One value of an element: its definition, the type it has, its model path and location. */
interface ValueVisit {
  el: ElementDef;
  type: TypeRef;
  childPath: string;
  location: string;
  scope: ResourceScope;
  w: Walk;
}

function checkPrimitiveValue(value: unknown, { el, type, childPath, location, scope, w }: ValueVisit): void {
  const problem = primitiveProblem(type.code, value);
  if (problem) {
    fail(w, typeof value === 'string' && type.code === 'id' && value.length > 64 ? 'too-long' : 'value', location, problem);
    return;
  }
  checkBinding(value, el, type, location, w);
  if (typeof value === 'string' && (el.name === 'reference' || REFERENCE_TYPES.has(type.code))) recordReference(scope, value);
  if (el.constraints) w.sites.push({ constraints: el.constraints, data: value, base: childPath, location, env: scope.env });
}

function walkComplex(item: unknown, { el, type, childPath, location, scope, w }: ValueVisit): void {
  if (type.code === 'Resource' || isKnownResourceType(type.code)) {
    const options = {
      allowedTypes: type.profiles ?? (type.code === 'Resource' ? undefined : [type.code]),
      container: el.name === 'contained' ? scope : undefined,
      bundle: scope.env.bundle,
    };
    walkResource(item, location, w, options);
    return;
  }
  if (el.contentRef) {
    const target = elementAtPath(scope.def, el.contentRef);
    if (target?.children) walkObject(item, target.children, el.contentRef, location, scope, w);
    if (target?.constraints) w.sites.push({ constraints: target.constraints, data: item, base: el.contentRef, location, env: scope.env });
    return;
  }
  if (el.children) {
    walkObject(item, el.children, childPath, location, scope, w);
  } else {
    const def = typeDefinition(type.code);
    if (!def) {
      fail(w, 'structure', location, `has the unsupported type ${type.code}`);
      return;
    }
    walkObject(item, def.elements, type.code, location, scope, w);
    if (def.constraints) w.sites.push({ constraints: def.constraints, data: item, base: type.code, location, env: scope.env });
    if (type.profiles?.includes('SimpleQuantity') && isObject(item) && item.comparator !== undefined) {
      // The one core datatype profile used by base resources: SimpleQuantity's sqty-1.
      fail(w, 'invariant', `${location}.comparator`, 'a SimpleQuantity must not have a comparator (sqty-1)');
    }
  }
  checkBinding(item, el, type, location, w);
  if (el.constraints) w.sites.push({ constraints: el.constraints, data: item, base: childPath, location, env: scope.env });
}

function checkBinding(value: unknown, el: ElementDef, type: TypeRef, location: string, w: Walk): void {
  if (!el.binding) return;
  for (const problem of bindingProblems(el.binding, type.code, value, w.ucum)) {
    fail(w, 'code-invalid', location + problem.at, problem.message);
  }
}

function describeJson(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'an array';
  return `a ${typeof v}`;
}

export function newWalk(ucum: UcumCheck): Walk {
  return { issues: [], sites: [], ucum, lookups: new Lookups() };
}
