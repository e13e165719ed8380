/**
 * The one module that imports the `fhirpath` engine (large: it is loaded on first use through
 * `loadFhirPath()`, never at a Lambda's cold start). Expressions are compiled once per process;
 * `resolve()` and `memberOf()` are replaced by synchronous local versions, because the engine's own
 * are asynchronous and would fetch over HTTP.
 */
import fhirpath from 'fhirpath';
import { codeSetHas, isAbstractResourceType, isKnownResourceType, manifest } from '../definitions';
import { Lookups } from './lookups';
import { r5Model } from './model';

/** A value FHIRPath returned with its FHIR type, from an evaluation with typed results. */
export interface TypedValue {
  /** FHIR type name (`dateTime`, `Period`, `CodeableConcept`, ...) or a System type (`System.String`). */
  type: string;
  /** The JSON value (for a primitive: the primitive). */
  value: unknown;
  /** The engine's node, to evaluate further expressions relative to this value (composites). */
  node: unknown;
}

/**
 * Environment of an evaluation: `%resource` (the resource the element is in), `%rootResource`
 * (its container when it is contained) and, for resolve(), the Bundle it is an entry of.
 */
export interface FhirPathEnv {
  resource: unknown;
  rootResource: unknown;
  bundle?: unknown;
  /** The pass's lookups (`lookups.ts`), shared by every evaluation of one resource. */
  lookups?: Lookups;
}

type Json = Record<string, any>;
type Compiled = (data: unknown, env: Record<string, unknown>) => unknown[];

/** A resource node the engine will type (`is Patient`): made through the engine's own node class. */
function asResourceNode(ctx: any, sample: any, resource: Json): unknown {
  const ResourceNode = sample?.constructor?.makeResNode ? sample.constructor : ctx.dataRoot?.[0]?.constructor;
  return ResourceNode?.makeResNode ? ResourceNode.makeResNode(ctx, resource, null, null, null, null) : resource;
}

function referenceOf(data: unknown): string | undefined {
  if (typeof data === 'string') return data;
  if (data && typeof data === 'object' && typeof (data as Json).reference === 'string') return (data as Json).reference;
  return undefined;
}

const TYPED_REFERENCE = /(?:^|\/)([A-Z][A-Za-z]+)\/([A-Za-z0-9\-.]{1,64})(?:\/_history\/[A-Za-z0-9\-.]{1,64})?$/;

/**
 * resolve() without I/O: `#id` finds a resource contained in the container (`#` the container
 * itself), a full URL of an entry of the enclosing Bundle finds that entry, and `Type/id` (relative
 * or absolute) becomes a stub `{resourceType, id}`, so `where(resolve() is Patient)` works; anything
 * else resolves to nothing.
 */
function resolveLocally(this: any, inputs: unknown[]): unknown[] {
  const root = (this.vars?.rootResource ?? this.vars?.resource) as Json | undefined;
  const bundle = this.vars?.bundle as Json | undefined;
  const lookups = (this.vars?.lookups as Lookups | undefined) ?? new Lookups();
  const out: unknown[] = [];
  for (const node of inputs) {
    const ref = referenceOf(fhirpath.util.valData(node));
    if (!ref) continue;
    let found: Json | undefined;
    if (ref.startsWith('#')) {
      found = ref === '#' ? root : lookups.contained(root).get(ref.slice(1));
    } else if (bundle?.resourceType === 'Bundle') {
      found = lookups.entries(bundle).get(ref);
    }
    if (!found) {
      const m = TYPED_REFERENCE.exec(ref);
      if (m && (isKnownResourceType(m[1]!) || isAbstractResourceType(m[1]!))) found = { resourceType: m[1], id: m[2] };
    }
    if (found) out.push(asResourceNode(this, node, found));
  }
  return out;
}

/** True when the code, Coding or CodeableConcept is in the compiled code set of the value set. */
function inValueSet(value: unknown, valueSetUrl: string): boolean | undefined {
  const file = manifest.valueSetFiles[valueSetUrl.replace(/\|.*$/, '')];
  if (!file) return undefined;
  const has = (system: string | undefined, code: unknown) => typeof code === 'string' && codeSetHas(file, system, code);
  if (typeof value === 'string') return has(undefined, value);
  if (!value || typeof value !== 'object') return false;
  const v = value as Json;
  if (Array.isArray(v.coding)) return v.coding.some((c: Json) => has(c?.system, c?.code));
  return has(v.system, v.code);
}

