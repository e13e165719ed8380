/**
 * Fetching a URL a client chose (a backend client's JWK Set, an assistant's Client ID Metadata
 * Document): a server-side request forgery risk, so every such fetch goes through here:
 * - only `https` (plain `http` to this machine's loopback only when `JWKS_URI_LOOPBACK=1`, for tests);
 * - the host must resolve to public addresses only, checked on the very addresses the connection
 *   uses (a name that resolves to 10.0.0.1 or 169.254.169.254 is refused, and so is a DNS answer
 *   that changes between a check and the connection); an IP literal host is checked the same way;
 * - no redirects, `GREATEST_WAIT_MS` for the whole exchange, at most the caller's byte limit of body.
 */
import { lookup, type LookupAddress } from 'node:dns';
import { request as httpRequest, type ClientRequest, type IncomingMessage, type RequestOptions } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { BlockList, isIP, type LookupFunction } from 'node:net';
import { config } from '../config';

export const GREATEST_WAIT_MS = 3000;

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

/** Why the service will not fetch this URL (`undefined`: it will); `what` names it in the answer ("The JWK Set URL"). */
export function publicUrlProblem(uri: string, what: string): string | undefined {
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
  if (url.protocol !== 'https:' && !loopbackHttp) return `${what} must be an https URL.`;
  if (isIP(host) !== 0 && !reachable(host)) return `${what} must name a public host.`;
  return undefined;
}

/** Why a fetch was refused or failed, as a message for the client. */
export class FetchRefused extends Error {}

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

export interface Fetched {
  body: string;
  cacheControl: string | undefined;
}

/** GET the URL: 200 with a body within `maxBytes`, in time, or a `FetchRefused` that says why not. */
export function fetchPublic(url: URL, maxBytes: number): Promise<Fetched> {
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
      if (Number(res.headers['content-length'] ?? 0) > maxBytes) return fail(`it is larger than ${maxBytes} bytes.`);
      const chunks: Buffer[] = [];
      let size = 0;
      res.on('data', (chunk: Buffer) => {
        size += chunk.length;
        if (size > maxBytes) fail(`it is larger than ${maxBytes} bytes.`);
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

/** How long a fetched document may be kept, from its `Cache-Control`, within the caller's bounds (`no-store`/`no-cache`: the least). */
export function keepMs(cacheControl: string | undefined, bounds: { leastMs: number; defaultMs: number; mostMs: number }): number {
  const directives = (cacheControl ?? '').toLowerCase();
  if (/(^|[\s,])(no-store|no-cache)($|[\s,=])/.test(directives)) return bounds.leastMs;
  const maxAge = /(^|[\s,])max-age=(\d{1,10})($|[\s,])/.exec(directives);
  return maxAge ? Math.max(bounds.leastMs, Math.min(Number(maxAge[2]) * 1000, bounds.mostMs)) : bounds.defaultMs;
}


/**
 * One fetch per URL at a time: a caller asking for a URL already being fetched shares that fetch
 * (requests arriving together make one request out). The URLs held are those in flight, each for at
 * most `fetchPublic`'s time limit.
 */
export function oneFetchPerUrl<T>(fetchOf: (url: string) => Promise<T>): (url: string) => Promise<T> {
  const fetching = new Map<string, Promise<T>>();
  return (url) => {
    let pending = fetching.get(url);
    if (!pending) {
      pending = fetchOf(url).finally(() => fetching.delete(url));
      fetching.set(url, pending);
    }
    return pending;
  };
}
