/**
 * The authorization endpoint's request (RFC 6749 §4.1.1 with PKCE): checked in two stages. Until the
 * client and its redirect URI are known to be registered, a problem is shown to the user and never
 * sent anywhere (RFC 6749 §4.1.2.1); after that, problems go back to the client's redirect URI.
 */
import type { TokenResource } from '../auth/claims';
import { config } from '../config';
import type { OAuthClient } from '../directory/model';
import { ClientDocumentRefused, findClient } from './clients';
import type { Params } from './form';
import { isS256Challenge, S256 } from './pkce';
import { isHttpError } from '../http/errors';
import { requestedResource } from './resources';
import { parseScope } from './scopes';
import { isRegisteredRedirectUri } from './service-clients';

export interface AuthorizationRequest {
  client: OAuthClient;
  redirectUri: string;
  state?: string;
  codeChallenge: string;
  /** The scope text as asked (what is granted depends on the account that signs in). */
  scope?: string;
  nonce?: string;
  /** The resource the tokens will be for (RFC 8707); absent: the service's APIs. */
  resource?: TokenResource;
}

/** A problem shown on the page: the redirect URI cannot be trusted. */
export class UnsafeRequest extends Error {}

/** A problem reported to the client at its (verified) redirect URI. */
export class RedirectedError extends Error {
  constructor(
    readonly code: 'invalid_request' | 'unsupported_response_type' | 'invalid_scope' | 'invalid_target' | 'access_denied' | 'request_not_supported',
    message: string,
    readonly redirectUri: string,
    readonly state: string | undefined,
  ) {
    super(message);
  }
}

/** The parameters the login form carries through to its POST (and nothing else). */
export const CARRIED_PARAMETERS = ['response_type', 'client_id', 'redirect_uri', 'state', 'scope', 'code_challenge', 'code_challenge_method', 'nonce', 'resource'] as const;

export async function parseAuthorizationRequest(params: Params): Promise<AuthorizationRequest> {
  const clientId = params.client_id;
  if (clientId === undefined) throw new UnsafeRequest('The request names no client (client_id is missing).');
  const client = await findClient(clientId).catch((e: unknown) => {
    throw e instanceof ClientDocumentRefused ? new UnsafeRequest(e.message) : e;
  });
  if (!client) throw new UnsafeRequest('The request names a client that is not registered here.');
  if (!client.grantTypes.includes('authorization_code')) throw new UnsafeRequest('This client may not sign users in.');
  const redirectUri = params.redirect_uri;
  if (redirectUri === undefined) throw new UnsafeRequest('The request has no redirect_uri.');
  if (!isRegisteredRedirectUri(client, redirectUri)) throw new UnsafeRequest('The redirect_uri is not registered for this client.');

  const state = params.state;
  const fail = (code: RedirectedError['code'], message: string) => new RedirectedError(code, message, redirectUri, state);
  if (params.request !== undefined || params.request_uri !== undefined) throw fail('request_not_supported', 'Request objects are not supported.');
  if (params.response_type !== 'code') throw fail('unsupported_response_type', 'Only response_type=code is supported.');
  if (params.code_challenge_method !== S256) {
    throw fail('invalid_request', params.code_challenge_method === undefined ? 'PKCE is required: send code_challenge and code_challenge_method=S256.' : 'Only the S256 code_challenge_method is supported.');
  }
  if (params.code_challenge === undefined || !isS256Challenge(params.code_challenge)) throw fail('invalid_request', 'The code_challenge is missing or is not an S256 challenge.');
  try {
    parseScope(params.scope);
  } catch (e) {
    throw fail('invalid_scope', (e as Error).message);
  }
  let resource: TokenResource | undefined;
  try {
    resource = requestedResource(params.resource);
  } catch (e) {
    if (!isHttpError(e)) throw e;
    throw fail('invalid_target', e.message);
  }
  return {
    client,
    redirectUri,
    codeChallenge: params.code_challenge,
    ...(state !== undefined ? { state } : {}),
    ...(params.scope !== undefined ? { scope: params.scope } : {}),
    ...(params.nonce !== undefined ? { nonce: params.nonce } : {}),
    ...(resource ? { resource } : {}),
  };
}

/** The redirect URI with response parameters added to its query (the registered text is kept as is). */
export function redirectWith(redirectUri: string, response: Record<string, string | undefined>): string {
  const query = new URLSearchParams();
  for (const [name, value] of Object.entries(response)) if (value !== undefined) query.set(name, value);
  const base = redirectUri.split('#')[0]!;
  return `${base}${base.includes('?') ? '&' : '?'}${query.toString()}`;
}

/** Parameters of an authorization response: the result and `state`, and the issuer (RFC 9207). */
export function responseParameters(result: Record<string, string>, state: string | undefined): Record<string, string | undefined> {
  return { ...result, state, iss: config().siteUrl };
}
