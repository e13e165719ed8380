/**
 * The values inside a payload: every `{value, unit}` member of every supported body schema, with
 * its standard code (LOINC, else SNOMED CT, else the service's own `<namespace>/omh-member`), the
 * UCUM code of every OMH unit string, and each unit's canonical form for comparing values across
 * units. All of it comes from `generated/quantities.json` (written by `npm run omh:quantities` from
 * quantities/standard-codes.ts, quantities/ucum-units.ts and the schemas; docs/payloads.md#the-values-inside-a-payload),
 * so the hot path never loads the UCUM library: only `canonicalOfAny`, for a unit a client names
 * that the table lacks, imports it on first use.
 *
 * Client text (a unit in a search) is only ever a Map key, never a plain object's, and is bounded
 * before it reaches the library.
 */
import { BoundedMap } from '../bounded-map';
import { config } from '../config';
import { isObject } from '../json';
import generated from './generated/quantities.json';
import type { CanonicalUnit, StandardCoding } from './quantities/types';

export type { CanonicalUnit, StandardCoding } from './quantities/types';

export const UCUM_SYSTEM = 'http://unitsofmeasure.org';

/**
 * Code system of members without a standard code: the member's dotted path is the code. Under the
 * deployment's namespace, like every URI of the service's own (shared/fhir/constants.ts), so it is
 * read at run time.
 */
export const omhMemberSystem = (): string => `${config().namespace}/omh-member`;

/** One of a member's codings that follow what was measured: the one for values of dimension `canonical` in `specimen` (undefined: none, or one no other variant names). */
export interface CodingVariant {
  specimen: string | undefined;
  /** The canonical unit of the values' dimension (`m-3.g` a mass concentration, `m-3` a substance concentration). */
  canonical: string;
  coding: StandardCoding;
}

export interface QuantityMember {
  /** Dotted member path inside the body: 'heart_rate', 'systolic_blood_pressure', 'sleep_stage_summary.total_sleep_time'. */
  path: string;
  /** Its coding; where it has variants, the one shown when the value's unit and the specimen are not known. */
  coding: StandardCoding;
  /** The units the schema allows here (OMH strings); undefined: any string. */
  units: readonly string[] | undefined;
  /** Codings by the value's dimension and the reading's specimen (`memberCodingOf`); empty: `coding` always. */
  variants: readonly CodingVariant[];
}

export interface SchemaQuantities {
  /** 'omh:heart-rate:2.0' */
  code: string;
  /** The observation's standard code (LOINC 8867-4), added to Observation.code after the omh coding; undefined when there is none. */
  coding: StandardCoding | undefined;
  /** In a stable order (the order stored readings index into: never reorder, only append). */
  members: readonly QuantityMember[];
  /**
   * Index of the member that is the reading's principal value (heart_rate), whose coding is the
   * observation's own when it has one; undefined when no member is (blood pressure: two).
   */
  principal: number | undefined;
  /** The observation is coded as its principal value: its coding follows that value's (`observationCodingOf`). */
  codedAsPrincipal: boolean;
  /** The body member naming the specimen a value was measured in (blood glucose's `specimen_source`), which codings may follow. */
  specimen: string | undefined;
}

export interface LiftedQuantity {
  member: number;
  value: number;
  /** As in the payload. */
  unit: string;
}

interface GeneratedCoding {
  /** null: no standard code; the member is coded in `omhMemberSystem()`. */
  system: string | null;
  code: string;
  display: string;
}

interface GeneratedQuantities {
  schemas: {
    code: string;
    coding: GeneratedCoding | null;
    principal: number | null;
    specimen?: string;
    members: {
      path: string;
      coding: GeneratedCoding;
      units: string[] | null;
      variants?: { specimen: string | null; canonical: string; coding: StandardCoding }[];
    }[];
  }[];
  units: [omh: string, ucum: string][];
  canonical: [ucum: string, CanonicalUnit][];
}

const table = generated as GeneratedQuantities;

/** A coding of the service's own system: `system` follows the namespace setting each time it is read. */
function memberCoding({ system, code, display }: GeneratedCoding): StandardCoding {
  if (system !== null) return { system, code, display };
  return {
    get system() {
      return omhMemberSystem();
    },
    code,
    display,
  };
}

