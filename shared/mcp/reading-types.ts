/**
 * The reading types (the 20 Open mHealth / IEEE schemas) as the assistants name and read them: one
 * resolver from what a model writes (`omh:heart-rate:2.0`, `omh:heart-rate`, `heart-rate`,
 * `http://loinc.org|8867-4`) to a schema, and one description of a schema (its members, its values
 * with their units and standard codes) for `get_omh_schema` and the `omh://schema/<code>`
 * resources. Everything here comes from the schemas and the generated quantities table
 * (shared/omh/), never from a record.
 */
import { categoryOf } from '../omh/categories';
import { canonicalOf, observationCodings, schemaQuantities, ucumOf, type QuantityMember } from '../omh/quantities';
import { PAYLOAD_SCHEMAS, type PayloadSchema } from '../omh/schemas/index';
import type { Validator } from '../omh/schemas/validate';
import { ToolRefusal } from './tool';

/** The resources' URI: `omh://schema/` and the full code (`omh://schema/omh:heart-rate:2.0`), which names one schema where a bare name may name two. */
export const SCHEMA_URI_PREFIX = 'omh://schema/';
export const schemaUri = (schema: Pick<PayloadSchema, 'code'>): string => `${SCHEMA_URI_PREFIX}${schema.code}`;

const BY_CODE: ReadonlyMap<string, PayloadSchema> = new Map(PAYLOAD_SCHEMAS.map((s) => [s.code, s]));
/** `namespace:name` and the bare name, each to every schema it may mean (two for `physical-activity` and `sleep-episode`). */
const BY_SHORT_NAME: ReadonlyMap<string, readonly PayloadSchema[]> = groupBy(PAYLOAD_SCHEMAS.flatMap((s) => [[`${s.namespace}:${s.name}`, s] as const, [s.name, s] as const]));
/** `system|code` of each standard coding a schema's readings may show (LOINC 8867-4 for heart rate; each of a blood glucose's). */
const BY_STANDARD_CODING: ReadonlyMap<string, readonly PayloadSchema[]> = groupBy(
  PAYLOAD_SCHEMAS.flatMap((s) => {
    const quantities = schemaQuantities(s.code);
    return (quantities ? observationCodings(quantities) : []).map((coding) => [`${coding.system}|${coding.code}`, s] as const);
  }),
);

function groupBy(pairs: ReadonlyArray<readonly [string, PayloadSchema]>): Map<string, PayloadSchema[]> {
  const groups = new Map<string, PayloadSchema[]>();
  for (const [key, schema] of pairs) groups.set(key, [...(groups.get(key) ?? []), schema]);
  return groups;
}

/** The schema a model's text names (client text: only ever a Map key); refused, with the choices, when it names none or several. */
export function resolveReadingType(text: string): PayloadSchema {
  const trimmed = text.trim();
  const exact = BY_CODE.get(trimmed);
  if (exact) return exact;
  const candidates = BY_SHORT_NAME.get(trimmed) ?? BY_STANDARD_CODING.get(trimmed) ?? [];
  if (candidates.length === 1) return candidates[0]!;
  if (candidates.length > 1) throw new ToolRefusal(`"${shown(trimmed)}" names several reading types: ${candidates.map((s) => s.code).join(', ')}. Give the full code.`);
  throw new ToolRefusal(`"${shown(trimmed)}" names no reading type. The types are: ${PAYLOAD_SCHEMAS.map((s) => s.code).join(', ')}.`);
}

/** Client text echoed in a refusal: short, and printable only. */
const shown = (text: string) => text.slice(0, 60).replace(/[^\x20-\x7e]/g, '?');

export interface SchemaMember {
  name: string;
  required: boolean;
  kind: 'value with unit' | 'time frame' | 'object' | 'list' | 'text or code' | 'number';
}

export interface SchemaDescription {
  code: string;
  display: string;
  namespace: string;
  name: string;
  version: string;
  uri: string;
  category: string | null;
  standardCoding: Coding | null;
  members: SchemaMember[];
  /** `coding` where a value's unit and specimen are not known; `variants`: the codings that follow them (a blood glucose's), empty for most. */
  values: Array<{ path: string; principal: boolean; units: string[] | null; coding: Coding; variants: CodingVariantDescription[] }>;
}

type Coding = { system: string; code: string; display: string };

/** A coding a value takes in these units, in readings naming this specimen (null: none, or another). */
export interface CodingVariantDescription {
  specimen: string | null;
  units: string[];
  coding: Coding;
}

const codingOf = (c: Coding): Coding => ({ system: c.system, code: c.code, display: c.display });

function variantsOf(member: QuantityMember): CodingVariantDescription[] {
  const dimension = (unit: string) => canonicalOf(ucumOf(unit) ?? unit)?.canonical;
  return member.variants.map((v) => ({ specimen: v.specimen ?? null, units: (member.units ?? []).filter((unit) => dimension(unit) === v.canonical), coding: codingOf(v.coding) }));
}

function kindOf(validate: Validator): SchemaMember['kind'] {
  if (validate.unitValue) return 'value with unit';
  if (validate.timeFrame) return 'time frame';
  if (validate.items) return 'list';
  if (validate.declared || validate.branches) return 'object';
  return 'text or code';
}

/** The body's top-level members, in declaration order; a body that is one of several shapes lists every shape's members as optional. */
function membersOf(body: Validator): SchemaMember[] {
  if (body.declared) return body.declared.map(([name, member]) => ({ name, required: member.required, kind: kindOf(member.validate) }));
  const seen = new Map<string, SchemaMember>();
  for (const branch of body.branches ?? []) for (const m of membersOf(branch)) if (!seen.has(m.name)) seen.set(m.name, { ...m, required: false });
  return [...seen.values()];
}

export function describeSchema(schema: PayloadSchema): SchemaDescription {
  const quantities = schemaQuantities(schema.code);
  return {
    code: schema.code,
    display: schema.display,
    namespace: schema.namespace,
    name: schema.name,
    version: schema.version,
    uri: schemaUri(schema),
    category: categoryOf(schema.code)?.code ?? null,
    standardCoding: quantities?.coding ? codingOf(quantities.coding) : null,
    members: membersOf(schema.body),
    values: (quantities?.members ?? []).map((m, index) => ({
      path: m.path,
      principal: quantities?.principal === index,
      units: m.units ? [...m.units] : null,
      coding: codingOf(m.coding),
      variants: variantsOf(m),
    })),
  };
}

/** Every schema, in code-table order. */
export const allSchemas = (): readonly PayloadSchema[] => PAYLOAD_SCHEMAS;
export const schemaOfCode = (code: string): PayloadSchema | undefined => BY_CODE.get(code);
