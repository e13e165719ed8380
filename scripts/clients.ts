/**
 * The operator's command for the clients assistants registered themselves (`npm run clients --
 * <command>`, through `local/clients.ts`, which finds the table: a running `npm start`'s, or a
 * deployed stack's when `DIRECTORY_TABLE` is set). Commands:
 *
 *   list                 the registered clients that have not expired: id, name, redirect URIs, dates
 *   revoke <client_id>   delete one and end its tokens (its grants' refresh and access tokens)
 *
 * docs/operations.md#assistants-registered-clients says when to use it.
 */
import { listRegisteredClients, revokeRegisteredClient } from '../shared/oauth/clients';
import type { OAuthClient } from '../shared/directory/model';
import { UsageError } from './usage-error';

export const CLIENTS_USAGE = `usage: npm run clients -- list
       npm run clients -- revoke <client_id>`;

const isoOf = (seconds: number | undefined) => (seconds === undefined ? 'never' : new Date(seconds * 1000).toISOString());

/** One line per client; the name is the client's own text, so it is printed as a JSON string (no terminal control codes). */
export function describeClient(client: OAuthClient): string {
  return `${client.clientId} ${JSON.stringify(client.name)} registered ${client.createdAt}, last used ${isoOf(client.lastUsedAt)}, expires ${isoOf(client.expiresAt)}, ${client.grants?.length ?? 0} grant(s); redirect ${client.redirectUris.join(' ')}`;
}

/** Runs one command; the lines to print, or throws a UsageError. */
export async function runClientsCommand(argv: readonly string[]): Promise<string[]> {
  const [command, ...rest] = argv;
  switch (command) {
    case 'list': {
      if (rest.length > 0) throw new UsageError(CLIENTS_USAGE);
      const clients = await listRegisteredClients();
      return clients.length === 0 ? ['no registered clients'] : clients.map(describeClient);
    }
    case 'revoke': {
      const [clientId] = rest;
      if (!clientId || rest.length > 1) throw new UsageError(CLIENTS_USAGE);
      const revoked = await revokeRegisteredClient(clientId);
      return [revoked ? `revoked ${clientId} (${JSON.stringify(revoked.name)}): ${revoked.grants?.length ?? 0} grant(s) ended` : `no registered client ${JSON.stringify(clientId)}`];
    }
    default:
      throw new UsageError(CLIENTS_USAGE);
  }
}

