/**
 * A backend client's registered JWK Set URL (`jwks_uri`), fetched through the guarded fetcher
 * (`public-fetch.ts`: https to public addresses only, no redirects, bounded in time and size);
 * at most `MAX_BYTES` of body. A fetched set is kept per URL as its `Cache-Control` allows
 * (`max-age`, capped at an hour; five minutes without one; never with `no-store` or `no-cache`), in
 * a bounded map; a key id the kept set lacks fetches again, at most every `REFETCH_AFTER_MS` (a
 * client rotating its keys).
 */
import { BoundedMap } from '../bounded-map';
import type { PublicJwk } from '../directory/model';
import { jsonDepth } from '../http/json-depth';
import { usableKeys } from './client-keys';
import { nowMs } from './clock';
import { fetchPublic, FetchRefused, keepMs as keepWithin, oneFetchPerUrl, publicUrlProblem } from './public-fetch';

export { GREATEST_WAIT_MS } from './public-fetch';
export const MAX_BYTES = 64 * 1024;
/** Keys looked at in a fetched set. */
const MAX_FETCHED_KEYS = 50;
const CACHE_ENTRIES = 500;
const DEFAULT_KEEP_MS = 5 * 60_000;
const MAX_KEEP_MS = 60 * 60_000;
export const REFETCH_AFTER_MS = 30_000;

/** Why the service will not fetch this URL as a JWK Set (`undefined`: it will). */
export function jwksUriProblem(uri: string): string | undefined {
  return publicUrlProblem(uri, 'The JWK Set URL');
}

/** How long a fetched set may be kept, from its `Cache-Control`: max-age capped at an hour, five minutes without one, never with no-store or no-cache. */
export const keepMs = (cacheControl: string | undefined): number => keepWithin(cacheControl, { leastMs: 0, defaultMs: DEFAULT_KEEP_MS, mostMs: MAX_KEEP_MS });

interface Kept {
  keys: PublicJwk[];
  fetchedAt: number;
  until: number;
}

const kept = new BoundedMap<string, Kept>(CACHE_ENTRIES);

async function fetchKeys(uri: string): Promise<PublicJwk[]> {
  const problem = jwksUriProblem(uri);
  if (problem) throw new FetchRefused(problem);
  const { body, cacheControl } = await fetchPublic(new URL(uri), MAX_BYTES);
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    throw new FetchRefused('it is not JSON.');
  }
  if (jsonDepth(parsed, 8) > 8) throw new FetchRefused('it is not a JWK Set.');
  const keys = await usableKeys(parsed, MAX_FETCHED_KEYS);
  const now = nowMs();
  kept.delete(uri);
  const keepFor = keepMs(cacheControl);
  if (keepFor > 0) {
    kept.set(uri, { keys, fetchedAt: now, until: now + keepFor });
  }
  return keys;
}

const fetchKeysOnce = oneFetchPerUrl(fetchKeys);

/**
 * The usable keys of the JWK Set at `uri`, kept or fetched; a set without `kid` is fetched again if
 * it was fetched long enough ago. Throws an Error whose message says why the set could not be read.
 */
export async function keysAt(uri: string, kid: string): Promise<PublicJwk[]> {
  const now = nowMs();
  const hit = kept.get(uri);
  if (hit && hit.until > now && (hit.keys.some((k) => k.kid === kid) || now - hit.fetchedAt < REFETCH_AFTER_MS)) return hit.keys;
  return fetchKeysOnce(uri);
}

/** Forget every kept set (tests). */
export function forgetFetchedKeySets(): void {
  kept.clear();
}
