/**
 * Which readings `$stats` summarises: the codes (and members) the asked codings name, through the
 * code table and the schemas' standard codings. A coding names a code when it is the code itself
 * (`https://w3id.org/openmhealth|omh:heart-rate:2.0`, or the bare `omh:heart-rate:2.0`) or its
 * standard coding (`http://loinc.org|8867-4`): every member of it. A coding that is one member's
 * (`http://loinc.org|8480-6`, systolic) names that member of each code that has it. A code
 * without a system matches any system. A coding naming nothing is an `invalid-query` failure (a 400).
 */
import type { Code } from '../../directory/model';
import { invalidQuery } from '../../failures';
import { memberCodings, observationCodings, SCHEMA_QUANTITIES, type StandardCoding } from '../../omh/quantities';
import { allCodes, allCodesFor } from '../code-table-cache';
import type { AskedCoding } from './params';
import type { StatsTarget } from './period';

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
  /** Code id -> the members named (undefined: all of them). */
  const named = new Map<number, Set<number> | undefined>();
  const name = (codeId: number, member?: number) => {
    if (named.has(codeId) && named.get(codeId) === undefined) return;
    if (member === undefined) named.set(codeId, undefined);
    else named.set(codeId, new Set([...(named.get(codeId) ?? []), member]));
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
      // Any standard coding the readings may show names them (a blood glucose's follows its unit and specimen: each names the code).
      if (observationCodings(schema).some((coding) => matches(asked, coding))) {
        name(code.id);
        found = true;
        continue;
      }
      schema.members.forEach((member, index) => {
        if (!memberCodings(member).some((coding) => matches(asked, coding))) return;
        name(code.id, index);
        found = true;
      });
    }
    if (!found) return { unknown: asked };
  }
  return [...named].map(([codeId, members]) => ({ codeId, schemaCode: table.find((c) => c.id === codeId)!.code, ...(members ? { members } : {}) }));
}
