/**
 * Practitioners' API keys: confidential OAuth clients (16-character id, 32-character secret stored
 * only as a SHA-256 hash) that get tokens with the client_credentials grant and act as the
 * practitioner who made them. The secret is shown once, also as the ready-made Basic credential
 * `key` = Base64(`<id>:<secret>`). Deleting a key also refuses the access tokens it obtained.
 */
import { ACCESS_TOKEN_SECONDS, CLOCK_TOLERANCE_SECONDS } from '../auth/lifetimes';
import { hashSecret, randomAlphanumeric } from '../auth/secrets';
import type { Id, OAuthClient } from '../directory/model';
import { createOAuthClient, deleteOAuthClient, getOAuthClientById, listOAuthClientsOfOwner } from '../directory/oauth-clients';
import { addRevocations } from '../directory/users';
import { badRequest, notFound } from '../http/errors';
import { apiKeyGrantId } from './grants';

export const MAX_API_KEYS = 25;
export const API_KEY_ID_LENGTH = 16;
export const API_KEY_SECRET_LENGTH = 32;

export interface ApiKeyView {
  id: Id;
  clientId: string;
  name: string;
  createdAt: string;
}

export interface NewApiKey extends ApiKeyView {
  clientSecret: string;
  /** `Authorization: Basic <key>` at `/o/token/` with `grant_type=client_credentials`. */
  key: string;
}

const view = (client: OAuthClient): ApiKeyView => ({ id: client.id, clientId: client.clientId, name: client.name, createdAt: client.createdAt });

export async function listApiKeys(ownerUserId: Id): Promise<ApiKeyView[]> {
  return (await listOAuthClientsOfOwner(ownerUserId)).map(view);
}

export async function createApiKey(ownerUserId: Id, name: string | undefined): Promise<NewApiKey> {
  if ((await listOAuthClientsOfOwner(ownerUserId)).length >= MAX_API_KEYS) {
    throw badRequest(`A practitioner may hold at most ${MAX_API_KEYS} API keys; delete one first.`);
  }
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

/** Deletes one of the practitioner's keys (404 for anyone else's) and refuses its live tokens. */
export async function deleteApiKey(ownerUserId: Id, id: Id): Promise<void> {
  const client = await getOAuthClientById(id);
  if (!client || client.ownerUserId !== ownerUserId) throw notFound(`API key ${id} not found.`);
  await deleteOAuthClient(client.clientId);
  const wallNow = Math.floor(Date.now() / 1000);
  await addRevocations(ownerUserId, { [`sid:${apiKeyGrantId(client.clientId)}`]: wallNow + ACCESS_TOKEN_SECONDS + CLOCK_TOLERANCE_SECONDS });
}
