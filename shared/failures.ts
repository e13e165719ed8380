/**
 * The failures of the domain's typed functions (a typed query in, typed rows out: the readings'
 * series, their statistics, the auxiliary lists), told apart by kind, never by a status: each edge
 * maps them once, the HTTP routes to an HttpError (`httpErrorOf`, shared/http/errors.ts, rendered as
 * every error is) and the assistants' tools to a tool error result (`refusalText`,
 * shared/mcp/tool.ts). The message is written for whoever asked, whichever edge they came through.
 */

export type FailureKind =
  /** The query cannot be answered as asked (a cursor of another query, a period too long): nothing was read. */
  | 'invalid-query'
  /** The caller may not read what the query names (their token's scopes do not cover it). */
  | 'out-of-reach';

export class DomainFailure extends Error {
  override name = 'DomainFailure';

  constructor(
    readonly kind: FailureKind,
    message: string,
    /** The part of the query at fault, as the FHIR API names its parameter (`period`, `_cursor`). */
    readonly at?: string,
  ) {
    super(message);
  }
}

export const isDomainFailure = (e: unknown): e is DomainFailure => e instanceof DomainFailure;

export const invalidQuery = (message: string, at?: string): DomainFailure => new DomainFailure('invalid-query', message, at);

export const outOfReach = (message: string): DomainFailure => new DomainFailure('out-of-reach', message);
