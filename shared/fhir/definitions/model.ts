/**
 * Shape of the compiled R5 definitions that `scripts/fhir-compile.ts` writes under `generated/`.
 * The compiler and the run-time loader share these types, so the two cannot disagree.
 */

/** `*` is stored as -1 so the files stay plain numbers. */
export const UNBOUNDED = -1;

export interface TypeRef {
  /** A FHIR type code: `CodeableConcept`, `string`, `Reference`, `Resource`, ... */
  code: string;
  /** Target resource types of a Reference or canonical (last segment of the target profiles). */
  targets?: string[];
  /** Constraint profiles the value must meet, e.g. `SimpleQuantity`. */
  profiles?: string[];
  /**
   * Set when the standard types the element with a FHIRPath system type (`System.String` for
   * element ids, `Resource.id` and `Extension.url`); `code` then holds its FHIR type.
   */
  systemType?: string;
}

export interface Constraint {
  key: string;
  severity: 'error' | 'warning';
  human: string;
  expression: string;
}

export interface Binding {
  /** Canonical URL of the value set, without version. */
  valueSet: string;
  /**
   * File key of the expanded code set under `generated/valuesets/`, or absent when the standard
   * publishes no expansion (then `grammar` says how the code is checked).
   */
  file?: string;
  grammar?: CodeGrammar;
  /** Codes the element's definition allows beyond the value set (stated in its prose). */
  alsoAllowed?: string[];
}

/**
 * How a required binding with no published expansion is checked: by the grammar that defines the
 * value set, or (`any`) not at all beyond the code's own format.
 */
export type CodeGrammar = 'bcp47' | 'mime-type' | 'ucum' | 'color' | 'any';

export interface ElementDef {
  /** JSON name without `[x]`: `value` for `value[x]`. */
  name: string;
  min: number;
  /** Maximum cardinality; UNBOUNDED for `*`. */
  max: number;
  /** Absent when the element takes its definition from `contentRef`. */
  types?: TypeRef[];
  /** True for `[x]` elements: the JSON name is `name` + the capitalised type code. */
  choice?: true;
  /** `Questionnaire.item.item` reuses `Questionnaire.item`: the path (from the type root) it reuses. */
  contentRef?: string;
  /** Only required bindings are compiled; weaker strengths cannot reject a resource. */
  binding?: Binding;
  /** Invariants declared on this element itself (those of its datatype live with the datatype). */
  constraints?: Constraint[];
  /** Children of a BackboneElement / Element defined inline. */
  children?: ElementDef[];
}

export type SearchParamKind =
  | 'number'
  | 'date'
  | 'string'
  | 'token'
  | 'reference'
  | 'composite'
  | 'quantity'
  | 'uri'
  | 'special';

export interface SearchParamComponent {
  /** Code of the component's own search parameter. */
  code: string;
  type: SearchParamKind;
  /** FHIRPath relative to the composite's result. */
  expression: string;
}

export interface SearchParamDef {
  code: string;
  type: SearchParamKind;
  /** FHIRPath over a resource of this type (the union's parts for other types removed). */
  expression?: string;
  /** Canonical URL of the standard's SearchParameter. */
  url: string;
  /** Resource types a reference parameter may point at. */
  targets?: string[];
  components?: SearchParamComponent[];
  /** The standard's description of this parameter for this type. */
  documentation?: string;
  /**
   * `phonetic` (a sounds-like match) or `other` (the expression does not give the values, e.g.
   * `_in`); absent for the normal case.
   */
  processing?: 'phonetic' | 'other';
}

export interface TypeDefinition {
  name: string;
  kind: 'resource' | 'complex-type';
  /** Base type name (`DomainResource`, `DataType`, `Quantity`, ...); absent for the roots. */
  base?: string;
  abstract?: true;
  /** Invariants of the type as a whole (for resources: including the inherited `dom-*`). */
  constraints?: Constraint[];
  elements: ElementDef[];
  /** Resources only: the search parameters defined for this type (the common ones are in the manifest). */
  searchParams?: SearchParamDef[];
}

export interface PrimitiveDef {
  /** What the JSON value must be. */
  json: 'string' | 'number' | 'boolean';
  /** FHIRPath system type of the value (`System.String`, `System.Integer`, ...). */
  systemType: string;
  /** The StructureDefinition's regex, as published (anchored when used). */
  regex?: string;
  /** Base primitive (e.g. `code` for string specialisations), absent for the roots. */
  base?: string;
}

export interface ValueSetCodes {
  url: string;
  /** code system URL -> the codes of the expansion from that system, sorted. */
  systems: Record<string, string[]>;
}

export interface Manifest {
  fhirVersion: string;
  /** Concrete resource types, sorted. */
  resourceTypes: string[];
  /** Abstract resource types (Resource, DomainResource, CanonicalResource, MetadataResource). */
  abstractResourceTypes: string[];
  /** Complex datatypes with a definition file, sorted. */
  complexTypes: string[];
  primitives: Record<string, PrimitiveDef>;
  /** Type -> base type, for every type (FHIRPath's `is` and `ofType`). */
  type2Parent: Record<string, string>;
  /** Paths whose content is defined at another path (`contentReference`), for FHIRPath. */
  pathsDefinedElsewhere: Record<string, string>;
  /** Search parameters that apply to every resource type (`_id`, `_lastUpdated`, ...). */
  commonSearchParams: SearchParamDef[];
  /** Value set URL -> file key under `valuesets/`, for every compiled code set. */
  valueSetFiles: Record<string, string>;
}