const sameCoding = (a: Pick<StandardCoding, 'system' | 'code'> | undefined, b: Pick<StandardCoding, 'system' | 'code'> | undefined) =>
  a !== undefined && b !== undefined && a.system === b.system && a.code === b.code;

/** Every schema's quantities (for reverse lookups: which schema codes and members a standard coding names). */
export const SCHEMA_QUANTITIES: readonly SchemaQuantities[] = table.schemas.map((schema) => {
  const coding = schema.coding ? memberCoding(schema.coding) : undefined;
  const members = schema.members.map((member) => ({
    path: member.path,
    coding: memberCoding(member.coding),
    units: member.units ?? undefined,
    variants: (member.variants ?? []).map((v) => ({ specimen: v.specimen ?? undefined, canonical: v.canonical, coding: v.coding })),
  }));
  const principal = schema.principal ?? undefined;
  return {
    code: schema.code,
    coding,
    members,
    principal,
    codedAsPrincipal: principal !== undefined && sameCoding(coding, members[principal]?.coding),
    specimen: schema.specimen,
  };
});

const BY_CODE = new Map(SCHEMA_QUANTITIES.map((schema) => [schema.code, schema]));
const PATHS = new Map(SCHEMA_QUANTITIES.map((schema) => [schema.code, schema.members.map((member) => member.path.split('.'))]));
const UCUM_OF = new Map(table.units);
const CANONICAL = new Map(table.canonical);

export function schemaQuantities(schemaCode: string): SchemaQuantities | undefined {
  return BY_CODE.get(schemaCode);
}

/** The dimension of a unit: the canonical form of an OMH label or a UCUM code of the table; other text (a canonical unit itself: `m-3.g`) as it is. */
function dimensionOf(unit: string): string {
  return canonicalOf(ucumOf(unit) ?? unit)?.canonical ?? unit;
}

/** A member's variants for the dimension of `unit` (none when its coding does not follow the unit, or the unit is not known). */
function variantsFor(quantities: SchemaQuantities, member: number, unit: string | undefined): CodingVariant[] {
  const { variants } = quantities.members[member]!;
  if (variants.length === 0 || unit === undefined) return [];
  const dimension = dimensionOf(unit);
  return variants.filter((v) => v.canonical === dimension);
}

/**
 * The coding of a member's value in `unit` (an OMH label, a UCUM code, or a canonical unit), of a
 * reading whose specimen is `specimen` (where known): the member's variant for the unit's
 * dimension and that specimen, else for the dimension and no specimen, else its coding. The one
 * rule every rendering, search and statistic codes a value by (docs/payloads.md#the-values-inside-a-payload).
 */
export function memberCodingOf(quantities: SchemaQuantities, member: number, unit: string | undefined, specimen: string | undefined): StandardCoding {
  const ofDimension = variantsFor(quantities, member, unit);
  return (ofDimension.find((v) => v.specimen === specimen) ?? ofDimension.find((v) => v.specimen === undefined))?.coding ?? quantities.members[member]!.coding;
}

/**
 * The specimen as far as the coding of a member's value in `unit` depends on it: `specimen` where a
 * variant of the unit's dimension names it, else undefined (the value is coded as one of no
 * specimen). What the statistics' value groups keep, so that they part exactly where their codings do.
 */
export function codedSpecimen(quantities: SchemaQuantities, member: number, unit: string, specimen: string | undefined): string | undefined {
  return specimen !== undefined && variantsFor(quantities, member, unit).some((v) => v.specimen === specimen) ? specimen : undefined;
}

/** `memberCodingOf` by schema code (a statistics value group knows its member, unit and the specimen its coding follows); undefined for an unknown schema or member. */
export function codingOf(schemaCode: string, member: number, unit: string | undefined, specimen?: string): StandardCoding | undefined {
  const quantities = BY_CODE.get(schemaCode);
  return quantities?.members[member] === undefined ? undefined : memberCodingOf(quantities, member, unit, specimen);
}

/** The observation's standard coding for a reading with these values: its principal value's where it is coded as that value, else the schema's. */
export function observationCodingOf(quantities: SchemaQuantities, values: readonly LiftedQuantity[], specimen: string | undefined): StandardCoding | undefined {
  if (!quantities.codedAsPrincipal) return quantities.coding;
  const principal = quantities.principal!;
  return memberCodingOf(quantities, principal, values.find((v) => v.member === principal)?.unit, specimen);
}

