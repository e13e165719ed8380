/**
 * A backend client's registered JWK Set URL (`jwks_uri`): the one place the service fetches a URL a
 * client chose, which is a server-side request forgery risk. So:
 * - only `https` (plain `http` to this machine's loopback only when `JWKS_URI_LOOPBACK=1`, for tests);
 * - the host must resolve to public addresses only, checked on the very addresses the connection
 *   uses (a name that resolves to 10.0.0.1 or 169.254.169.254 is refused, and so is a DNS answer
 *   that changes between a check and the connection); an IP literal host is checked the same way;
 * - no redirects, `GREATEST_WAIT_MS` for the whole exchange, at most `MAX_BYTES` of body;
 * - a fetched set is kept per URL as its `Cache-Control` allows (`max-age`, capped at an hour;
 *   five minutes without one; never with `no-store` or `no-cache`), in a bounded map; a key id the
 *   kept set lacks fetches again, at most every `REFETCH_AFTER_MS` (a client rotating its keys).
 */
import { lookup, type LookupAddress } from 'node:dns';
import { request as httpRequest, type ClientRequest, type IncomingMessage, type RequestOptions } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { BlockList, isIP, type LookupFunction } from 'node:net';
import { config } from '../config';
import type { PublicJwk } from '../directory/model';
import { jsonDepth } from '../http/json-depth';
import { usableKeys } from './client-keys';
import { nowMs } from './clock';

export const GREATEST_WAIT_MS = 3000;
export const MAX_BYTES = 64 * 1024;
/** Keys looked at in a fetched set. */
const MAX_FETCHED_KEYS = 50;
const CACHE_ENTRIES = 500;
const DEFAULT_KEEP_MS = 5 * 60_000;
const MAX_KEEP_MS = 60 * 60_000;
export const REFETCH_AFTER_MS = 30_000;

/** Addresses that are not the public internet: private, loopback, link-local (cloud metadata), shared, reserved, multicast. */
const NOT_PUBLIC = new BlockList();
for (const [network, prefix] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['224.0.0.0', 3],
] as const) {
  NOT_PUBLIC.addSubnet(network, prefix, 'ipv4');
}
for (const [network, prefix] of [
  ['::', 127],
  ['64:ff9b::', 96],
  ['fc00::', 7],
  ['fe80::', 10],
  ['ff00::', 8],
] as const) {
  NOT_PUBLIC.addSubnet(network, prefix, 'ipv6');
}
// An IPv4-mapped IPv6 address (`::ffff:10.0.0.1`) is checked against the IPv4 rules by BlockList itself.
const LOOPBACK = new BlockList();
LOOPBACK.addSubnet('127.0.0.0', 8, 'ipv4');
LOOPBACK.addAddress('::1', 'ipv6');

const familyOf = (address: string): 'ipv4' | 'ipv6' => (isIP(address) === 6 ? 'ipv6' : 'ipv4');

function reachable(address: string): boolean {
  const family = familyOf(address);
  if (config().jwksUriLoopback && LOOPBACK.check(address, family)) return true;
  return !NOT_PUBLIC.check(address, family);
}

/** `[::1]` -> `::1`: a URL's IPv6 host without its brackets. */
const bareHost = (hostname: string) => hostname.replace(/^\[(.*)\]$/, '$1');

/** Why the service will not fetch this URL as a JWK Set (`undefined`: it will). */
export function jwksUriProblem(uri: string): string | undefined {
  let url: URL;
  try {
    url = new URL(uri);
  } catch {
    return 'Enter a valid URL.';
  }
  if (url.username || url.password) return 'The URL must not carry credentials.';
  if (url.hash) return 'The URL must not have a fragment.';
  const host = bareHost(url.hostname);
  const loopbackHttp = url.protocol === 'http:' && config().jwksUriLoopback && (host === 'localhost' || (isIP(host) !== 0 && LOOPBACK.check(host, familyOf(host))));
  if (url.protocol !== 'https:' && !loopbackHttp) return 'The JWK Set URL must be an https URL.';
  if (isIP(host) !== 0 && !reachable(host)) return 'The JWK Set URL must name a public host.';
  return undefined;
}

class FetchRefused extends Error {}

