/**
 * What a search does with the parameters it does not apply: by default it ignores them and says so
 * in an OperationOutcome entry of the searchset (`search.mode: outcome`); under
 * `Prefer: handling=strict` it refuses the search with a 400 naming them.
 */
import { randomUUID } from 'node:crypto';
import { badRequest } from '../../http/errors';
import { issue, operationOutcome } from '../outcome';
import { parsePrefer } from '../prefer';
import type { UnknownParam } from '../search/criteria';

/** The 400 of `Prefer: handling=strict` when anything would be ignored. */
export function enforceHandling(prefer: string | undefined, ignored: readonly UnknownParam[]): void {
  if (ignored.length === 0 || parsePrefer(prefer).handling !== 'strict') return;
  const names = [...new Set(ignored.map((u) => u.name))];
  throw badRequest(`Unsupported search parameter(s): ${ignored.map((u) => `${u.name} (${u.reason})`).join('; ')}.`, 'not-supported').at(names);
}

/** The outcome entry that lists the ignored parameters (none when nothing was ignored). */
export function ignoredOutcomeEntries(ignored: readonly UnknownParam[]): Array<Record<string, unknown>> {
  if (ignored.length === 0) return [];
  const issues = ignored.map((u) => issue('warning', 'not-supported', `Search parameter '${u.name}' was ignored: ${u.reason}.`, u.name));
  return [{ fullUrl: `urn:uuid:${randomUUID()}`, resource: operationOutcome(issues), search: { mode: 'outcome' } }];
}