/** Whether a reading's codings may depend on its specimen (so reading them needs its payload). */
export const followsSpecimen = (quantities: SchemaQuantities): boolean =>
  quantities.specimen !== undefined && quantities.members.some((m) => m.variants.some((v) => v.specimen !== undefined));

/** The specimen a validated body names (`specimen_source`), when its schema has a specimen member and the body a text there. */
export function specimenOf(quantities: SchemaQuantities, body: unknown): string | undefined {
  const path = quantities.specimen;
  if (path === undefined || !isObject(body) || !Object.hasOwn(body, path)) return undefined;
  const value = body[path];
  return typeof value === 'string' ? value : undefined;
}

/** Every coding a member's value may be shown with: its coding and its variants', each once. */
export function memberCodings(member: QuantityMember): StandardCoding[] {
  const all = [member.coding, ...member.variants.map((v) => v.coding)];
  return all.filter((coding, i) => all.findIndex((other) => sameCoding(other, coding)) === i);
}

/** Every standard coding a reading of the schema may be shown with (none when it has none). */
export function observationCodings(quantities: SchemaQuantities): StandardCoding[] {
  if (!quantities.coding) return [];
  return quantities.codedAsPrincipal ? memberCodings(quantities.members[quantities.principal!]!) : [quantities.coding];
}

/**
 * The unit-value members present in a validated body, in member order. A member that is absent, or
 * not a `{value: number, unit: string}` pair (the food entry's unitless count), is left out.
 */
export function liftQuantities(schemaCode: string, body: unknown): LiftedQuantity[] {
  const paths = PATHS.get(schemaCode);
  if (!paths) return [];
  const lifted: LiftedQuantity[] = [];
  paths.forEach((path, member) => {
    const pair = memberAt(body, path);
    if (!isObject(pair)) return;
    const { value, unit } = pair;
    if (typeof value === 'number' && Number.isFinite(value) && typeof unit === 'string') lifted.push({ member, value, unit });
  });
  return lifted;
}

function memberAt(body: unknown, path: readonly string[]): unknown {
  let at = body;
  for (const key of path) {
    if (!isObject(at) || !Object.hasOwn(at, key)) return undefined;
    at = at[key];
  }
  return at;
}

/**
 * UCUM code of an OMH unit string; undefined for a free-text unit that is not UCUM. Text that is
 * no OMH label but a UCUM code of the table (`kcal` in a free-text member) is its own code.
 */
export function ucumOf(omhUnit: string): string | undefined {
  return UCUM_OF.get(omhUnit) ?? (CANONICAL.has(omhUnit) ? omhUnit : undefined);
}

/** A unit's canonical form, from the generated table only (synchronous: the hot path). */
export function canonicalOf(ucum: string): CanonicalUnit | undefined {
  return CANONICAL.get(ucum);
}

/** Longest unit text handed to the UCUM library: ample for any real unit, bounded for hostile text. */
const MAX_UCUM_LENGTH = 64;
/** UCUM codes are printable ASCII without spaces. */
const UCUM_TEXT = /^[!-~]+$/;
/** Units looked up through the library, kept so a repeated search does not parse again; the least recently kept forgotten when full. */
const LOOKED_UP = new BoundedMap<string, CanonicalUnit | undefined>(1000);

/**
 * A unit's canonical form, also for units outside the generated table (`[stone_av]`), through the
 * UCUM library loaded lazily; invalid or unknown text, or a unit with no linear canonical form
 * (decibels), gives undefined.
 */
export async function canonicalOfAny(ucum: string): Promise<CanonicalUnit | undefined> {
  const known = canonicalOf(ucum);
  if (known) return known;
  if (ucum.length > MAX_UCUM_LENGTH || !UCUM_TEXT.test(ucum)) return undefined;
  if (LOOKED_UP.has(ucum)) return LOOKED_UP.get(ucum);
  const { canonicalFromLibrary } = await import('./quantities/ucum-library');
  const found = canonicalFromLibrary(ucum);
  LOOKED_UP.set(ucum, found);
  return found;
}
