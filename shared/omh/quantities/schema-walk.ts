/**
 * The `{value, unit}` members of a body schema, read from the validators themselves (the parts
 * `object`, `arrayOf`, `exactlyOneOf`, `unitValue` and the time frames record on the validator,
 * schemas/validate.ts). The generator (scripts/omh-quantities.ts) and the completeness test hold the
 * hand-written table of standard codes against this walk, so a member a schema gains cannot go
 * unnoticed.
 *
 * Decisions the walk makes:
 * - a time frame is not walked: its duration is the reading's time (effective-time.ts), not a value;
 * - a `oneOf` whose branches are unit-values at the same place is one member with every branch's
 *   units (the food entry's `food_amount`: a mass or a volume); its count branch `{value}` has no
 *   unit and is not a unit-value;
 * - a unit-value inside the items of a list is found but reported apart (`inList`): a list has no
 *   fixed member to index, so such values are not lifted (today only the time frames of
 *   `sleep_stage_episodes` live in a list, and time frames are skipped anyway).
 */
import type { Validator } from '../schemas/validate';

export interface WalkedUnitValue {
  /** Dotted path inside the body; a list's items add `[]` (`sleep_stage_episodes[].x`). */
  path: string;
  /** The allowed OMH unit strings; undefined: any string. */
  units: readonly string[] | undefined;
  /** Inside the items of a list, so not a member a reading can index. */
  inList: boolean;
}

/** Every unit-value a body validator declares, in declaration order, one entry per path. */
export function walkUnitValues(body: Validator): WalkedUnitValue[] {
  const found: WalkedUnitValue[] = [];
  visit(body, '', false, found);
  return mergeByPath(found);
}

function visit(validate: Validator, path: string, inList: boolean, found: WalkedUnitValue[]): void {
  if (validate.timeFrame) return;
  if (validate.unitValue) {
    found.push({ path, units: validate.unitValue.units, inList });
    return;
  }
  for (const branch of validate.branches ?? []) visit(branch, path, inList, found);
  if (validate.items) visit(validate.items, `${path}[]`, true, found);
  for (const [name, member] of validate.declared ?? []) visit(member.validate, path ? `${path}.${name}` : name, inList, found);
}

/** `oneOf` branches at one path become one entry whose units are the union (any string wins). */
function mergeByPath(found: readonly WalkedUnitValue[]): WalkedUnitValue[] {
  const byPath = new Map<string, WalkedUnitValue>();
  for (const entry of found) {
    const seen = byPath.get(entry.path);
    if (!seen) byPath.set(entry.path, { ...entry });
    else seen.units = seen.units && entry.units ? [...new Set([...seen.units, ...entry.units])] : undefined;
  }
  return [...byPath.values()];
}
