/**
 * Search by the values inside readings (docs/api.md#search-by-value): `value-quantity`,
 * `component-value-quantity`, `combo-value-quantity`, the composites `code-value-quantity`,
 * `component-code-value-quantity`, `combo-code-value-quantity`, and the tokens `component-code`,
 * `combo-code`.
 *
 * A reading has measures: the reading itself (its codes, the `omh:` one and the standard one, with
 * its principal value: a heart rate's `heart_rate`; a blood pressure has none) and one per lifted
 * value (a component: the member's standard code and its value). `value-*` parameters look at the
 * reading, `component-*` at its components, `combo-*` at both, as FHIR defines them.
 *
 * Units: a number without a unit compares with the value as uploaded, in whatever unit. A unit
 * (`|http://unitsofmeasure.org|kg`, `||kg`, or an Open mHealth unit such as `||lb`) that UCUM can
 * convert compares in the dimension's canonical unit on both sides, so 70 kg finds 154.3 lb; a unit
 * it cannot compares only with values written in exactly that unit.
 */
import type { Code, Id } from '../../directory/model';
import type { ComponentQuery, Criterion, QuantityQuery, TokenQuery } from '../../fhir/search';
import { numberMatches, tokenMatches } from '../../fhir/search/match';
import { normaliseText } from '../../fhir/search/text';
import { canonicalOf, canonicalOfAny, schemaQuantities, UCUM_SYSTEM, ucumOf, type CanonicalUnit, type LiftedQuantity } from '../../omh/quantities';
import type { ReadingFacts } from '../model';
import { componentCoding, readingValues } from '../values';

/** The parameters this module answers, and which measures of a reading each looks at. */
const VALUE_PARAMS: ReadonlyMap<string, { reading: boolean; components: boolean }> = new Map([
  ['value-quantity', { reading: true, components: false }],
  ['code-value-quantity', { reading: true, components: false }],
  ['component-value-quantity', { reading: false, components: true }],
  ['component-code-value-quantity', { reading: false, components: true }],
  ['component-code', { reading: false, components: true }],
  ['combo-value-quantity', { reading: true, components: true }],
  ['combo-code-value-quantity', { reading: true, components: true }],
  ['combo-code', { reading: true, components: true }],
]);

export const isValueParam = (code: string): boolean => VALUE_PARAMS.has(code);

/** A value criterion as parsed: a quantity, a composite (code $ quantity) or a token (`component-code`). */
export type ValueCriterion = Extract<Criterion, { kind: 'quantity' | 'composite' | 'token' }>;

interface Coding {
  s: string;
  c: string;
  /** Display, normalised, for `:text`. */
  t?: string;
}

interface Measure {
  codings: Coding[];
  value: LiftedQuantity | undefined;
}

/** Units a query names, resolved to their canonical forms once per search (UCUM may be loaded for a rare one). */
export type QueryUnits = ReadonlyMap<string, CanonicalUnit | undefined>;

/** The UCUM code a query's unit stands for: a UCUM code, or an Open mHealth unit string (`lb`, `beats/min`). */
function ucumCodeOf(query: Pick<QuantityQuery, 'system' | 'code'>): string | undefined {
  if (query.code === undefined) return undefined;
  if (query.system === UCUM_SYSTEM) return query.code;
  if (query.system !== undefined) return undefined;
  return ucumOf(query.code) ?? query.code;
}

function quantityQueries(criteria: readonly ValueCriterion[]): QuantityQuery[] {
  return criteria.flatMap((c) => {
    if (c.kind === 'quantity') return c.values;
    if (c.kind === 'composite') return c.values.flatMap((parts) => parts.flatMap((p) => (p.kind === 'quantity' ? [p.value] : [])));
    return [];
  });
}

/** Resolves every unit the criteria name (asynchronously: a unit outside the generated table loads UCUM). */
export async function resolveQueryUnits(criteria: readonly ValueCriterion[]): Promise<QueryUnits> {
  const codes = new Set(quantityQueries(criteria).flatMap((q) => ucumCodeOf(q) ?? []));
  const resolved = await Promise.all([...codes].map(async (code) => [code, canonicalOf(code) ?? (await canonicalOfAny(code))] as const));
  return new Map(resolved);
}

const canonicalValue = (value: number, unit: CanonicalUnit) => value * unit.factor + unit.offset;

