/**
 * Which release a resource sent to the R4 import looks like. Each top-level element is tried against
 * both: it fits a release when that release defines it (choice keys with their type) and its JSON
 * shape fits there (one value or a list; a string, number, boolean or object). Elements that fit both,
 * or neither, say nothing; the resource looks like R5 when more of the rest fit only R5 than only R4
 * (an R5 Encounter: `class` a list, `actualPeriod`, `reason.value`).
 */
import { primitiveType, typeDefinition, type ElementDef } from '../fhir/definitions';
import type { JsonObject } from '../json';
import type { ConversionTable } from './tables';
import { typeKinds } from './tables';

type Kind = 'string' | 'number' | 'boolean' | 'object';

const kindOf = (value: unknown): Kind | undefined => {
  const t = typeof value;
  if (t === 'string' || t === 'number' || t === 'boolean') return t;
  return t === 'object' && value !== null && !Array.isArray(value) ? 'object' : undefined;
};

/** One value or a list fits an element of this cardinality whose values are of these kinds. */
function fits(value: unknown, list: boolean, kinds: ReadonlySet<Kind>, lenient: boolean): boolean {
  if (Array.isArray(value)) return list && value.every((v) => kinds.has(kindOf(v)!));
  return (!list || lenient) && kinds.has(kindOf(value)!);
}

function fitsR4(key: string, value: unknown, table: ConversionTable): boolean {
  const hit = table.keys.get(table.type)?.get(key);
  const element = hit ? table.elements.get(hit[0]) : undefined;
  if (!hit || !element) return false;
  // A single value where R4 has a list is read as a list of one (convert.ts): it fits.
  return fits(value, Boolean(element.list), new Set([typeKinds.r4Primitive(hit[1]) ?? 'object']), true);
}

function r5Element(elements: readonly ElementDef[], key: string): { el: ElementDef; types: string[] } | undefined {
  for (const el of elements) {
    if (!el.choice) {
      if (el.name === key) return { el, types: (el.types ?? [{ code: 'BackboneElement' }]).map((t) => t.code) };
      continue;
    }
    if (!key.startsWith(el.name)) continue;
    const type = (el.types ?? []).find((t) => `${el.name}${t.code.charAt(0).toUpperCase()}${t.code.slice(1)}` === key);
    if (type) return { el, types: [type.code] };
  }
  return undefined;
}

function fitsR5(key: string, value: unknown, elements: readonly ElementDef[]): boolean {
  const found = r5Element(elements, key);
  if (!found) return false;
  const kinds = new Set(found.types.map((t): Kind => primitiveType(t)?.json ?? 'object'));
  return fits(value, found.el.max !== 1, kinds, false);
}

export interface Likeness {
  /** Top-level elements that fit only R5, and only R4, in the resource's order. */
  r5Only: string[];
  r4Only: string[];
}

/** The resource's elements that fit only one release; `looksLikeR5` decides from them. */
export function likeness(resource: JsonObject, table: ConversionTable): Likeness {
  const elements = table.r5 ? (typeDefinition(table.r5)?.elements ?? []) : [];
  const out: Likeness = { r5Only: [], r4Only: [] };
  for (const [key, value] of Object.entries(resource)) {
    if (key === 'resourceType' || key.startsWith('_') || value === null || value === undefined) continue;
    const r4 = fitsR4(key, value, table);
    const r5 = fitsR5(key, value, elements);
    if (r5 && !r4) out.r5Only.push(key);
    else if (r4 && !r5) out.r4Only.push(key);
  }
  return out;
}

export const looksLikeR5 = ({ r5Only, r4Only }: Likeness): boolean => r5Only.length > r4Only.length;
