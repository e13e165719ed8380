/**
 * The compiled conversion tables at run time. The manifest is bundled; each type's table is a JSON
 * file read on first use (from `generated/` beside this module in the source tree, or beside
 * `index.mjs` in a Lambda bundle, where `scripts/bundle.ts` copies it), so an import of
 * Observations reads the Observation table and the datatypes it meets, nothing else.
 */
import { existsSync, readFileSync } from 'node:fs';
import { primitiveType } from '../fhir/definitions';
import type { TypeKinds } from './conversions';
import manifestJson from './generated/manifest.json';
import { BUNDLED_CONVERSION_DIR } from './location';
import type { ConversionRule, R4Element, R4Manifest, R4TypeTable } from './model';


export const r4Manifest = manifestJson as R4Manifest;

const GENERATED = ((bundled) => (existsSync(bundled) ? bundled : new URL('./generated/', import.meta.url)))(
  new URL(`./${BUNDLED_CONVERSION_DIR}/`, import.meta.url),
);

const r4Resources = new Set(r4Manifest.resourceTypes);
const r4Complex = new Set(r4Manifest.complexTypes);
const r4Primitives = new Map(Object.entries(r4Manifest.primitives));

export function isR4ResourceType(type: string): boolean {
  return r4Resources.has(type);
}

export const typeKinds: TypeKinds = {
  r4Primitive: (type) => r4Primitives.get(type),
  r5Primitive: (type) => primitiveType(type)?.json,
};

/** A table as the converter reads it: client text looks keys up in Maps, never in plain objects. */
export interface ConversionTable {
  type: string;
  kind: R4TypeTable['kind'];
  r5?: string;
  keys: ReadonlyMap<string, ReadonlyMap<string, readonly [string, string]>>;
  elements: ReadonlyMap<string, R4Element>;
  r5Lists: ReadonlySet<string>;
}

const cache = new Map<string, ConversionTable>();

/** The table of an R4 resource type or datatype, or undefined for any other name. */
export function conversionTable(type: string): ConversionTable | undefined {
  const cached = cache.get(type);
  if (cached) return cached;
  if (!r4Resources.has(type) && !r4Complex.has(type)) return undefined;
  const raw = JSON.parse(readFileSync(new URL(`types/${type}.json`, GENERATED), 'utf8')) as R4TypeTable;
  const table: ConversionTable = {
    type: raw.type,
    kind: raw.kind,
    ...(raw.r5 ? { r5: raw.r5 } : {}),
    keys: new Map(Object.entries(raw.keys).map(([parent, keys]) => [parent, new Map(Object.entries(keys))])),
    elements: new Map(Object.entries(raw.elements)),
    r5Lists: new Set(raw.r5Lists),
  };
  cache.set(type, table);
  return table;
}

export type { ConversionRule, R4Element };