/** DNS resolution that refuses a name with any address that is not public, for the connection itself. */
const publicLookup = ((hostname: string, options: { all?: boolean }, callback: (error: Error | null, address: string | LookupAddress[], family?: number) => void) => {
  lookup(hostname, { ...options, all: true }, (error, addresses) => {
    if (error) return callback(error, options.all ? [] : '');
    if (addresses.length === 0 || !addresses.every((a) => reachable(a.address))) {
      return callback(new FetchRefused(`${hostname} resolves to an address that is not public.`), options.all ? [] : '');
    }
    return options.all ? callback(null, addresses) : callback(null, addresses[0]!.address, addresses[0]!.family);
  });
}) as unknown as LookupFunction;

interface Fetched {
  body: string;
  cacheControl: string | undefined;
}

/** GET the URL: 200 with a body within the size limit, in time, or an error that says why not. */
function get(url: URL): Promise<Fetched> {
  return new Promise((resolve, reject) => {
    let request: ClientRequest | undefined;
    const fail = (why: string) => {
      clearTimeout(timer);
      request?.destroy();
      reject(new FetchRefused(why));
    };
    const timer = setTimeout(() => fail(`no answer within ${GREATEST_WAIT_MS / 1000} s.`), GREATEST_WAIT_MS);
    const options: RequestOptions = { method: 'GET', headers: { accept: 'application/json' }, lookup: publicLookup, agent: false };
    const answered = (res: IncomingMessage) => {
      if (res.statusCode !== 200) return fail(`it answered ${res.statusCode} (redirects are not followed).`);
      if (Number(res.headers['content-length'] ?? 0) > MAX_BYTES) return fail(`it is larger than ${MAX_BYTES} bytes.`);
      const chunks: Buffer[] = [];
      let size = 0;
      res.on('data', (chunk: Buffer) => {
        size += chunk.length;
        if (size > MAX_BYTES) fail(`it is larger than ${MAX_BYTES} bytes.`);
        else chunks.push(chunk);
      });
      res.on('end', () => {
        clearTimeout(timer);
        resolve({ body: Buffer.concat(chunks).toString('utf8'), cacheControl: res.headers['cache-control'] });
      });
      res.on('error', (e) => fail(e.message));
    };
    try {
      request = (url.protocol === 'https:' ? httpsRequest : httpRequest)(url, options, answered);
    } catch (e) {
      return fail((e as Error).message);
    }
    request.on('error', (e) => fail(e instanceof FetchRefused ? e.message : `it could not be reached (${(e as NodeJS.ErrnoException).code ?? e.message}).`));
    request.end();
  });
}

/** How long a fetched set may be kept, from its `Cache-Control`. */
export function keepMs(cacheControl: string | undefined): number {
  const directives = (cacheControl ?? '').toLowerCase();
  if (/(^|[\s,])(no-store|no-cache)($|[\s,=])/.test(directives)) return 0;
  const maxAge = /(^|[\s,])max-age=(\d{1,10})($|[\s,])/.exec(directives);
  return maxAge ? Math.min(Number(maxAge[2]) * 1000, MAX_KEEP_MS) : DEFAULT_KEEP_MS;
}

interface Kept {
  keys: PublicJwk[];
  fetchedAt: number;
  until: number;
}

const kept = new Map<string, Kept>();
/** One fetch per URL at a time: requests arriving together share it. */
const fetching = new Map<string, Promise<PublicJwk[]>>();

async function fetchKeys(uri: string): Promise<PublicJwk[]> {
  const problem = jwksUriProblem(uri);
  if (problem) throw new FetchRefused(problem);
  const { body, cacheControl } = await get(new URL(uri));
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
    if (kept.size >= CACHE_ENTRIES) kept.delete(kept.keys().next().value!);
    kept.set(uri, { keys, fetchedAt: now, until: now + keepFor });
  }
  return keys;
}

/**
 * The usable keys of the JWK Set at `uri`, kept or fetched; a set without `kid` is fetched again if
 * it was fetched long enough ago. Throws an Error whose message says why the set could not be read.
 */
export async function keysAt(uri: string, kid: string): Promise<PublicJwk[]> {
  const now = nowMs();
  const hit = kept.get(uri);
  if (hit && hit.until > now && (hit.keys.some((k) => k.kid === kid) || now - hit.fetchedAt < REFETCH_AFTER_MS)) return hit.keys;
  let pending = fetching.get(uri);
  if (!pending) {
    pending = fetchKeys(uri).finally(() => fetching.delete(uri));
    fetching.set(uri, pending);
  }
  return pending;
}

/** Forget every kept set (tests). */
export function forgetFetchedKeySets(): void {
  kept.clear();
}
