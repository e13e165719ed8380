/**
 * A few validator combinators with exactly the JSON Schema semantics the payload schemas use:
 * typed leaves, exact enums, objects with required and optional members (unknown members always
 * allowed), arrays, and `oneOf` (exactly one branch). Each schema is then a declaration that
 * reads like its table in the reference notes.
 *
 * A validator appends what is wrong to `issues` and returns nothing; paths are built from the
 * payload root (`body.heart_rate.unit`, `body.sleep_stage_episodes[0].sleep_stage_state`).
 */
import { isObject, type JsonObject } from '../../json';

export interface PayloadIssue {
  /** Where, from the payload root: `header.uuid`, `body.heart_rate.unit`. */
  path: string;
  message: string;
  /** OperationOutcome issue type: a missing member, a wrong value, or a wrong shape. */
  code: 'required' | 'value' | 'structure';
}

export type Validator = ((value: unknown, path: string, issues: PayloadIssue[]) => void) & {
  /** The members an object validator declares: tells `exactlyOneOf` which branch a value aims at. */
  members?: readonly string[];
  /*
   * What a validator is made of, for walks over a schema that read it as a declaration (the table of
   * a body's unit-values, shared/omh/quantities/): never consulted while validating.
   */
  /** An object validator's declared members, in declaration order. */
  declared?: readonly (readonly [name: string, member: Member])[];
  /** An `arrayOf` validator's item validator. */
  items?: Validator;
  /** An `exactlyOneOf` validator's branches. */
  branches?: readonly Validator[];
  /** A `{value, unit}` pair (`unitValue` in blocks.ts): the units it allows; `units` undefined: any string. */
  unitValue?: { units: readonly string[] | undefined };
  /** A time frame (blocks.ts): the reading's time, lifted by effective-time.ts, not one of its values. */
  timeFrame?: true;
};

/** A check on an object that is already known to be one (e.g. which members may appear together). */
export type ObjectRule = (value: JsonObject, path: string, issues: PayloadIssue[]) => void;

export function fail(issues: PayloadIssue[], path: string, message: string, code: PayloadIssue['code'] = 'value'): void {
  issues.push({ path, message, code });
}

/** Runs `validate` on its own and returns what it found. */
export function issuesOf(validate: Validator, value: unknown, path: string): PayloadIssue[] {
  const found: PayloadIssue[] = [];
  validate(value, path, found);
  return found;
}

// ---- leaves -------------------------------------------------------------------------------

export const string: Validator = (v, path, issues) => {
  if (typeof v !== 'string') fail(issues, path, 'must be a string');
};

/**
 * Any JSON number. A literal beyond double range (`1e400`) parses to Infinity, which no consumer
 * can represent; it is refused as not a finite number.
 */
export const number: Validator = (v, path, issues) => {
  if (typeof v !== 'number' || !Number.isFinite(v)) fail(issues, path, 'must be a number');
};

/** A number without a fraction: `2` and `2.0` pass, `2.5` does not. */
export const integer: Validator = (v, path, issues) => {
  if (!Number.isInteger(v)) fail(issues, path, 'must be an integer');
};

export const boolean: Validator = (v, path, issues) => {
  if (typeof v !== 'boolean') fail(issues, path, 'must be true or false');
};

/** A string checked by `problem`, which says why the text is unacceptable (or undefined). */
export function formatted(problem: (text: string) => string | undefined): Validator {
  return (v, path, issues) => {
    if (typeof v !== 'string') return fail(issues, path, 'must be a string');
    const why = problem(v);
    if (why !== undefined) fail(issues, path, why);
  };
}

/** Exactly one of `values`, compared exactly (case-sensitive; a non-string never matches). */
export function enumOf(values: readonly string[]): Validator {
  const allowed = new Set<unknown>(values);
  const message = `must be one of ${values.join(', ')}`;
  return (v, path, issues) => {
    if (!allowed.has(v)) fail(issues, path, message);
  };
}

// ---- objects and arrays --------------------------------------------------------------------

export interface Member {
  required: boolean;
  validate: Validator;
}