/** Whether a stored value matches a quantity query (docs above: units). */
function quantityMatches(value: LiftedQuantity, query: QuantityQuery, units: QueryUnits): boolean {
  if (query.system === undefined && query.code === undefined) return numberMatches({ lo: value.value, hi: value.value }, query);
  const storedUcum = ucumOf(value.unit);
  const code = ucumCodeOf(query);
  const target = code === undefined ? undefined : (units.get(code) ?? canonicalOf(code));
  const own = storedUcum === undefined ? undefined : canonicalOf(storedUcum);
  if (target && own && target.canonical === own.canonical) {
    const v = canonicalValue(value.value, own);
    const scaled = { prefix: query.prefix, value: canonicalValue(query.value, target), lo: canonicalValue(query.lo, target), hi: canonicalValue(query.hi, target) };
    // A unit whose factor is negative cannot exist in UCUM; the bounds keep their order.
    return numberMatches({ lo: v, hi: v }, scaled);
  }
  // Not convertible: only a value written in exactly that unit (its UCUM code, or, without a system, the unit as written).
  const sameUnit = query.system === UCUM_SYSTEM ? storedUcum === query.code : query.system === undefined && (value.unit === query.code || storedUcum === query.code);
  return sameUnit && numberMatches({ lo: value.value, hi: value.value }, query);
}

function codingMatches(codings: readonly Coding[], query: TokenQuery, modifier: 'text' | 'not' | undefined): boolean {
  if (modifier === 'text') return query.text !== undefined && codings.some((c) => c.t !== undefined && (c.t.startsWith(query.text!) || c.t.includes(` ${query.text}`)));
  return codings.some((c) => tokenMatches({ s: c.s, c: c.c }, query));
}

function partMatches(measure: Measure, part: ComponentQuery, units: QueryUnits): boolean {
  if (part.kind === 'token') return codingMatches(measure.codings, part.value, undefined);
  if (part.kind === 'quantity') return measure.value !== undefined && quantityMatches(measure.value, part.value, units);
  return false;
}

function criterionMatches(measures: { reading: Measure; components: Measure[] }, c: ValueCriterion, units: QueryUnits): boolean {
  const scope = VALUE_PARAMS.get(c.param.code)!;
  const inScope = [...(scope.reading ? [measures.reading] : []), ...(scope.components ? measures.components : [])];
  switch (c.kind) {
    case 'quantity':
      return inScope.some((m) => m.value !== undefined && c.values.some((q) => quantityMatches(m.value!, q, units)));
    case 'composite':
      return inScope.some((m) => c.values.some((parts) => parts.every((part) => partMatches(m, part, units))));
    case 'token': {
      const any = inScope.some((m) => c.values.some((q) => codingMatches(m.codings, q, c.modifier === 'text' ? 'text' : undefined)));
      return c.modifier === 'not' ? !any : any;
    }
  }
}

const codingOf = (system: string, code: string, display?: string): Coding => ({ s: system, c: code, ...(display ? { t: normaliseText(display) } : {}) });

function measuresOf(reading: ReadingFacts, code: Code): { reading: Measure; components: Measure[] } {
  const quantities = schemaQuantities(code.code);
  // The kept values only, never the payload: a page and a count must agree (a reading stored before
  // values were lifted has none until the migration gives them).
  const values = quantities ? readingValues({ values: reading.values }, code.code) : [];
  const standard = quantities?.coding;
  const principal = quantities?.principal === undefined ? undefined : values.find((v) => v.member === quantities.principal);
  return {
    reading: { codings: [codingOf(code.system, code.code, code.display), ...(standard ? [codingOf(standard.system, standard.code, standard.display)] : [])], value: principal },
    components: values.map((v) => {
      const coding = componentCoding(quantities!, v.member);
      return { codings: [codingOf(coding.system, coding.code, coding.display)], value: v };
    }),
  };
}

/**
 * The test of a reading's values against every value criterion (AND); undefined when there is none.
 * `codes` is the code table by id (a reading's schema is its code's).
 */
export function valueTest(criteria: readonly ValueCriterion[], codes: ReadonlyMap<Id, Code>, units: QueryUnits): ((o: ReadingFacts) => boolean) | undefined {
  if (criteria.length === 0) return undefined;
  return (o) => {
    const code = codes.get(o.codeId);
    if (!code) return false;
    const measures = measuresOf(o, code);
    return criteria.every((c) => criterionMatches(measures, c, units));
  };
}
