/**
 * The searchset Bundle of a native search: the page's rows, absolute `self` / `next` / `previous`
 * links (existing clients follow them without checking), `total` when asked for or known, and an
 * OperationOutcome entry (`search.mode: outcome`) naming the parameters that were not applied.
 */
import { randomUUID } from 'node:crypto';
import type { Code } from '../../directory/model';
import { issue, operationOutcome } from '../../fhir/outcome';
import type { UnknownParam } from '../../fhir/search';
import { toFhirObservation } from '../fhir-observation';
import { encodeCursor, type Cursor } from './cursor';
import type { SearchPage } from './execute';
import { CURSOR_PARAM } from '../../fhir/searchset';

export interface BundleContext {
  /** The search parameters as received (query and form), cursor included. */
  params: URLSearchParams;
  /** scheme://host + FHIR base, e.g. `https://cdx.example.org/FHIR/R5`. */
  baseUrl: string;
  fingerprint: string;
  codes: ReadonlyMap<number, Code>;
  ignored: readonly UnknownParam[];
  summaryCount: boolean;
}

function linkTo(ctx: BundleContext, cursor?: Cursor): string {
  const params = new URLSearchParams([...ctx.params].filter(([k]) => k !== CURSOR_PARAM));
  if (cursor) params.append(CURSOR_PARAM, encodeCursor(cursor, ctx.fingerprint));
  const query = params.toString();
  return `${ctx.baseUrl}/Observation${query ? `?${query}` : ''}`;
}

export function searchsetBundle(page: SearchPage, ctx: BundleContext): Record<string, unknown> {
  const selfQuery = ctx.params.toString();
  const link = [
    { relation: 'self', url: `${ctx.baseUrl}/Observation${selfQuery ? `?${selfQuery}` : ''}` },
    ...(page.previous ? [{ relation: 'previous', url: linkTo(ctx, page.previous) }] : []),
    ...(page.next ? [{ relation: 'next', url: linkTo(ctx, page.next) }] : []),
  ];
  const entry: Record<string, unknown>[] = page.rows.map((o) => ({
    fullUrl: `${ctx.baseUrl}/Observation/${o.id}`,
    resource: toFhirObservation(o, ctx.codes.get(o.codeId)!),
    search: { mode: 'match' },
  }));
  if (ctx.ignored.length > 0 && !ctx.summaryCount) {
    const issues = ctx.ignored.map((u) => issue('warning', 'not-supported', `Search parameter ${u.name} was ignored: ${u.reason}.`, u.name));
    entry.push({ fullUrl: `urn:uuid:${randomUUID()}`, resource: operationOutcome(issues), search: { mode: 'outcome' } });
  }
  return {
    resourceType: 'Bundle',
    type: 'searchset',
    ...(page.total !== undefined ? { total: page.total } : {}),
    link,
    entry,
  };
}