export const req = (validate: Validator): Member => ({ required: true, validate });
export const opt = (validate: Validator): Member => ({ required: false, validate });

/** An object whose declared members are checked when present; undeclared members are allowed. */
export function object(members: Record<string, Member>, ...rules: ObjectRule[]): Validator {
  const entries = Object.entries(members);
  const validate: Validator = (v, path, issues) => {
    if (!isObject(v)) return fail(issues, path, 'must be an object', 'structure');
    for (const [key, member] of entries) {
      if (Object.hasOwn(v, key)) member.validate(v[key], `${path}.${key}`, issues);
      else if (member.required) fail(issues, `${path}.${key}`, 'is required', 'required');
    }
    for (const rule of rules) rule(v, path, issues);
  };
  validate.members = Object.keys(members);
  validate.declared = entries;
  return validate;
}

/** `additionalProperties: false`: no member besides `allowed`. */
export function onlyMembers(allowed: readonly string[]): ObjectRule {
  const known = new Set(allowed);
  return (v, path, issues) => {
    for (const key of Object.keys(v)) if (!known.has(key)) fail(issues, `${path}.${key}`, 'is not allowed here', 'structure');
  };
}

/** `oneOf` over `required` lists: exactly one of the member combinations must be present. */
export function exactlyOneKeySet(sets: readonly (readonly string[])[], explainNone?: (v: JsonObject) => string): ObjectRule {
  const labels = sets.map((set) => set.join(' + '));
  return (v, path, issues) => {
    let present = 0;
    for (const set of sets) if (hasAll(v, set)) present++;
    if (present === 1) return;
    if (present === 0) {
      return fail(issues, path, explainNone?.(v) ?? `must have exactly one of ${labels.join(', ')}`, 'required');
    }
    const found = sets.filter((set) => hasAll(v, set)).map((set) => set.join(' + '));
    fail(issues, path, `has ${found.join(' and ')}; exactly one of ${labels.join(', ')} is allowed`, 'structure');
  };
}

function hasAll(v: JsonObject, keys: readonly string[]): boolean {
  for (const key of keys) if (!Object.hasOwn(v, key)) return false;
  return true;
}

export function arrayOf(item: Validator): Validator {
  const validate: Validator = (v, path, issues) => {
    if (!Array.isArray(v)) return fail(issues, path, 'must be an array', 'structure');
    for (let i = 0; i < v.length; i++) item(v[i], `${path}[${i}]`, issues);
  };
  validate.items = item;
  return validate;
}

/**
 * `oneOf`: exactly one labelled branch must match. When none does, the branch the value aims at
 * explains why (the one with most of its declared members present, then the fewest problems), if
 * it is alone; otherwise the message names the alternatives.
 */
export function exactlyOneOf(branches: Record<string, Validator>): Validator {
  const entries = Object.entries(branches);
  const alternatives = entries.map(([label]) => label).join('; ');
  const validate: Validator = (v, path, issues) => {
    const matched: string[] = [];
    let closest: PayloadIssue[][] = [];
    let closestScore = -Infinity;
    for (const [label, validate] of entries) {
      const found = issuesOf(validate, v, path);
      if (found.length === 0) {
        matched.push(label);
        continue;
      }
      const score = membersPresent(validate, v) * 1000 - found.length;
      if (score > closestScore) [closest, closestScore] = [[found], score];
      else if (score === closestScore) closest.push(found);
    }
    if (matched.length === 1) return;
    if (matched.length > 1) {
      return fail(issues, path, `matches more than one of (${alternatives}): ${matched.join(' and ')}`, 'structure');
    }
    if (closest.length === 1) issues.push(...closest[0]!);
    else fail(issues, path, `must be exactly one of: ${alternatives}`, 'structure');
  };
  validate.branches = entries.map(([, branch]) => branch);
  return validate;
}

function membersPresent(validate: Validator, v: unknown): number {
  if (!validate.members || !isObject(v)) return 0;
  return validate.members.filter((key) => Object.hasOwn(v, key)).length;
}
