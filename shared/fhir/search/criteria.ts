/** Typed search criteria: what `parse.ts` makes of a query string and `match.ts` evaluates. */
import type { SearchParamDef } from '../definitions';
import type { TimeRange } from './dates';

/** FHIR's comparison prefixes for ordered values (dates, numbers, quantities). */
export const PREFIXES = ['eq', 'ne', 'gt', 'lt', 'ge', 'le', 'sa', 'eb', 'ap'] as const;
export type Prefix = (typeof PREFIXES)[number];

/**
 * A token query: `system|code`, `code` (any system), `system|` (any code of the system) or `|code`
 * (code without a system: `system` is null). `:text` queries carry normalised text instead.
 */
export interface TokenQuery {
  system?: string | null;
  code?: string;
  text?: string;
}

export interface DateQuery {
  prefix: Prefix;
  range: TimeRange;
}

/** A number as searched: the value and the range its precision implies (`100` is [99.5, 100.5)). */
export interface NumberQuery {
  prefix: Prefix;
  value: number;
  lo: number;
  hi: number;
}

export interface QuantityQuery extends NumberQuery {
  system?: string;
  /** A code (with `system`) or, without a system, a code or unit as written. */
  code?: string;
}

/** `Type/id`, a bare `id`, or an absolute URL / canonical (`url|version`). */
export interface ReferenceQuery {
  type?: string;
  id?: string;
  url?: string;
  version?: string;
}

/** One value per component of a composite parameter, in the order of its components. */
export type CompositeQuery = ComponentQuery[];

export type ComponentQuery =
  | { kind: 'token'; value: TokenQuery }
  | { kind: 'string'; value: string }
  | { kind: 'date'; value: DateQuery }
  | { kind: 'number'; value: NumberQuery }
  | { kind: 'quantity'; value: QuantityQuery }
  | { kind: 'reference'; value: ReferenceQuery }
  | { kind: 'uri'; value: string };

interface Base {
  /** The parameter as the client wrote it (with its modifier), for messages. */
  name: string;
  param: SearchParamDef;
}

/** One search parameter occurrence; its values are alternatives (comma = OR). */
export type Criterion =
  | (Base & { kind: 'missing'; missing: boolean })
  | (Base & { kind: 'token'; modifier?: 'not' | 'text'; values: TokenQuery[] })
  | (Base & { kind: 'string'; modifier?: 'exact' | 'contains'; values: string[] })
  | (Base & { kind: 'date'; values: DateQuery[] })
  | (Base & { kind: 'number'; values: NumberQuery[] })
  | (Base & { kind: 'quantity'; values: QuantityQuery[] })
  | (Base & { kind: 'reference'; values: ReferenceQuery[] })
  | (Base & { kind: 'reference-identifier'; values: TokenQuery[] })
  | (Base & { kind: 'uri'; modifier?: 'below' | 'above'; values: string[] })
  | (Base & { kind: 'composite'; values: CompositeQuery[] });

/**
 * A parameter that reaches another resource (`patient.organization=...`,
 * `patient._has:Group:member:_id=...`, `_has:...`): the caller resolves it, since that needs the
 * store.
 */
export interface ChainedParam {
  name: string;
  /** The reference parameter the chain starts from (absent for a leading `_has`). */
  param?: SearchParamDef;
  /** A `:Type` restriction on the first link. */
  targetType?: string;
  /** The rest of the name after the first link, e.g. `organization` or `_has:Group:member:_id`. */
  chain: string;
  values: string[];
}

export interface UnknownParam {
  name: string;
  reason: string;
}

export interface SortSpec {
  param: SearchParamDef;
  descending: boolean;
}

export interface ParsedSearch {
  /** All must hold (repetition = AND). */
  criteria: Criterion[];
  chained: ChainedParam[];
  /** Result parameters (`_count`, `_sort`, `_summary`, `_include`, ...), raw, for the caller. */
  results: Array<{ name: string; value: string }>;
  /** Parameters the type does not have or this service does not evaluate. */
  unknown: UnknownParam[];
}
