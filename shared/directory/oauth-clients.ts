/**
 * OAuth clients: patient apps and the portal (public, PKCE), practitioners' API keys
 * (confidential, client credentials, acting as their owner) and backend clients (confidential by a
 * registered public key, acting as their owner). Looked up by `client_id` at the token
 * endpoint and by numeric id from `/api/v1/`.
 */
import { randomAlphanumeric } from '../secrets';
import { assertKeyText, now } from './fields';
import type { ClientType, Id, OAuthClient, PublicJwkSet } from './model';
import { directoryStore } from './store/current';

export { clientNotFound } from './store/port';

export interface OAuthClientInput {
  /** Chosen by the caller (e.g. the portal's fixed id); a random 16-character id when absent. */
  clientId?: string;
  name: string;
  type: ClientType;
  secretHash?: string;
  redirectUris?: readonly string[];
  grantTypes?: readonly string[];
  ownerUserId?: Id;
  invitationUrl?: string;
  jwks?: PublicJwkSet;
  jwksUri?: string;
  registration?: OAuthClient['registration'];
  expiresAt?: number;
  lastUsedAt?: number;
  grants?: OAuthClient['grants'];
  revokedAt?: number;
}

export type OAuthClientPatch = Partial<Omit<OAuthClientInput, 'clientId' | 'type' | 'ownerUserId'>>;

export async function createOAuthClient(input: OAuthClientInput): Promise<OAuthClient> {
  const clientId = input.clientId ?? randomAlphanumeric(16);
  assertKeyText('clientId', clientId);
  const { oauthClients } = directoryStore();
  const id = await oauthClients.newId();
  const at = now();
  const client: OAuthClient = {
    id,
    clientId,
    name: input.name,
    type: input.type,
    ...(input.secretHash ? { secretHash: input.secretHash } : {}),
    redirectUris: [...(input.redirectUris ?? [])],
    grantTypes: [...(input.grantTypes ?? [])],
    ...(input.ownerUserId !== undefined ? { ownerUserId: input.ownerUserId } : {}),
    ...(input.invitationUrl ? { invitationUrl: input.invitationUrl } : {}),
    ...(input.jwks ? { jwks: input.jwks } : {}),
    ...(input.jwksUri ? { jwksUri: input.jwksUri } : {}),
    ...(input.registration ? { registration: input.registration } : {}),
    ...(input.expiresAt !== undefined ? { expiresAt: input.expiresAt } : {}),
    ...(input.lastUsedAt !== undefined ? { lastUsedAt: input.lastUsedAt } : {}),
    ...(input.grants ? { grants: [...input.grants] } : {}),
    ...(input.revokedAt !== undefined ? { revokedAt: input.revokedAt } : {}),
    createdAt: at,
    updatedAt: at,
  };
  await oauthClients.insert(client);
  return client;
}

/** Whether a client's time is up (`expiresAt`): DynamoDB's TTL deletes late, so every read asks. */
export const hasExpired = (client: OAuthClient, atSeconds = Date.now() / 1000): boolean => client.expiresAt !== undefined && client.expiresAt <= atSeconds;

const unlessExpired = (client: OAuthClient | undefined): OAuthClient | undefined => (client && !hasExpired(client) ? client : undefined);

/** A client by its OAuth `client_id` (strongly consistent: a deleted key stops working at once); an expired one is gone. */
export async function getOAuthClient(clientId: string): Promise<OAuthClient | undefined> {
  return clientId ? unlessExpired(await directoryStore().oauthClients.get(clientId)) : undefined;
}

/** A client by its numeric id. */
export const getOAuthClientById = async (id: Id): Promise<OAuthClient | undefined> => unlessExpired(await directoryStore().oauthClients.getById(id));

/** Every client that has not expired, in id order. */
export const listOAuthClients = async (): Promise<OAuthClient[]> => (await directoryStore().oauthClients.list()).filter((c) => !hasExpired(c));

/** Changes a client by a function of what is stored (404 when there is none, 409 when it moved on meanwhile). */
export const changeOAuthClient = (clientId: string, change: (current: OAuthClient) => OAuthClient): Promise<OAuthClient> =>
  directoryStore().oauthClients.update(clientId, (current) => ({ ...change(current), updatedAt: now() }));

/** A practitioner's API keys, in id order. */
export const listOAuthClientsOfOwner = (userId: Id): Promise<OAuthClient[]> => directoryStore().oauthClients.listOfOwner(userId);

export async function updateOAuthClient(clientId: string, patch: OAuthClientPatch): Promise<OAuthClient> {
  const { redirectUris, grantTypes, ...rest } = patch;
  return directoryStore().oauthClients.update(clientId, (current) => ({
    ...current,
    ...rest,
    ...(redirectUris ? { redirectUris: [...redirectUris] } : {}),
    ...(grantTypes ? { grantTypes: [...grantTypes] } : {}),
    updatedAt: now(),
  }));
}

/** Deletes a client and its links to studies. */
export async function deleteOAuthClient(clientId: string): Promise<void> {
  const { oauthClients, studies } = directoryStore();
  const client = await oauthClients.remove(clientId);
  await studies.unlinkClient(client.id);
}
