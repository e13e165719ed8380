/**
 * An assistant's client metadata (RFC 7591 §2), as sent to the registration endpoint or served as
 * its Client ID Metadata Document, read into the one shape this server accepts: a public client
 * (`token_endpoint_auth_method: none`, PKCE), the authorization code grant (and refresh tokens),
 * response type `code`, and redirect URIs that are `https` or loopback `http` (RFC 8252 §7.3).
 * Every field is bounded; fields this server does not use are ignored; nothing of the text is
 * trusted (the name is shown on pages as escaped text only).
 */
import { isObject } from '../json';
import { oauthError } from './errors';

export const MAX_REDIRECT_URIS = 10;
export const MAX_URI_LENGTH = 512;
export const MAX_CLIENT_NAME_LENGTH = 100;
const MAX_LIST_ENTRIES = 10;
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;

/** The hosts a loopback redirect URI may name (RFC 8252 §7.3; `localhost` as MCP clients use it). */
const LOOPBACK_HOSTS = new Set(['127.0.0.1', '[::1]', 'localhost']);

export const ACCEPTED_GRANT_TYPES = ['authorization_code', 'refresh_token'] as const;

export interface ClientMetadata {
  redirectUris: string[];
  grantTypes: string[];
  name: string | undefined;
}

const badMetadata = (why: string) => oauthError('invalid_client_metadata', why);
const badRedirect = (why: string) => oauthError('invalid_redirect_uri', why);

/** Whether the URI is a loopback `http` one, whose port the authorization request may change. */
export function isLoopbackRedirect(url: URL): boolean {
  return url.protocol === 'http:' && LOOPBACK_HOSTS.has(url.hostname);
}

function redirectUriProblem(uri: string): string | undefined {
  if (uri.length > MAX_URI_LENGTH) return `is longer than ${MAX_URI_LENGTH} characters.`;
  if (CONTROL.test(uri) || /\s/.test(uri)) return 'contains spaces or control characters.';
  let url: URL;
  try {
    url = new URL(uri);
  } catch {
    return 'is not an absolute URI.';
  }
  if (uri.includes('#')) return 'must not have a fragment.';
  if (url.username || url.password) return 'must not carry credentials.';
  if (url.protocol === 'https:') return url.hostname ? undefined : 'names no host.';
  if (isLoopbackRedirect(url)) return undefined;
  return 'must be https, or http on the loopback interface (127.0.0.1, [::1] or localhost).';
}

function stringList(body: Record<string, unknown>, field: string, max: number): string[] | undefined {
  const value = body[field];
  if (value === undefined) return undefined;
  if (!Array.isArray(value) || !value.every((v) => typeof v === 'string')) throw badMetadata(`${field} must be a list of strings.`);
  if (value.length > max) throw badMetadata(`${field} has more than ${max} entries.`);
  return [...new Set(value as string[])];
}

/** The metadata of a registration request or a metadata document; `invalid_client_metadata` / `invalid_redirect_uri` for what this server will not take. */
export function parseClientMetadata(body: unknown): ClientMetadata {
  if (!isObject(body)) throw badMetadata('The client metadata must be a JSON object.');
  // Client text never keys a plain object: read only own, named fields.
  const own = (field: string): unknown => (Object.hasOwn(body, field) ? body[field] : undefined);
  const fields: Record<string, unknown> = Object.create(null);
  for (const field of ['redirect_uris', 'grant_types', 'response_types', 'token_endpoint_auth_method', 'client_name']) fields[field] = own(field);

  const method = fields.token_endpoint_auth_method;
  if (method !== undefined && method !== 'none') {
    throw badMetadata('Only public clients may register: token_endpoint_auth_method must be none (PKCE, no client secret).');
  }
  const redirectUris = stringList(fields, 'redirect_uris', MAX_REDIRECT_URIS);
  if (redirectUris === undefined || redirectUris.length === 0) throw badRedirect('redirect_uris is required: at least one redirect URI.');
  for (const uri of redirectUris) {
    const problem = redirectUriProblem(uri);
    if (problem) throw badRedirect(`The redirect URI ${JSON.stringify(uri.slice(0, 80))} ${problem}`);
  }
  const grantTypes = stringList(fields, 'grant_types', MAX_LIST_ENTRIES) ?? ['authorization_code'];
  const unsupported = grantTypes.find((g) => !(ACCEPTED_GRANT_TYPES as readonly string[]).includes(g));
  if (unsupported !== undefined) throw badMetadata(`The grant type ${JSON.stringify(unsupported.slice(0, 40))} is not offered: use authorization_code (and refresh_token).`);
  if (!grantTypes.includes('authorization_code')) throw badMetadata('grant_types must include authorization_code.');
  const responseTypes = stringList(fields, 'response_types', MAX_LIST_ENTRIES) ?? ['code'];
  if (responseTypes.length !== 1 || responseTypes[0] !== 'code') throw badMetadata('response_types must be ["code"].');
  const name = fields.client_name;
  if (name !== undefined && typeof name !== 'string') throw badMetadata('client_name must be a string.');
  if (typeof name === 'string' && (name.length > MAX_CLIENT_NAME_LENGTH || CONTROL.test(name))) {
    throw badMetadata(`client_name must be at most ${MAX_CLIENT_NAME_LENGTH} characters, without control characters.`);
  }
  const trimmed = typeof name === 'string' ? name.trim() : '';
  return { redirectUris, grantTypes: ACCEPTED_GRANT_TYPES.filter((g) => grantTypes.includes(g)), name: trimmed || undefined };
}
