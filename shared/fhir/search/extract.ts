/**
 * Extraction: a resource -> the index values of every search parameter of its type, computed with
 * the standard's FHIRPath expressions and normalised per parameter type (see `index-values.ts`).
 * Run once when a resource is written; searches then compare the stored values only.
 */
import { badRequest } from '../../http/errors';
import { isKnownResourceType, searchParamsOf, type SearchParamDef, type SearchParamKind } from '../definitions';
import { loadFhirPath, Lookups, type FhirPathEngine, type FhirPathEnv, type TypedValue } from '../fhirpath';
import { splitUnion } from '../fhirpath/union';
import { dateRange, periodRange } from './dates';
import {
  MAX_NUMBER,
  MIN_NUMBER,
  type CompositeValue,
  type DateValue,
  type IndexValue,
  type QuantityValue,
  type ReferenceValue,
  type SearchIndex,
  type StringValue,
  type TokenValue,
} from './index-values';
import { normaliseText } from './text';

type Json = Record<string, any>;

export interface ExtractionOptions {
  /**
   * Base URLs of this server: an absolute reference under one of them is indexed as the local
   * `Type/id` it names.
   */
  localBases?: readonly string[];
  /** Told about each parameter whose expression failed on this resource (it is left out). */
  onError?: (param: string, error: unknown) => void;
}

/** The search index of a resource (of any R5 type). */
export async function extractSearchIndex(resource: Json, options: ExtractionOptions = {}): Promise<SearchIndex> {
  return extractWith(await loadFhirPath(), resource, options);
}

/** Parameters extraction can compute: those with an expression that yields their values. */
export function extractableParams(type: string): SearchParamDef[] {
  return searchParamsOf(type).filter((p) => p.expression && p.type !== 'special' && p.processing !== 'other');
}

export function extractWith(engine: FhirPathEngine, resource: Json, options: ExtractionOptions = {}): SearchIndex {
  if (!isKnownResourceType(resource?.resourceType)) {
    throw badRequest(`Cannot index '${String(resource?.resourceType)}': it is not an R5 resource type.`);
  }
  const env = { resource, rootResource: resource, lookups: new Lookups() };
  const index: SearchIndex = {};
  for (const param of extractableParams(resource.resourceType)) {
    let values: IndexValue[];
    try {
      const found = evaluateParts(engine, param.expression!, resource, env);
      values =
        param.type === 'composite'
          ? found.flatMap((node) => compositeValue(engine, param, node, env, options))
          : found.flatMap((node) => indexValues(param.type, node, options));
    } catch (error) {
      options.onError?.(param.code, error);
      continue;
    }
    if (values.length > 0) index[param.code] = dedupe(values);
  }
  return index;
}

/**
 * Evaluates the expression; when the engine fails on the union as a whole (its `|` compares values
 * and cannot compare a Quantity with a comparator), each part of the union is evaluated alone.
 */
function evaluateParts(engine: FhirPathEngine, expression: string, resource: Json, env: FhirPathEnv): TypedValue[] {
  try {
    return engine.evaluateTyped(expression, resource, env);
  } catch (error) {
    const parts = splitUnion(expression);
    if (parts.length < 2) throw error;
    return parts.flatMap((part) => engine.evaluateTyped(part, resource, env));
  }
}

function compositeValue(
  engine: FhirPathEngine,
  param: SearchParamDef,
  root: TypedValue,
  env: FhirPathEnv,
  options: ExtractionOptions,
): CompositeValue[] {
  const value: CompositeValue = {};
  for (const component of param.components ?? []) {
    const found = engine.evaluateTyped(component.expression, root.node, env);
    const values = found.flatMap((node) => indexValues(component.type, node, options));
    if (values.length === 0) return [];
    value[component.code] = dedupe(values);
  }
  return [value];
}

