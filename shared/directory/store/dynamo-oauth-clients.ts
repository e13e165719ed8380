/** The OAuth clients on the directory table: the client under its `client_id`, a pointer under its number. */
import { conflict } from '../../http/errors';
import { getItem, putNew, queryAll, remove, transact } from '../../store/directory-table';
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

export const oauthClients: OAuthClientRecords = {
  newId: () => newId('oauthClient'),
  insert: (client) =>
    transact([
      clients.create(client, () => clientIdTaken(client.clientId)),
      putNew({ ...keys.oauthClientNumber(client.id), clientId: client.clientId }, () => conflict('Client number collision.')),
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
  update: clients.change,
  remove: async (clientId) => {
    const { entity: client, version } = await clients.read(clientId);
    await transact([clients.remove(clientId, version), remove(keys.oauthClientNumber(client.id))]);
    return client;
  },
};
