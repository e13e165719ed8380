/**
 * Which readings `$stats` summarises: the codes (and members, and value groups) the asked codings
 * name, through the code table and the schemas' standard codings. A coding names a code when it is
 * the code itself (`https://w3id.org/openmhealth|omh:heart-rate:2.0`, or the bare
 * `omh:heart-rate:2.0`) or its standard coding (`http://loinc.org|8867-4`): every member of it. A
 * coding that is one member's (`http://loinc.org|8480-6`, systolic) names that member of each code
 * that has it. Where a member's coding follows its values' unit and specimen (a blood glucose, the
 * observation coded as it), one of its codings names the member's values shown with it
 * (`http://loinc.org|99504-3`: a sensor's mg/dL readings), as a search by it finds those readings.
 * A code without a system matches any system. A coding naming nothing is an `invalid-query` failure (a 400).
 */
import type { Code } from '../../directory/model';
import { invalidQuery } from '../../failures';
import { memberCodingOf, memberCodings, observationCodings, SCHEMA_QUANTITIES, type SchemaQuantities, type StandardCoding } from '../../omh/quantities';
import { allCodes, allCodesFor } from '../code-table-cache';
import type { ValueGroup } from './day-summary';
import type { AskedCoding } from './params';

export interface StatsTarget {
  codeId: number;
  schemaCode: string;
  /** Only these members (a coding named one); all when absent. */
  members?: ReadonlySet<number>;
  /**
   * Of a member whose coding follows its values' unit and specimen, only the groups shown with one
   * of these codings (`99504-3` named a glucose sensor's mg/dL values); a member absent here, all of its groups.
   */
  codings?: ReadonlyMap<number, readonly AskedCoding[]>;
}

const matches = (asked: AskedCoding, coding: Pick<StandardCoding, 'system' | 'code'> | undefined) =>
  coding !== undefined && coding.code === asked.code && (asked.system === undefined || asked.system === coding.system);

export async function statsTargets(codings: readonly AskedCoding[]): Promise<StatsTarget[]> {
  // A coding the table lacks may name a code added on another instance since this one loaded it.
  const first = targetsIn(await allCodes(), codings);
  if (!('unknown' in first)) return first;
  const again = targetsIn(await allCodesFor(() => true), codings);
  if (!('unknown' in again)) return again;
  const asked = again.unknown;
  throw invalidQuery(`${asked.system ? `${asked.system}|` : ''}${asked.code} names no code of this server's readings.`, 'code');
}

/** The targets the codings name in this table, or the first coding that names nothing. */
function targetsIn(table: readonly Code[], codings: readonly AskedCoding[]): StatsTarget[] | { unknown: AskedCoding } {
  const bySchema = new Map(table.map((c): [string, Code] => [c.code, c]));
  /** Code id -> the members named (undefined: all of them), each with the codings naming some of its values (undefined: all of them). */
  const named = new Map<number, Map<number, AskedCoding[] | undefined> | undefined>();
  const name = (codeId: number, member?: number, coding?: AskedCoding) => {
    if (named.has(codeId) && named.get(codeId) === undefined) return;
    if (member === undefined) return void named.set(codeId, undefined);
    const members = named.get(codeId) ?? new Map<number, AskedCoding[] | undefined>();
    named.set(codeId, members);
    if (members.has(member) && members.get(member) === undefined) return;
    if (coding === undefined) return void members.set(member, undefined);
    const asked = members.get(member) ?? [];
    asked.push(coding);
    members.set(member, asked);
  };
  for (const asked of codings) {
    let found = false;
    for (const code of table) {
      if (matches(asked, code)) {
        name(code.id);
        found = true;
      }
    }
    for (const schema of SCHEMA_QUANTITIES) {
      const code = bySchema.get(schema.code);
      if (!code) continue;
      // The readings' standard coding names them all, unless it follows their values (a blood
      // glucose's: its member's coding, below, names the values shown with it).
      if (!followsValues(schema) && observationCodings(schema).some((coding) => matches(asked, coding))) {
        name(code.id);
        found = true;
        continue;
      }
      schema.members.forEach((member, index) => {
        if (!memberCodings(member).some((coding) => matches(asked, coding))) return;
        name(code.id, index, member.variants.length > 0 ? asked : undefined);
        found = true;
      });
    }
    if (!found) return { unknown: asked };
  }
  return [...named].map(([codeId, members]) => {
    const schemaCode = table.find((c) => c.id === codeId)!.code;
    if (!members) return { codeId, schemaCode };
    const codings = new Map([...members].flatMap(([member, asked]) => (asked ? [[member, asked] as const] : [])));
    return { codeId, schemaCode, members: new Set(members.keys()), ...(codings.size > 0 ? { codings } : {}) };
  });
}

/** Whether the observation's coding follows its principal value's unit and specimen (so a coding of it names only some readings). */
const followsValues = (schema: SchemaQuantities) => schema.codedAsPrincipal && schema.members[schema.principal!]!.variants.length > 0;

/** The member's codings the target names it by, each once (a glucose asked as `99504-3`); undefined where it names all of the member's values. */
export function namedCodings(target: StatsTarget, quantities: SchemaQuantities, member: number): StandardCoding[] | undefined {
  const asked = target.codings?.get(member);
  return asked && memberCodings(quantities.members[member]!).filter((coding) => asked.some((a) => matches(a, coding)));
}

/** Whether a value group is one the target names: of a member named whole, or shown with one of the codings naming some of the member's values. */
export function namesGroup(target: StatsTarget, quantities: SchemaQuantities, group: ValueGroup): boolean {
  if (target.members && !target.members.has(group.member)) return false;
  const asked = target.codings?.get(group.member);
  if (!asked) return true;
  const coding = memberCodingOf(quantities, group.member, group.unit, group.specimen);
  return asked.some((a) => matches(a, coding));
}
