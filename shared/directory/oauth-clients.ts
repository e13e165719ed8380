/**
 * OAuth clients: patient apps and the portal (public, PKCE), and practitioners' API keys
 * (confidential, client credentials, acting as their owner). Looked up by `client_id` at the token
 * endpoint and by numeric id from `/api/v1/`.
 */
import { randomAlphanumeric } from '../auth/secrets';
import { conflict, notFound } from '../http/errors';
import { assertKeyText, getItem, now, putNew, queryAll, remove, transact, withoutKeys, type Item } from './db';
import { entityStore } from './entity';
import { newId } from './ids';
import { GSI1, indexes, keys, KIND } from './keys';
import type { ClientType, Id, OAuthClient } from './model';
import { unlinkFromStudies } from './studies';

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
}

export type OAuthClientPatch = Partial<Omit<OAuthClientInput, 'clientId' | 'type' | 'ownerUserId'>>;

export const clientNotFound = (id: Id | string) => notFound(`Client ${id} not found.`);

const toClient = (item: Item) => withoutKeys(item) as unknown as OAuthClient;

const clients = entityStore<OAuthClient, string>({
  key: keys.oauthClient,
  toEntity: toClient,
  toItem: (client) => ({ ...keys.oauthClient(client.clientId), ...indexes.oauthClient(client.id, client.ownerUserId), ...client }),
  notFound: clientNotFound,
});

export async function createOAuthClient(input: OAuthClientInput): Promise<OAuthClient> {
  const clientId = input.clientId ?? randomAlphanumeric(16);
  assertKeyText('clientId', clientId);
  const id = await newId('oauthClient');
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
    createdAt: at,
    updatedAt: at,
  };
  await transact([
    clients.create(client, () => conflict(`Client id '${clientId}' is already taken.`, { fields: { clientId: ['This client id is already taken.'] } })),
    putNew({ ...keys.oauthClientNumber(id), clientId }, () => conflict('Client number collision.')),
  ]);
  return client;
}

/** A client by its OAuth `client_id` (strongly consistent: a deleted key stops working at once). */
export async function getOAuthClient(clientId: string): Promise<OAuthClient | undefined> {
  return clientId ? clients.get(clientId) : undefined;
}

/** A client by its numeric id. */
export async function getOAuthClientById(id: Id): Promise<OAuthClient | undefined> {
  const pointer = await getItem(keys.oauthClientNumber(id));
  return pointer ? getOAuthClient(pointer.clientId as string) : undefined;
}

/** Every client, in id order. */
export async function listOAuthClients(): Promise<OAuthClient[]> {
  return (await queryAll({ index: GSI1, pk: KIND.oauthClient })).map(toClient);
}

/** A practitioner's API keys, in id order. */
export async function listOAuthClientsOfOwner(userId: Id): Promise<OAuthClient[]> {
  const index = indexes.clientsOfOwner(userId);
  return (await queryAll({ index: index.name, pk: index.pk })).map(toClient);
}

export async function updateOAuthClient(clientId: string, patch: OAuthClientPatch): Promise<OAuthClient> {
  const { entity, version } = await clients.read(clientId);
  const { redirectUris, grantTypes, ...rest } = patch;
  const next: OAuthClient = {
    ...entity,
    ...rest,
    ...(redirectUris ? { redirectUris: [...redirectUris] } : {}),
    ...(grantTypes ? { grantTypes: [...grantTypes] } : {}),
    updatedAt: now(),
  };
  await transact([clients.replace(next, version)]);
  return next;
}

/** Deletes a client and its links to studies. */
export async function deleteOAuthClient(clientId: string): Promise<void> {
  const { entity: client, version } = await clients.read(clientId);
  await transact([clients.remove(clientId, version), remove(keys.oauthClientNumber(client.id))]);
  await unlinkFromStudies(indexes.studiesOfClient(client.id), (studyId) => keys.studyClient(studyId, client.id));
}
