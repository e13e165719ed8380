/**
 * Practitioners' own clients, which get tokens with the client_credentials grant and act as the
 * practitioner who made them. Deleting one also refuses the access tokens it obtained.
 * - API keys: a 16-character id and a 32-character secret stored only as a SHA-256 hash, shown
 *   once, also as the ready-made Basic credential `key` = Base64(`<id>:<secret>`);
 * - backend clients (SMART Backend Services): a 16-character id and a registered public key set,
 *   inline (`jwks`) or by URL (`jwks_uri`); no secret: they sign in with a signed assertion
 *   (`client-assertion.ts`) and read what their practitioner sees (system scopes).
 */
import { apiKeyGrantId } from '../auth/claims';
import { ACCESS_TOKEN_SECONDS, CLOCK_TOLERANCE_SECONDS } from '../auth/lifetimes';
import { hashSecret, randomAlphanumeric } from '../secrets';
import type { Id, OAuthClient } from '../directory/model';
import { createOAuthClient, deleteOAuthClient, getOAuthClientById, listOAuthClientsOfOwner } from '../directory/oauth-clients';
import { addRevocations } from '../directory/users';
import { badRequest, fieldErrors, notFound } from '../http/errors';
import { isBackendClient } from './client-assertion';
import { readClientJwks } from './client-keys';
import { jwksUriProblem } from './jwks-uri';

export const MAX_API_KEYS = 25;
export const API_KEY_ID_LENGTH = 16;
export const API_KEY_SECRET_LENGTH = 32;

export interface ApiKeyView {
  id: Id;
  clientId: string;
  name: string;
  createdAt: string;
  /** How the client authenticates at `/o/token/`: a secret (an API key) or a signed assertion (a backend client). */
  tokenEndpointAuthMethod: 'client_secret_basic' | 'private_key_jwt';
  /** A backend client's JWK Set URL, or the key ids of its registered set. */
  jwksUri?: string;
  keyIds?: string[];
}

export interface NewApiKey extends ApiKeyView {
  clientSecret: string;
  /** `Authorization: Basic <key>` at `/o/token/` with `grant_type=client_credentials`. */
  key: string;
}

const view = (client: OAuthClient): ApiKeyView => ({
  id: client.id,
  clientId: client.clientId,
  name: client.name,
  createdAt: client.createdAt,
  tokenEndpointAuthMethod: isBackendClient(client) ? 'private_key_jwt' : 'client_secret_basic',
  ...(client.jwksUri ? { jwksUri: client.jwksUri } : {}),
  ...(client.jwks ? { keyIds: client.jwks.keys.map((k) => k.kid!) } : {}),
});

export async function listApiKeys(ownerUserId: Id): Promise<ApiKeyView[]> {
  return (await listOAuthClientsOfOwner(ownerUserId)).map(view);
}

async function assertRoomForAnother(ownerUserId: Id): Promise<void> {
  if ((await listOAuthClientsOfOwner(ownerUserId)).length >= MAX_API_KEYS) {
    throw badRequest(`A practitioner may hold at most ${MAX_API_KEYS} API keys and backend clients; delete one first.`);
  }
}

export async function createApiKey(ownerUserId: Id, name: string | undefined): Promise<NewApiKey> {
  await assertRoomForAnother(ownerUserId);
  const clientId = randomAlphanumeric(API_KEY_ID_LENGTH);
  const clientSecret = randomAlphanumeric(API_KEY_SECRET_LENGTH);
  const client = await createOAuthClient({
    clientId,
    name: name ?? 'API key',
    type: 'confidential',
    secretHash: hashSecret(clientSecret),
    grantTypes: ['client_credentials'],
    ownerUserId,
  });
  return { ...view(client), clientSecret, key: Buffer.from(`${clientId}:${clientSecret}`).toString('base64') };
}

/** A backend client's registration (RFC 7591 client metadata): its public keys inline or by URL, one of the two. */
export interface BackendClientRegistration {
  name?: string | undefined;
  jwks?: unknown;
  jwksUri?: string | undefined;
}

/** Registers a backend client acting as the practitioner; 400 field errors for keys it cannot sign in with. */
export async function createBackendClient(ownerUserId: Id, registration: BackendClientRegistration): Promise<ApiKeyView> {
  const { jwks, jwksUri } = registration;
  if ((jwks === undefined) === (jwksUri === undefined)) throw fieldErrors({ nonFieldErrors: ['A backend client registers its public keys as jwks or as jwks_uri: one of the two.'] });
  const problem = jwksUri === undefined ? undefined : jwksUriProblem(jwksUri);
  if (problem) throw fieldErrors({ jwksUri: [problem] });
  const keys = jwks === undefined ? undefined : await readClientJwks(jwks);
  await assertRoomForAnother(ownerUserId);
  const client = await createOAuthClient({
    name: registration.name ?? 'Backend service',
    type: 'confidential',
    grantTypes: ['client_credentials'],
    ownerUserId,
    ...(keys ? { jwks: keys } : {}),
    ...(jwksUri !== undefined ? { jwksUri } : {}),
  });
  return view(client);
}

/** Deletes one of the practitioner's keys (404 for anyone else's) and refuses its live tokens. */
export async function deleteApiKey(ownerUserId: Id, id: Id): Promise<void> {
  const client = await getOAuthClientById(id);
  if (!client || client.ownerUserId !== ownerUserId) throw notFound(`API key ${id} not found.`);
  await deleteOAuthClient(client.clientId);
  const wallNow = Math.floor(Date.now() / 1000);
  await addRevocations(ownerUserId, { [`sid:${apiKeyGrantId(client.clientId)}`]: wallNow + ACCESS_TOKEN_SECONDS + CLOCK_TOLERANCE_SECONDS });
}
