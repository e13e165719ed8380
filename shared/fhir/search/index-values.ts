/**
 * Index values: what extraction stores beside a resource, one list per search parameter, so a
 * search compares plain values and never re-reads the resource. Keys are short because the index
 * is stored in the same DynamoDB item as the resource.
 */
import type { TimeRange } from './dates';

/** A token: system and code (or identifier value), and the normalised text for `:text`. */
export interface TokenValue {
  s?: string;
  c?: string;
  t?: string;
}

/** A string as written (`:exact`) and normalised (case, accents and spacing folded). */
export interface StringValue {
  v: string;
  n: string;
}

/** A date as the range it covers: `[lo, hi)` in epoch milliseconds. */
export type DateValue = TimeRange;

/** A number or quantity as a closed range `[lo, hi]`: a plain value has lo = hi. */
export interface NumberValue {
  lo: number;
  hi: number;
}

export interface QuantityValue extends NumberValue {
  /** Unit system and code (UCUM, ISO 4217 for money), and the unit as written. */
  s?: string;
  c?: string;
  u?: string;
}

/**
 * A reference: `r` is `Type/id` for a local reference (with `t` and `i` apart), `u` an absolute URL
 * or canonical (with its `|version` in `v`), `k` the logical identifier of `Reference.identifier`.
 */
export interface ReferenceValue {
  r?: string;
  t?: string;
  i?: string;
  u?: string;
  v?: string;
  k?: TokenValue;
}

export type UriValue = string;

/** One occurrence of a composite parameter: each component's values. */
export type CompositeValue = Record<string, IndexValue[]>;

export type IndexValue =
  | TokenValue
  | StringValue
  | DateValue
  | NumberValue
  | QuantityValue
  | ReferenceValue
  | UriValue
  | CompositeValue;

/** Parameter code -> its values for one resource. A parameter with no value is absent. */
export type SearchIndex = Record<string, IndexValue[]>;

/** The open ends of a number range (JSON and DynamoDB cannot hold Infinity). */
export const MIN_NUMBER = -1e125;
export const MAX_NUMBER = 1e125;
