/**
 * The compiled R5 definitions at run time. The small manifest is bundled; each type's definition
 * and each code set is a JSON file read on first use (from `generated/` beside this module in the
 * source tree, and beside `index.mjs` in a Lambda bundle, where `scripts/bundle.ts` copies it), so
 * a Lambda that handles one type parses only that type and the datatypes it meets.
 */
import { existsSync, readFileSync } from 'node:fs';
import manifestJson from './generated/manifest.json';
import { BUNDLED_DEFINITIONS_DIR } from './location';
import type { ElementDef, Manifest, PrimitiveDef, SearchParamDef, TypeDefinition, ValueSetCodes } from './model';

export type * from './model';
export { UNBOUNDED } from './model';

export const manifest = manifestJson as Manifest;

/** Where the per-type files live: beside the bundle when bundled, else `generated/` here. */
const GENERATED = ((bundled) => (existsSync(bundled) ? bundled : new URL('./generated/', import.meta.url)))(
  new URL(`./${BUNDLED_DEFINITIONS_DIR}/`, import.meta.url),
);

const resourceTypes = new Set(manifest.resourceTypes);
const complexTypes = new Set(manifest.complexTypes);
const abstractResourceTypes = new Set(manifest.abstractResourceTypes);

/** A concrete R5 resource type name (`Observation`, not `DomainResource` or `observation`). */
export function isKnownResourceType(type: string): boolean {
  return resourceTypes.has(type);
}

export function isAbstractResourceType(type: string): boolean {
  return abstractResourceTypes.has(type);
}

export function isComplexType(type: string): boolean {
  return complexTypes.has(type);
}

export function primitiveType(name: string): PrimitiveDef | undefined {
  return Object.hasOwn(manifest.primitives, name) ? manifest.primitives[name] : undefined;
}

function readGenerated<T>(relative: string): T {
  return JSON.parse(readFileSync(new URL(relative, GENERATED), 'utf8')) as T;
}

const typeCache = new Map<string, TypeDefinition>();

/** The definition of a resource type or complex datatype, or undefined for any other name. */
export function typeDefinition(name: string): TypeDefinition | undefined {
  const cached = typeCache.get(name);
  if (cached) return cached;
  if (!resourceTypes.has(name) && !complexTypes.has(name) && !abstractResourceTypes.has(name)) return undefined;
  const def = readGenerated<TypeDefinition>(`types/${name}.json`);
  typeCache.set(name, def);
  return def;
}

const valueSetCache = new Map<string, ValueSetCodes>();

export function valueSetCodes(file: string): ValueSetCodes {
  let codes = valueSetCache.get(file);
  if (!codes) {
    codes = readGenerated<ValueSetCodes>(`valuesets/${file}.json`);
    valueSetCache.set(file, codes);
  }
  return codes;
}

const membershipCache = new Map<string, ReadonlyMap<string, ReadonlySet<string>>>();

/** A code set as system -> codes, for lookups (cached per file). */
export function codeSetMembership(file: string): ReadonlyMap<string, ReadonlySet<string>> {
  let set = membershipCache.get(file);
  if (!set) {
    set = new Map(Object.entries(valueSetCodes(file).systems).map(([system, codes]) => [system, new Set(codes)]));
    membershipCache.set(file, set);
  }
  return set;
}

/** Is (system, code) in the code set? Without a system: in any of its systems. */
export function codeSetHas(file: string, system: string | undefined, code: string): boolean {
  const set = codeSetMembership(file);
  if (system !== undefined) return set.get(system)?.has(code) ?? false;
  for (const codes of set.values()) if (codes.has(code)) return true;
  return false;
}

/** Every search parameter of a resource type: its own, then the common ones it does not redefine. */
export function searchParamsOf(type: string): SearchParamDef[] {
  const own = typeDefinition(type)?.searchParams ?? [];
  const names = new Set(own.map((p) => p.code));
  return [...own, ...manifest.commonSearchParams.filter((p) => !names.has(p.code))];
}

/**
 * Follows a `contentReference` path (`Questionnaire.item`) from a type's root to the element it
 * names.
 */
export function elementAtPath(def: TypeDefinition, path: string): ElementDef | undefined {
  const names = path.split('.').slice(1);
  let list: ElementDef[] | undefined = def.elements;
  let found: ElementDef | undefined;
  for (const name of names) {
    found = list?.find((e) => e.name === name);
    list = found?.children;
  }
  return found;
}
