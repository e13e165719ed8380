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
import {
  canonicalOf, canonicalOfAny, memberCodings, observationCodings, omhMemberSystem, schemaQuantities, UCUM_SYSTEM, ucumOf,
  type CanonicalUnit, type LiftedQuantity, type SchemaQuantities, type StandardCoding,
} from '../../omh/quantities';
import type { KeptValue, ReadingFacts } from '../model';
import { keptUnit, readingCodings, readingSpecimen, readingValues } from '../values';

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

/** Whether a number in `[lo, hi]` (one value: `lo === hi`) matches, or may match, a number query. */
type NumbersTest = (lo: number, hi: number, query: QuantityQuery) => boolean;

const valueMatches: NumbersTest = (lo, hi, query) => numberMatches({ lo, hi }, query);

/**
 * Whether some value within `[lo, hi]` matches the query (`numberMatches` of that one value): the
 * test of an hour's least and greatest value, which rules the hour out only when none can match.
 */
export const someValueMatches: NumbersTest = (lo, hi, query) => {
  switch (query.prefix) {
    case 'eq':
      return lo < query.hi && hi >= query.lo;
    case 'ne':
      return lo < query.lo || hi >= query.hi;
    case 'gt':
    case 'sa':
      return hi > query.value;
    case 'lt':
    case 'eb':
      return lo < query.value;
    case 'ge':
      return hi >= query.value;
    case 'le':
      return lo <= query.value;
    case 'ap': {
      const tolerance = Math.abs(query.value) * 0.1;
      return lo <= query.value + tolerance && hi >= query.value - tolerance;
    }
  }
};

/**
 * Whether stored values in `[lo, hi]` of one unit match a quantity query (docs above: units), by
 * `numbers`. The one place of the unit rules, for a reading's value and for an hour's bounds: a
 * conversion `v * factor + offset` (factor positive) keeps the order of values, so the bounds
 * converted bound the values converted.
 */
function quantityTest(lo: number, hi: number, unit: string, query: QuantityQuery, units: QueryUnits, numbers: NumbersTest): boolean {
  if (query.system === undefined && query.code === undefined) return numbers(lo, hi, query);
  const storedUcum = ucumOf(unit);
  const code = ucumCodeOf(query);
  const target = code === undefined ? undefined : (units.get(code) ?? canonicalOf(code));
  const own = storedUcum === undefined ? undefined : canonicalOf(storedUcum);
  if (target && own && target.canonical === own.canonical) {
    const scaled = { ...query, value: canonicalValue(query.value, target), lo: canonicalValue(query.lo, target), hi: canonicalValue(query.hi, target) };
    // A unit whose factor is negative cannot exist in UCUM; the bounds keep their order.
    return numbers(canonicalValue(lo, own), canonicalValue(hi, own), scaled);
  }
  // Not convertible: only a value written in exactly that unit (its UCUM code, or, without a system, the unit as written).
  const sameUnit = query.system === UCUM_SYSTEM ? storedUcum === query.code : query.system === undefined && (unit === query.code || storedUcum === query.code);
  return sameUnit && numbers(lo, hi, query);
}

/** Whether a stored value matches a quantity query. */
const quantityMatches = (value: LiftedQuantity, query: QuantityQuery, units: QueryUnits): boolean => quantityTest(value.value, value.value, value.unit, query, units, valueMatches);

function codingMatches(codings: readonly Coding[], query: TokenQuery, modifier: 'text' | 'not' | undefined): boolean {
  if (modifier === 'text') return query.text !== undefined && codings.some((c) => c.t !== undefined && (c.t.startsWith(query.text!) || c.t.includes(` ${query.text}`)));
  return codings.some((c) => tokenMatches({ s: c.s, c: c.c }, query));
}

function partMatches(measure: Measure, part: ComponentQuery, units: QueryUnits): boolean {
  if (part.kind === 'token') return codingMatches(measure.codings, part.value, undefined);
  if (part.kind === 'quantity') return measure.value !== undefined && quantityMatches(measure.value, part.value, units);
  return false;
}

/** The measures a criterion looks at. */
function inScopeOf<T>(c: ValueCriterion, measures: { reading: T; components: readonly T[] }): T[] {
  const scope = VALUE_PARAMS.get(c.param.code)!;
  return [...(scope.reading ? [measures.reading] : []), ...(scope.components ? measures.components : [])];
}

/** Whether some measure a criterion looks at passes `test` (`inScopeOf` without building the list: every reading of a value search comes here). */
function someInScope<T>(c: ValueCriterion, measures: { reading: T; components: readonly T[] }, test: (measure: T) => boolean): boolean {
  const scope = VALUE_PARAMS.get(c.param.code)!;
  return (scope.reading && test(measures.reading)) || (scope.components && measures.components.some(test));
}

