/**
 * Shape of the compiled R4 -> R5 conversion tables that `scripts/r4-compile.ts` writes under
 * `generated/`: one file per R4 type (resource or datatype), read on first use. The compiler and the
 * converter share these types, so the two cannot disagree.
 */

/** A condition on the R4 value a rule converts: `s = 'x'`, `s.child != 'x'`. */
export interface RuleCondition {
  /** A child element of the value (`s.type`), or absent for the value itself (`s`). */
  child?: string;
  op: '=' | '!=';
  value: string;
}

/** Where one R4 element (or one of its types) goes in R5. */
export interface ConversionRule {
  /** R5 element path from the R5 type's root, canonical (a contentReference resolved). */
  to: string;
  /** R5 types the target element takes, as the R5 definitions list them. */
  toTypes: string[];
  /** The target is a choice element: its JSON name gets the type's suffix. */
  toChoice?: true;
  /** The target repeats. */
  toList?: true;
  /** Path the target's inline children are defined at, when that is not `to` (a contentReference). */
  toChildrenAt?: string;
  /** Only for values of this R4 type (of a choice element). */
  fromType?: string;
  when?: RuleCondition;
  /** A code made into a Coding or CodeableConcept gets this system (and display). */
  coding?: { system: string; display?: string };
  /** Constants written beside the value (R5 paths under the same node as `to`), unless already there. */
  set?: Array<{ to: string; value: unknown; toList?: true }>;
  /**
   * The rule converts one child of the R4 value's datatype, not the whole value: `numerator` (a
   * Quantity) of `Medication.amount` (a Ratio). The value's other children are not carried, unless
   * a rule of the element without a part keeps the whole value (in its cross-version extension).
   */
  part?: { key: string; type: string };
  /**
   * The value goes into HL7's standard cross-version extension of this `url` on the R5 extension
   * list `to`: one extension per value, or, with `within` (the element names from the extension's
   * R4 element down to this one), a sub-extension of the one extension of that url there.
   */
  extension?: { url: string; within?: string[] };
}

export interface R4Element {
  /** The element repeats in R4. */
  list?: true;
  /** Path the element's inline children are defined at: itself, or a contentReference's target. */
  childrenAt?: string;
  /** Where the element goes; empty: R5 has no counterpart, the value is dropped. */
  rules: ConversionRule[];
  /**
   * A backbone R5 has no node for, whose children R5 kept: each child goes where its own rule says,
   * under the node the element's parent went to (`Condition.evidence.code` -> `Condition.evidence`).
   */
  lift?: true;
  /**
   * Why a value of this element, or a part of it the rules do not take, is not carried: the team's
   * reason (a conversion fact), else what the compiler found. Absent when every value converts.
   */
  why?: string;
}

export interface R4TypeTable {
  type: string;
  kind: 'resource' | 'complex-type';
  /** The R5 type the table converts into; absent when R5 has no type of this name. */
  r5?: string;
  /** parent path -> JSON key -> [element path, R4 type of that key] (choice keys carry their type). */
  keys: Record<string, Record<string, [string, string]>>;
  elements: Record<string, R4Element>;
  /** R5 paths that repeat, for the intermediate nodes a rule into a deeper path builds. */
  r5Lists: string[];
}

export interface R4Manifest {
  fhirVersion: string;
  resourceTypes: string[];
  complexTypes: string[];
  /** R4 primitive type -> how JSON carries it. */
  primitives: Record<string, 'string' | 'number' | 'boolean'>;
}
