/** The in-memory twin of the OAuth clients. */
import { copy, counter, holding, readThrough, recordTable } from '../../store/memory';
import type { Id, OAuthClient } from '../model';
import { clientIdTaken, clientNotFound, type OAuthClientRecords } from './port';

export function memoryOAuthClients(): OAuthClientRecords {
  const clients = recordTable<string, OAuthClient>(clientNotFound);
  /** Client number -> client_id. */
  const numbers = new Map<Id, string>();
  const records: OAuthClientRecords = {
    newId: counter(),
    insert: async (client) => {
      if (clients.rows.has(client.clientId)) throw clientIdTaken(client.clientId);
      clients.rows.set(client.clientId, copy(client));
      numbers.set(client.id, client.clientId);
    },
    get: clients.get,
    getById: readThrough(numbers, clients.get),
    list: clients.list,
    listOfOwner: async (userId) => (await clients.list()).filter((c) => c.ownerUserId === userId),
    update: clients.update,
    remove: async (clientId) => {
      const client = clients.existing(clientId);
      clients.rows.delete(clientId);
      numbers.delete(client.id);
      return copy(client);
    },
  };
  return holding(records, { oauthClients: () => clients.rows, clientNumbers: () => numbers });
}