function criterionMatches(measures: { reading: Measure; components: Measure[] }, c: ValueCriterion, units: QueryUnits): boolean {
  switch (c.kind) {
    case 'quantity':
      return someInScope(c, measures, (m) => m.value !== undefined && c.values.some((q) => quantityMatches(m.value!, q, units)));
    case 'composite':
      return someInScope(c, measures, (m) => c.values.some((parts) => parts.every((part) => partMatches(m, part, units))));
    case 'token': {
      const any = someInScope(c, measures, (m) => c.values.some((q) => codingMatches(m.codings, q, c.modifier === 'text' ? 'text' : undefined)));
      return c.modifier === 'not' ? !any : any;
    }
  }
}

const codingOf = ({ system, code, display }: StandardCoding): Coding => ({ s: system, c: code, ...(display ? { t: normaliseText(display) } : {}) });

/** A measure a code's readings can have, before its value: its codings, and the member whose value it takes (none: a blood pressure's reading). */
interface MeasureShape {
  codings: Coding[];
  member: number | undefined;
}

interface CodeShapes {
  code: Code;
  quantities: SchemaQuantities | undefined;
  /** The reading's measure: its `omh:` coding and every standard coding it may be shown with. */
  reading: MeasureShape;
  /** One per member (by member index), with every coding its component may be shown with. */
  components: MeasureShape[];
  /** The standard codings follow each reading's units and specimen: a reading's own are worked out from it. */
  perReading: boolean;
}

/**
 * The measures of a code's readings, with every coding each may be shown with: exact for a code
 * whose codings never vary, the bounds of what a reading may show otherwise (what an hour's test
 * needs: it may keep an hour, never lose one).
 */
function shapesOf(code: Code): CodeShapes {
  const quantities = schemaQuantities(code.code);
  const own = codingOf(code);
  if (!quantities) return { code, quantities, reading: { codings: [own], member: undefined }, components: [], perReading: false };
  const reading = { codings: [own, ...observationCodings(quantities).map(codingOf)], member: quantities.principal };
  const components = quantities.members.map((member, index) => {
    // A value coded as its reading is shown in the service's own system (componentCoding), with the display of the coding it stands for.
    const codings = memberCodings(member).flatMap((coding) => {
      const asReading = quantities.codedAsPrincipal && index === quantities.principal;
      return asReading ? [codingOf({ system: omhMemberSystem(), code: member.path, display: coding.display })] : [codingOf(coding)];
    });
    return { codings, member: index };
  });
  return { code, quantities, reading, components, perReading: quantities.members.some((m) => m.variants.length > 0) };
}

/** What a reading's measures are made of: its kept values, and its payload where its codings follow the specimen. */
type ValuesOf = Pick<ReadingFacts, 'values' | 'data'>;

/** A reading's measures; its own codings worked out only when `codings` (a criterion tests them) and they vary by reading. */
function measuresOf(reading: ValuesOf, shapes: CodeShapes, codings: boolean): { reading: Measure; components: Measure[] } {
  const { code, quantities } = shapes;
  // The kept values only, never the payload: a page and a count must agree (a reading stored before
  // values were lifted has none until the migration gives them).
  const values = shapes.components.length > 0 ? readingValues({ values: reading.values }, code.code) : [];
  const principal = shapes.reading.member === undefined ? undefined : values.find((v) => v.member === shapes.reading.member);
  if (!codings || !shapes.perReading || !quantities) {
    return { reading: { codings: shapes.reading.codings, value: principal }, components: values.map((v) => ({ codings: shapes.components[v.member]!.codings, value: v })) };
  }
  const own = readingCodings(quantities, values, readingSpecimen(reading, quantities));
  return {
    reading: { codings: [codingOf(code), ...(own.observation ? [codingOf(own.observation)] : [])], value: principal },
    components: values.map((v, i) => ({ codings: [codingOf(own.components[i]!)], value: v })),
  };
}

/** Whether a criterion looks at codings (a token, or a composite with a token part): for codes whose codings follow the specimen, its test reads the payload. */
export const testsCodings = (c: ValueCriterion): boolean => c.kind === 'token' || (c.kind === 'composite' && c.values.some((parts) => parts.some((p) => p.kind === 'token')));

/**
 * The test of a reading's values against every value criterion (AND); undefined when there is none.
 * `codes` is the code table by id (a reading's schema is its code's).
 */
export function valueTest(criteria: readonly ValueCriterion[], codes: ReadonlyMap<Id, Code>, units: QueryUnits): ((o: ValuesOf & Pick<ReadingFacts, 'codeId'>) => boolean) | undefined {
  if (criteria.length === 0) return undefined;
  const shapes = new Map<Id, CodeShapes>();
  const codings = criteria.some(testsCodings);
  return (o) => {
    const code = codes.get(o.codeId);
    if (!code) return false;
    let shape = shapes.get(o.codeId);
    if (!shape) shapes.set(o.codeId, (shape = shapesOf(code)));
    const measures = measuresOf(o, shape, codings);
    return criteria.every((c) => criterionMatches(measures, c, units));
  };
}

/**
 * A test of a reading's code and kept values alone that every reading `valueTest` passes passes:
 * exactly `valueTest` for a code whose codings never vary, and true (the payload decides) for a
 * code whose codings follow the specimen when a criterion tests codings. Undefined without criteria.
 */