/** memberOf() against the compiled code sets; empty (unknown) for a value set with none. */
function memberOfLocally(this: any, inputs: unknown[], valueSet: unknown): unknown[] {
  const url = Array.isArray(valueSet) ? valueSet[0] : valueSet;
  if (typeof url !== 'string' || inputs.length !== 1) return [];
  const verdict = inValueSet(fhirpath.util.valData(inputs[0]), url);
  return verdict === undefined ? [] : [verdict];
}

const regexCache = new Map<string, RegExp>();

/**
 * matches() as the engine defines it (partial match, `s` and `u` flags, optional `i`/`m`), except
 * that a pattern invalid in Unicode mode is compiled without it: the standard's invariants escape
 * characters (`\'`, `\@`) that only non-Unicode regex engines accept.
 */
function matchesTolerantly(inputs: unknown[], regex: unknown, flags?: unknown): unknown[] {
  const value = inputs.length === 1 ? inputs[0] : undefined;
  if (typeof value !== 'string' || typeof regex !== 'string') return [];
  const extra = typeof flags === 'string' ? flags.replace(/[^im]/g, '') : '';
  const key = `${extra}/${regex}`;
  let re = regexCache.get(key);
  if (!re) {
    try {
      re = new RegExp(regex, `u${extra}s`);
    } catch {
      re = new RegExp(regex, `${extra}s`);
    }
    regexCache.set(key, re);
  }
  return [re.test(value)];
}

const userInvocationTable = {
  resolve: { fn: resolveLocally, internalStructures: true },
  memberOf: { fn: memberOfLocally, arity: { 1: ['String'] }, internalStructures: true },
  matches: { fn: matchesTolerantly, arity: { 1: ['String'], 2: ['String', 'String'] } },
} as const;

const noTrace = () => {};

const plainCache = new Map<string, Compiled | Error>();
const typedCache = new Map<string, Compiled | Error>();

/** Compiles once; an expression the engine cannot parse stays a cached error, not a retry per call. */
function compile(expression: string, base: string | undefined, typed: boolean): Compiled {
  const cache = typed ? typedCache : plainCache;
  const key = base ? `${base}\u0000${expression}` : expression;
  let fn = cache.get(key);
  if (!fn) {
    try {
      fn = fhirpath.compile(base ? { base, expression } : expression, r5Model(), {
        userInvocationTable: userInvocationTable as any,
        resolveInternalTypes: !typed,
        traceFn: noTrace,
      }) as unknown as Compiled;
    } catch (error) {
      fn = error instanceof Error ? error : new Error(String(error));
    }
    cache.set(key, fn);
  }
  if (fn instanceof Error) throw fn;
  return fn;
}

/** Evaluates to plain JSON values. `base` is the model path of `data` when it is not a resource. */
export function evaluate(expression: string, data: unknown, env: FhirPathEnv, base?: string): unknown[] {
  return compile(expression, base, false)(data, env as unknown as Record<string, unknown>);
}

/**
 * Evaluates an expression and keeps each result's FHIR type. `from` is a resource, or a
 * `TypedValue.node` of an earlier evaluation (the expression is then relative to it).
 */
export function evaluateTyped(expression: string, from: unknown, env: FhirPathEnv): TypedValue[] {
  const nodes = compile(expression, undefined, true)(from, env as unknown as Record<string, unknown>);
  const types = fhirpath.types(nodes);
  return nodes.map((node: any, i) => {
    const type = (types[i] ?? '').replace(/^FHIR\./, '');
    const value = node && typeof node === 'object' && 'data' in node ? fhirpath.util.valData(node) : node;
    return { type, value: value && typeof value === 'object' && 'toJSON' in value ? value.toJSON() : value, node };
  });
}

/** Checks that an expression compiles (for tests of the generated definitions). */
export function compileOnly(expression: string, base?: string): void {
  compile(expression, base, false);
}

/** UCUM unit check through the engine's own UCUM library. */
export function isValidUcumUnit(unit: string): boolean {
  return fhirpath.ucumUtils.validateUnitString(unit)?.status === 'valid';
}