function dedupe(values: IndexValue[]): IndexValue[] {
  const seen = new Set<string>();
  return values.filter((v) => {
    const key = JSON.stringify(v);
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

/** Drops undefined and empty-string properties, so stored values stay minimal. */
function compact<T extends object>(value: T): T {
  for (const key of Object.keys(value) as (keyof T)[]) {
    if (value[key] === undefined || value[key] === '') delete value[key];
  }
  return value;
}

const str = (v: unknown): string | undefined => (typeof v === 'string' && v.length > 0 ? v : undefined);
const text = (v: unknown): string | undefined => {
  const s = str(v);
  return s === undefined ? undefined : normaliseText(s) || undefined;
};

export function indexValues(kind: SearchParamKind, typed: TypedValue, options: ExtractionOptions = {}): IndexValue[] {
  switch (kind) {
    case 'token':
      return tokenValues(typed);
    case 'string':
      return stringValues(typed).map(stringValue);
    case 'date':
      return dateValues(typed);
    case 'number':
      return typeof typed.value === 'number' ? [{ lo: typed.value, hi: typed.value }] : [];
    case 'quantity':
      return quantityValues(typed);
    case 'reference':
      return referenceValues(typed, options);
    case 'uri':
      return typeof typed.value === 'string' ? [typed.value] : [];
    default:
      return [];
  }
}

function coding(c: Json | undefined): TokenValue[] {
  if (!c || typeof c !== 'object') return [];
  const value = compact({ s: str(c.system), c: str(c.code), t: text(c.display) });
  return Object.keys(value).length > 0 ? [value] : [];
}

function concept(cc: Json | undefined): TokenValue[] {
  if (!cc || typeof cc !== 'object') return [];
  const out = ((cc.coding ?? []) as Json[]).flatMap(coding);
  const t = text(cc.text);
  if (t) out.push({ t });
  return out;
}

function tokenValues({ type, value }: TypedValue): TokenValue[] {
  const v = value as Json;
  switch (type) {
    case 'Coding':
      return coding(v);
    case 'CodeableConcept':
      return concept(v);
    case 'CodeableReference':
      return concept(v?.concept);
    case 'Identifier': {
      const id = compact({ s: str(v?.system), c: str(v?.value), t: text(v?.type?.text) });
      return Object.keys(id).length > 0 ? [id] : [];
    }
    case 'ContactPoint':
      return str(v?.value) ? [{ c: v.value }] : [];
    default:
      if (typeof value === 'boolean') return [{ c: String(value) }];
      if (typeof value === 'string' && value.length > 0) return [{ c: value }];
      if (typeof value === 'number') return [{ c: String(value) }];
      return [];
  }
}

function stringValue(s: string): StringValue {
  return { v: s, n: normaliseText(s) };
}

const NAME_PARTS = ['text', 'family', 'given', 'prefix', 'suffix'];
const ADDRESS_PARTS = ['text', 'line', 'city', 'district', 'state', 'postalCode', 'country'];

function stringValues({ type, value }: TypedValue): string[] {
  if (typeof value === 'string') return value.length > 0 ? [value] : [];
  if (!value || typeof value !== 'object') return [];
  const v = value as Json;
  const parts = type === 'HumanName' ? NAME_PARTS : type === 'Address' ? ADDRESS_PARTS : undefined;
  if (parts) return parts.flatMap((p) => [v[p]].flat()).filter((s): s is string => typeof s === 'string' && s.length > 0);
  // Any other complex value: its own string parts, one level down (e.g. CodeableConcept.text).
  return Object.entries(v)
    .filter(([k, s]) => typeof s === 'string' && s.length > 0 && k !== 'id' && k !== 'system' && k !== 'url')
    .map(([, s]) => s as string);
}

function dateValues({ type, value }: TypedValue): DateValue[] {
  if (typeof value === 'string') {
    const range = dateRange(value);
    return range ? [range] : [];
  }
  const v = value as Json | undefined;
  if (type === 'Period') {
    const range = periodRange(str(v?.start), str(v?.end));
    return range ? [range] : [];
  }
  if (type === 'Timing') {
    const events = ((v?.event ?? []) as unknown[]).flatMap((e) => (typeof e === 'string' ? [dateRange(e)] : []));
    const bounds = v?.repeat?.boundsPeriod ? [periodRange(str(v.repeat.boundsPeriod.start), str(v.repeat.boundsPeriod.end))] : [];
    return [...events, ...bounds].filter((r): r is DateValue => r !== undefined);
  }
  return [];
}

const QUANTITY_TYPES = new Set(['Quantity', 'Age', 'Count', 'Distance', 'Duration', 'SimpleQuantity', 'MoneyQuantity']);

function quantity(q: Json | undefined): QuantityValue | undefined {
  if (!q || typeof q.value !== 'number') return undefined;
  const comparator = q.comparator as string | undefined;
  const lo = comparator === '<' || comparator === '<=' ? MIN_NUMBER : q.value;
  const hi = comparator === '>' || comparator === '>=' ? MAX_NUMBER : q.value;
  return compact({ lo, hi, s: str(q.system), c: str(q.code), u: str(q.unit) });
}

function quantityValues({ type, value }: TypedValue): QuantityValue[] {
  if (typeof value === 'number') return [{ lo: value, hi: value }];
  const v = value as Json | undefined;
  if (QUANTITY_TYPES.has(type)) {
    const q = quantity(v);
    return q ? [q] : [];
  }
  if (type === 'Money' && typeof v?.value === 'number') {
    return [compact({ lo: v.value, hi: v.value, s: 'urn:iso:std:iso:4217', c: str(v.currency) })];
  }
  if (type === 'Range' && v && (typeof v.low?.value === 'number' || typeof v.high?.value === 'number')) {
    const unitOf = (v.low ?? v.high) as Json;
    return [
      compact({
        lo: typeof v.low?.value === 'number' ? v.low.value : MIN_NUMBER,
        hi: typeof v.high?.value === 'number' ? v.high.value : MAX_NUMBER,
        s: str(unitOf.system),
        c: str(unitOf.code),
        u: str(unitOf.unit),
      }),
    ];
  }
  return [];
}

const LOCAL_REFERENCE = /^([A-Z][A-Za-z]+)\/([A-Za-z0-9\-.]{1,64})(?:\/_history\/[A-Za-z0-9\-.]{1,64})?$/;
const TYPED_TAIL = /\/([A-Z][A-Za-z]+)\/([A-Za-z0-9\-.]{1,64})(?:\/_history\/[A-Za-z0-9\-.]{1,64})?$/;

/** Index value of a reference string: local `Type/id`, or an absolute URL / canonical. */
export function referenceValue(reference: string, localBases: readonly string[] = []): ReferenceValue | undefined {
  if (reference.startsWith('#') || reference.length === 0) return undefined;
  let ref = reference;
  for (const base of localBases) {
    const prefix = base.endsWith('/') ? base : `${base}/`;
    if (ref.startsWith(prefix)) {
      ref = ref.slice(prefix.length);
      break;
    }
  }
  const local = LOCAL_REFERENCE.exec(ref);
  if (local) return { r: `${local[1]}/${local[2]}`, t: local[1], i: local[2] };
  const bar = ref.indexOf('|');
  const url = bar < 0 ? ref : ref.slice(0, bar);
  const tail = TYPED_TAIL.exec(url);
  return compact({ u: url, v: bar < 0 ? undefined : ref.slice(bar + 1), t: tail?.[1] });
}

function referenceValues({ type, value }: TypedValue, options: ExtractionOptions): ReferenceValue[] {
  if (typeof value === 'string') {
    const ref = referenceValue(value, options.localBases);
    return ref ? [ref] : [];
  }
  const v = (type === 'CodeableReference' ? (value as Json | undefined)?.reference : value) as Json | undefined;
  if (!v || typeof v !== 'object') return [];
  const out: ReferenceValue = (typeof v.reference === 'string' && referenceValue(v.reference, options.localBases)) || {};
  if (!out.t && str(v.type)) {
    const declared = (v.type as string).replace(/^http:\/\/hl7\.org\/fhir\/StructureDefinition\//, '');
    if (/^[A-Z][A-Za-z]+$/.test(declared)) out.t = declared;
  }
  const identifier = v.identifier as Json | undefined;
  if (identifier && (str(identifier.system) || str(identifier.value))) {
    out.k = compact({ s: str(identifier.system), c: str(identifier.value) });
  }
  return out.r || out.u || out.k ? [out] : [];
}
