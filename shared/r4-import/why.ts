/**
 * Why an R4 value was not carried into R5, as the converter records it and the import says it: one
 * kind per cause, each with its own words, so a warning names the real cause (docs/r4-import.md#why-a-value-is-dropped).
 */
import { issue, type IssueCode, type OutcomeIssue } from '../fhir/outcome';

export type SkipKind =
  /** A key R4 does not define where it stands (an R5 element, a typo). */
  | 'unknown-element'
  /** A value whose JSON shape does not fit its R4 type (a list where R4 has one value, a string for an object). */
  | 'wrong-shape'
  /** An element (or a type of a choice element) R4 has and R5 removed. */
  | 'removed'
  /** A value of an element R5 kept that has no place in R5 (a second value for a single element, a code R5's rule does not take). */
  | 'no-place'
  /** A primitive's extensions (`_birthDate`), which the import does not carry. */
  | 'primitive-extension';

/** `Type.key[0].child` from the type and the keys and indexes below it: the loss report's form of a path. */
export function pathOf(at: ReadonlyArray<string | number>): string {
  let path = String(at[0]);
  for (let i = 1; i < at.length; i += 1) path += typeof at[i] === 'number' ? `[${at[i]}]` : `.${at[i]}`;
  return path;
}

/** What the converter did not carry at one R4 path, and why. */
export interface Skip {
  kind: SkipKind;
  /** The cause in the team's words, without a final period. */
  why: string;
  /** The R4 element (definition path) it belongs to, when it is one: `Encounter.class`. */
  element?: string;
}

/** One dropped R4 path as the import reports it. */
export interface Drop extends Skip {
  path: string;
  /** The path the cause was found at, when it lies below `path` (a node all of whose content was dropped). */
  at?: string;
}

const PHRASE: Record<SkipKind, string> = {
  'unknown-element': 'is not an R4 element',
  'wrong-shape': 'does not fit its R4 type',
  removed: 'is an R4 element R5 removed',
  'no-place': 'has no place in R5',
  'primitive-extension': 'holds extensions of a primitive value, which are not carried',
};

const CODE: Record<SkipKind, IssueCode> = {
  'unknown-element': 'structure',
  'wrong-shape': 'structure',
  removed: 'not-supported',
  'no-place': 'not-supported',
  'primitive-extension': 'not-supported',
};

const sentence = (why: string) => why.replace(/\.$/, '');

/** The warning of one dropped path: the cause in words, the path as the expression. */
export function dropIssue(drop: Drop): OutcomeIssue {
  const cause = `${PHRASE[drop.kind]} (${sentence(drop.why)})`;
  const text = drop.at === undefined ? `${drop.path} ${cause}; it was dropped.` : `${drop.path} was dropped: none of its values was carried; ${drop.at} ${cause}.`;
  return issue('warning', CODE[drop.kind], text, drop.path);
}
