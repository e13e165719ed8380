/** The OAuth clients on the directory table: the client under its `client_id`, a pointer under its number. */
import { conflict } from '../../http/errors';
import { getItem, put, putNew, queryAll, remove, transact } from '../../store/directory-table';
import { entityStore } from '../../store/directory-entity';
import { newId } from '../ids';
import { GSI1, indexes, keys, KIND } from '../../store/directory-keys';
import type { OAuthClient } from '../model';
import { clientIdTaken, clientNotFound, type OAuthClientRecords } from './port';

const clients = entityStore<OAuthClient, string>({
  key: keys.oauthClient,
  toItem: (client) => ({ ...keys.oauthClient(client.clientId), ...indexes.oauthClient(client.id, client.ownerUserId), ...client }),
  notFound: clientNotFound,
});

/** The pointer from a client's number to its `client_id`, gone with the client when it expires. */
const numberPointer = (client: OAuthClient) => ({ ...keys.oauthClientNumber(client.id), clientId: client.clientId, ...(client.expiresAt !== undefined ? { expiresAt: client.expiresAt } : {}) });

export const oauthClients: OAuthClientRecords = {
  newId: () => newId('oauthClient'),
  insert: (client) =>
    transact([
      clients.create(client, () => clientIdTaken(client.clientId)),
      putNew(numberPointer(client), () => conflict('Client number collision.')),
    ]),
  get: clients.get,
  getById: async (id) => {
    const pointer = await getItem(keys.oauthClientNumber(id));
    return pointer ? clients.get(pointer.clientId as string) : undefined;
  },
  list: async () => (await queryAll({ index: GSI1, pk: KIND.oauthClient })).map(clients.fromItem),
  listOfOwner: async (userId) => {
    const index = indexes.clientsOfOwner(userId);
    return (await queryAll({ index: index.name, pk: index.pk })).map(clients.fromItem);
  },
  // A moved expiry moves its pointer's in the same write.
  update: async (clientId, change) => {
    const { entity, version } = await clients.read(clientId);
    const next = change(entity);
    await transact([clients.replace(next, version), ...(next.expiresAt !== entity.expiresAt ? [put(numberPointer(next))] : [])]);
    return next;
  },
  remove: async (clientId) => {
    const { entity: client, version } = await clients.read(clientId);
    await transact([clients.remove(clientId, version), remove(keys.oauthClientNumber(client.id))]);
    return client;
  },
};
