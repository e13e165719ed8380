/**
 * Dynamic Client Registration (RFC 7591) at `/o/register/`: an assistant registers a public client
 * (PKCE, no secret) with its redirect URIs (`client-metadata.ts` says what is accepted) and gets its
 * `client_id` at once, without an initial access token. Because anyone may call it, registrations
 * are counted per source address and for everyone per hour (on the directory table, so every
 * function instance counts together; 429 with `Retry-After` beyond `registrationLimits`), and a
 * client that is never used is gone after a day (`clients.ts`).
 */
import { config } from '../config';
import { createOAuthClient } from '../directory/oauth-clients';
import type { OAuthClient } from '../directory/model';
import { hashSecret, randomAlphanumeric } from '../secrets';
import { parseClientMetadata } from './client-metadata';
import { UNUSED_CLIENT_SECONDS } from './clients';
import { nowSeconds } from './clock';
import { oauthError } from './errors';
import { oauthStore } from './store/current';

const WINDOW_SECONDS = 3600;
/** A registered client's id: long enough not to be guessed, in the `client_id` alphabet of the other clients. */
const CLIENT_ID_LENGTH = 32;
const DEFAULT_CLIENT_NAME = 'Unnamed assistant';

/** Takes the registration's place in the address's window, then in everyone's; 429 with `Retry-After` when either is full. */
async function countRegistration(sourceIp: string | undefined): Promise<void> {
  const { perAddressPerHour, perHour } = config().registrationLimits;
  const now = nowSeconds();
  const windowStart = now - (now % WINDOW_SECONDS);
  const expiresAt = windowStart + 2 * WINDOW_SECONDS;
  const refuse = () =>
    oauthError('temporarily_unavailable', 'Too many client registrations; try again later.', { status: 429, headers: { 'Retry-After': String(windowStart + WINDOW_SECONDS - now) } });
  const { registrations } = oauthStore();
  // The address's window first: an address at its limit is refused before it takes from everyone's.
  if (!(await registrations.take(`address:${hashSecret(sourceIp ?? 'unknown')}`, windowStart, perAddressPerHour, expiresAt))) throw refuse();
  if (!(await registrations.take('all', windowStart, perHour, expiresAt))) throw refuse();
}

/** RFC 7591 §3.2.1's client information response of a stored client. */
export function clientInformation(client: OAuthClient): Record<string, unknown> {
  return {
    client_id: client.clientId,
    client_id_issued_at: Math.floor(Date.parse(client.createdAt) / 1000),
    client_name: client.name,
    redirect_uris: client.redirectUris,
    grant_types: client.grantTypes,
    response_types: ['code'],
    token_endpoint_auth_method: 'none',
  };
}

/** Registers the client a request's JSON body describes; the 201 body. */
export async function registerClient(request: { isJson: boolean; body: unknown; sourceIp?: string }): Promise<Record<string, unknown>> {
  if (!request.isJson) throw oauthError('invalid_client_metadata', 'Send the client metadata as an application/json body.');
  const metadata = parseClientMetadata(request.body);
  await countRegistration(request.sourceIp);
  const client = await createOAuthClient({
    clientId: randomAlphanumeric(CLIENT_ID_LENGTH),
    name: metadata.name ?? DEFAULT_CLIENT_NAME,
    type: 'public',
    redirectUris: metadata.redirectUris,
    grantTypes: metadata.grantTypes,
    registration: 'dynamic',
    expiresAt: nowSeconds() + UNUSED_CLIENT_SECONDS,
  });
  return clientInformation(client);
}