export function keptValuesTest(criteria: readonly ValueCriterion[], codes: ReadonlyMap<Id, Code>, units: QueryUnits): ((codeId: Id, values: KeptValue[] | undefined) => boolean) | undefined {
  const test = valueTest(criteria, codes, units);
  if (!test) return undefined;
  const codings = criteria.some(testsCodings);
  // Per code, worked out once: whether its test reads the payload (its codings follow the specimen
  // and a criterion tests codings), and the hour test, tried first on an hour holding the reading
  // alone: it rules out most readings of a value search without building their measures (a few
  // comparisons each, in objects used again for every reading, since the test keeps none of them);
  // the exact test decides the rest.
  const perCode = new Map<Id, { readsPayload: boolean; screen: ((hour: readonly HourValues[]) => boolean) | undefined; quantities: SchemaQuantities | undefined }>();
  const ofCode = (codeId: Id) => {
    let found = perCode.get(codeId);
    if (!found) {
      const code = codes.get(codeId);
      found = {
        readsPayload: codings && code !== undefined && shapesOf(code).perReading,
        screen: code && hourTest(criteria, code, units),
        quantities: code && schemaQuantities(code.code),
      };
      perCode.set(codeId, found);
    }
    return found;
  };
  const pool: HourValues[] = [];
  const alone: HourValues[] = [];
  const asHour = (quantities: SchemaQuantities | undefined, values: readonly KeptValue[]) => {
    alone.length = 0;
    for (let i = 0; i < values.length; i++) {
      const { member, value, unit } = values[i]!;
      const range = (pool[i] ??= { member, unit: '', min: value, max: value });
      range.member = member;
      range.unit = keptUnit(quantities, member, unit);
      range.min = range.max = value;
      alone.push(range);
    }
    return alone;
  };
  return (codeId, values) => {
    const { readsPayload, screen, quantities } = ofCode(codeId);
    if (readsPayload) return true;
    if (screen && !screen(asHour(quantities, values ?? []))) return false;
    return test({ codeId, values });
  };
}

/** One member's values in one unit (as uploaded) over an hour, as a day summary bounds them. */
export interface HourValues {
  member: number;
  unit: string;
  min: number;
  max: number;
}

/**
 * Whether a criterion constrains a value, so that an hour without a value it can match holds no
 * reading that matches: a quantity, or a composite whose every alternative has a quantity part.
 * Tokens never do (`component-code:not` matches readings without values).
 */
const constrainsValues = (c: ValueCriterion): boolean => c.kind === 'quantity' || (c.kind === 'composite' && c.values.every((parts) => parts.some((p) => p.kind === 'quantity')));

/**
 * What one criterion that constrains a value asks of a code's values, worked out once:
 * alternatives (OR), each a member and the quantities (AND) that some value of that member must be
 * able to match. A composite's token parts are decided here by the member's codings (every coding
 * it may be shown with: `shapesOf`).
 */
type Alternatives = Array<{ member: number; queries: QuantityQuery[] }>;

function alternativesOf(c: ValueCriterion, shapes: CodeShapes): Alternatives {
  const out: Alternatives = [];
  for (const shape of inScopeOf(c, shapes)) {
    // A measure without a member has no value: a part that needs one fails on it (and every such criterion has one).
    if (shape.member === undefined) continue;
    if (c.kind === 'quantity') for (const q of c.values) out.push({ member: shape.member, queries: [q] });
    if (c.kind !== 'composite') continue;
    for (const parts of c.values) {
      if (parts.some((part) => part.kind !== 'quantity' && !(part.kind === 'token' && codingMatches(shape.codings, part.value, undefined)))) continue;
      out.push({ member: shape.member, queries: parts.flatMap((part) => (part.kind === 'quantity' ? [part.value] : [])) });
    }
  }
  return out;
}

/**
 * The test of an hour of a code's readings, by its values' bounds (a day summary's), against the
 * criteria: false only when some criterion (AND) has no alternative (OR) that any value of the
 * hour could match, so that no reading of the hour matches; an hour without values then fails
 * too. Undefined when no criterion constrains a value (nothing rules an hour out). Conservative
 * where the reading test is finer (a composite's parts are each tried on every value of the
 * member; a reading's principal value is the member's first): it may keep an hour, never lose one.
 */
export function hourTest(criteria: readonly ValueCriterion[], code: Code, units: QueryUnits): ((hour: readonly HourValues[]) => boolean) | undefined {
  const constraining = criteria.filter(constrainsValues);
  if (constraining.length === 0) return undefined;
  const shapes = shapesOf(code);
  const each = constraining.map((c) => alternativesOf(c, shapes));
  return (hour) =>
    each.every((alternatives) =>
      alternatives.some(({ member, queries }) => queries.every((q) => hour.some((v) => v.member === member && quantityTest(v.min, v.max, v.unit, q, units, someValueMatches)))),
    );
}
