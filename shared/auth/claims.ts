/**
 * What an access token's claims say, shared by the code that issues tokens (`shared/oauth/`) and
 * the code that verifies them (`authenticate.ts`): the audience of each resource a token is issued
 * for, the grant id an API key's tokens carry, and the resource types a backend service's system
 * scopes name.
 */
import { config } from '../config';
import { ACCESS_TOKEN_SECONDS, CLOCK_TOLERANCE_SECONDS } from './lifetimes';
import { FHIR_BASES, MCP_PATH, type TokenResource } from '../http/families';

export type { TokenResource } from '../http/families';

const TOKEN_RESOURCES: readonly TokenResource[] = ['service', 'mcp'];

/**
 * The audience (`aud`) of a token issued for `resource`. The service's APIs keep the audience every
 * token had before resource indicators, the site URL, so the tokens and clients of before keep
 * working; the assistants' endpoint has its own, its URL (what MCP clients name as `resource`).
 * Both follow the site-URL setting, so stored codes and grants keep the resource's name, not this.
 */
export function audienceOf(resource: TokenResource): string {
  const site = config().siteUrl;
  return resource === 'mcp' ? `${site}${MCP_PATH}` : site;
}

/** Every audience a token of this service may carry. */
export function audiences(): string[] {
  return TOKEN_RESOURCES.map(audienceOf);
}

/** The resource a token's audience names; `undefined` for an audience of no resource here (or a list). */
export function resourceOfAudience(aud: unknown): TokenResource | undefined {
  return TOKEN_RESOURCES.find((r) => audienceOf(r) === aud);
}

/** The URI a client names a resource by (the `resource` parameter, RFC 8707): the FHIR base, or `/mcp`. */
export function resourceUri(resource: TokenResource): string {
  return `${config().siteUrl}${resource === 'mcp' ? MCP_PATH : FHIR_BASES[0]}`;
}

/**
 * The resource a `resource` parameter names, compared byte for byte: the FHIR base (either
 * spelling, the same API) or `/mcp` at the site URL. `undefined` for anything else, which the
 * token and authorization endpoints answer with `invalid_target`.
 */
export function resourceNamed(uri: string): TokenResource | undefined {
  const site = config().siteUrl;
  if (uri === `${site}${MCP_PATH}`) return 'mcp';
  if (FHIR_BASES.some((base) => uri === `${site}${base}`)) return 'service';
  return undefined;
}

/**
 * A person's withdrawn approval of a client, as a revocation entry on their user item: the client's
 * access tokens for that resource issued up to the withdrawal (`iat` at or before it) are refused,
 * and those issued after a new approval are not. Its value is when it may be forgotten, as every
 * entry's: the withdrawal plus the longest life of an access token and the clock tolerance.
 */
export const withdrawal = {
  entry: (clientId: string, resource: TokenResource): string => `app:${resource}:${clientId}`,
  forgottenAt: (withdrawnAt: number): number => withdrawnAt + ACCESS_TOKEN_SECONDS + CLOCK_TOLERANCE_SECONDS,
  withdrawnAt: (forgottenAt: number): number => forgottenAt - ACCESS_TOKEN_SECONDS - CLOCK_TOLERANCE_SECONDS,
};

/** The grant id (`sid`) every token of an API key carries: deleting the key revokes them through it. */
export function apiKeyGrantId(clientId: string): string {
  return `key:${clientId}`;
}

/**
 * SMART system scopes, the only ones a backend service is granted: read and search (`rs`; SMART v1's `read` is granted as asked) of every resource
 * type or of one.
 */
export const SYSTEM_SCOPE = /^system\/(\*|[A-Z][A-Za-z]{0,63})\.(rs|read)$/;

/**
 * The FHIR resource types a token's system scopes let it read: every type (`'*'`), some, or
 * `undefined` for a token without system scopes (not a backend service's).
 */
export function systemScopeTypes(scopes: readonly string[]): '*' | ReadonlySet<string> | undefined {
  const types = scopes.flatMap((s) => SYSTEM_SCOPE.exec(s)?.[1] ?? []);
  if (types.length === 0) return undefined;
  return types.includes('*') ? '*' : new Set(types);
}

/** Whether a token whose system scopes name `types` (as `systemScopeTypes` reads them) may read `type`. */
export function scopesCover(types: '*' | ReadonlySet<string>, type: string): boolean {
  return types === '*' || types.has(type);
}
