/**
 * What an access token's claims say, shared by the code that issues tokens (`shared/oauth/`) and
 * the code that verifies them (`authenticate.ts`): the grant id an API key's tokens carry, and the
 * resource types a backend service's system scopes name.
 */

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
