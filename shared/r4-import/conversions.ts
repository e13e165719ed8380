/**
 * How a value of an R4 type becomes a value of an R5 type, when it can. The compiler keeps a rule
 * only when one of the R4 element's types converts to one of the R5 element's types; the converter
 * applies the same function to each value, so the two agree by construction.
 */

export type Conversion =
  /** The same type (or a primitive carried the same way in JSON): converted element by element. */
  | 'same'
  /** An R4 Reference under a CodeableReference's `.reference`. */
  | 'reference-to-codeable-reference'
  /** An R4 CodeableConcept under a CodeableReference's `.concept`. */
  | 'concept-to-codeable-reference'
  /** A string made the value of an Identifier (R5 turned several plain strings into identifiers). */
  | 'string-to-identifier'
  /** A JSON number carried as the string R5 uses for integer64. */
  | 'number-to-integer64'
  /** A whole number where R5 kept only a string (`Immunization.protocolApplied.doseNumber`): its decimal text. */
  | 'integer-to-string'
  /** A code made a Coding / a CodeableConcept of one Coding. */
  | 'code-to-coding'
  | 'code-to-concept'
  | 'coding-to-concept'
  /** Inline children (BackboneElement / Element) converted into inline children. */
  | 'backbone'
  /** A whole resource (contained, Bundle.entry.resource, Parameters.parameter.resource). */
  | 'resource';

export type JsonKind = 'string' | 'number' | 'boolean';

export interface TypeKinds {
  /** JSON kind of an R4 / R5 primitive type, undefined for anything else. */
  r4Primitive(type: string): JsonKind | undefined;
  r5Primitive(type: string): JsonKind | undefined;
}

const BACKBONE = new Set(['BackboneElement', 'Element']);
const CODE_LIKE = new Set(['code', 'string']);
const INTEGERS = new Set(['integer', 'positiveInt', 'unsignedInt']);
/** Datatypes that are Quantity with constraints, the same JSON in both releases. */
const QUANTITIES = new Set(['Quantity', 'SimpleQuantity', 'MoneyQuantity', 'Age', 'Count', 'Distance', 'Duration']);

export function conversionOf(r4Type: string, r5Type: string, kinds: TypeKinds): Conversion | undefined {
  if (BACKBONE.has(r4Type)) return BACKBONE.has(r5Type) ? 'backbone' : undefined;
  if (r4Type === 'Resource') return r5Type === 'Resource' ? 'resource' : undefined;
  const r4Kind = kinds.r4Primitive(r4Type);
  if (r4Kind !== undefined) {
    const r5Kind = kinds.r5Primitive(r5Type);
    if (r5Kind !== undefined) {
      if (r5Kind === r4Kind) return 'same';
      if (r4Kind === 'number' && r5Type === 'integer64') return 'number-to-integer64';
      return INTEGERS.has(r4Type) && r5Type === 'string' ? 'integer-to-string' : undefined;
    }
    if (r4Kind === 'string' && r5Type === 'Identifier') return 'string-to-identifier';
    if (CODE_LIKE.has(r4Type) && r5Type === 'Coding') return 'code-to-coding';
    if (CODE_LIKE.has(r4Type) && r5Type === 'CodeableConcept') return 'code-to-concept';
    return undefined;
  }
  if (r4Type === r5Type) return 'same';
  if (QUANTITIES.has(r4Type) && QUANTITIES.has(r5Type)) return 'same';
  if (r5Type === 'CodeableReference') {
    if (r4Type === 'Reference') return 'reference-to-codeable-reference';
    if (r4Type === 'CodeableConcept') return 'concept-to-codeable-reference';
  }
  if (r4Type === 'Coding' && r5Type === 'CodeableConcept') return 'coding-to-concept';
  return undefined;
}

/** The first R5 type (in the element's order) a value of `r4Type` converts to, with how. */
export function targetTypeOf(r4Type: string, r5Types: readonly string[], kinds: TypeKinds): { type: string; conversion: Conversion } | undefined {
  // The same type first: a choice element offering both Reference and CodeableReference keeps a Reference.
  const exact = r5Types.find((t) => t === r4Type);
  if (exact) {
    const conversion = conversionOf(r4Type, exact, kinds);
    if (conversion) return { type: exact, conversion };
  }
  for (const type of r5Types) {
    const conversion = conversionOf(r4Type, type, kinds);
    if (conversion) return { type, conversion };
  }
  return undefined;
}
