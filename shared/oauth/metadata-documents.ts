/**
 * Clients identified by a Client ID Metadata Document (the OAuth draft MCP prefers): the
 * `client_id` is an https URL, and the document it serves describes the client. The service
 * fetches it through the guarded fetcher (`public-fetch.ts`: https to public addresses only, no
 * redirects, bounded in time and size), requires the document's `client_id` to be that very URL
 * and its metadata to pass the registration rules (`client-metadata.ts`: a public client, https or
 * loopback redirect URIs), and keeps it per URL as its `Cache-Control` says, between five minutes
 * and a day, in a bounded map; a refusal is kept `REFUSAL_KEEP_MS`, so a URL named again and again
 * (the sign-in page is open to anyone) is not fetched again and again. Nothing is stored: the
 * document is the registration.
 */
import { BoundedMap } from '../bounded-map';
import type { OAuthClient } from '../directory/model';
import { isHttpError } from '../http/errors';
import { jsonDepth } from '../http/json-depth';
import { parseClientMetadata } from './client-metadata';
import { nowMs } from './clock';
import { fetchPublic, FetchRefused, keepMs, oneFetchPerUrl, publicUrlProblem } from './public-fetch';

export const MAX_DOCUMENT_BYTES = 16 * 1024;
export const MAX_CLIENT_ID_URL_LENGTH = 512;
export const KEEP_BOUNDS = { leastMs: 5 * 60_000, defaultMs: 60 * 60_000, mostMs: 24 * 3600_000 };
export const REFUSAL_KEEP_MS = 60_000;
const CACHE_ENTRIES = 1000;
const MAX_DEPTH = 8;

/** A metadata document that cannot be used; the message says why, for the person or client. */
export class ClientDocumentRefused extends Error {}

/** Whether a `client_id` names a metadata document (an https URL, or a loopback http one under the test setting). */
export function isDocumentClientId(clientId: string): boolean {
  return /^https?:\/\//i.test(clientId);
}

/** Why this URL cannot be a client's metadata document (`undefined`: it can be fetched). */
export function documentUrlProblem(uri: string): string | undefined {
  if (uri.length > MAX_CLIENT_ID_URL_LENGTH) return `The client_id URL is longer than ${MAX_CLIENT_ID_URL_LENGTH} characters.`;
  const problem = publicUrlProblem(uri, 'The client_id URL');
  if (problem) return problem;
  const url = new URL(uri);
  if (url.pathname === '/' || url.pathname === '') return 'The client_id URL must have a path.';
  if (/\/\.\.?(\/|$)/.test(url.pathname) || uri !== url.href) return 'The client_id URL must be in its normal form (no dot segments).';
  return undefined;
}

type Kept = { client: OAuthClient; until: number } | { refused: string; until: number };

const kept = new BoundedMap<string, Kept>(CACHE_ENTRIES);

function clientOfDocument(url: string, body: string): OAuthClient {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    throw new ClientDocumentRefused('The client metadata document is not JSON.');
  }
  if (jsonDepth(parsed, MAX_DEPTH) > MAX_DEPTH) throw new ClientDocumentRefused('The client metadata document nests too deeply.');
  const claimed = typeof parsed === 'object' && parsed !== null && Object.hasOwn(parsed, 'client_id') ? (parsed as { client_id: unknown }).client_id : undefined;
  if (claimed !== url) throw new ClientDocumentRefused('The client metadata document\'s client_id is not its own URL.');
  let metadata;
  try {
    metadata = parseClientMetadata(parsed);
  } catch (e) {
    if (isHttpError(e)) throw new ClientDocumentRefused(`The client metadata document is refused: ${e.message}`);
    throw e;
  }
  const at = new Date(nowMs()).toISOString();
  return {
    id: 0,
    clientId: url,
    name: metadata.name ?? new URL(url).host,
    type: 'public',
    redirectUris: metadata.redirectUris,
    grantTypes: metadata.grantTypes,
    registration: 'metadata-document',
    createdAt: at,
    updatedAt: at,
  };
}

async function fetchDocument(url: string): Promise<OAuthClient> {
  try {
    return await readDocument(url);
  } catch (e) {
    if (e instanceof ClientDocumentRefused) kept.set(url, { refused: e.message, until: nowMs() + REFUSAL_KEEP_MS });
    throw e;
  }
}

async function readDocument(url: string): Promise<OAuthClient> {
  let fetched;
  try {
    fetched = await fetchPublic(new URL(url), MAX_DOCUMENT_BYTES);
  } catch (e) {
    if (e instanceof FetchRefused) throw new ClientDocumentRefused(`The client metadata document could not be read: ${e.message}`);
    throw e;
  }
  const client = clientOfDocument(url, fetched.body);
  kept.set(url, { client, until: nowMs() + keepMs(fetched.cacheControl, KEEP_BOUNDS) });
  return client;
}

const fetchDocumentOnce = oneFetchPerUrl(fetchDocument);

/** The client a metadata-document `client_id` describes, kept or fetched; throws `ClientDocumentRefused` saying why not. */
export async function documentClient(url: string): Promise<OAuthClient> {
  const problem = documentUrlProblem(url);
  if (problem) throw new ClientDocumentRefused(problem);
  const hit = kept.get(url);
  if (hit && hit.until > nowMs()) {
    if ('refused' in hit) throw new ClientDocumentRefused(hit.refused);
    return hit.client;
  }
  return fetchDocumentOnce(url);
}

/** Forget every kept document (tests). */
export function forgetClientDocuments(): void {
  kept.clear();
}
