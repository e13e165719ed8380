/**
 * The operator's command for the assistants' clients (`npm run clients -- <command>`, through
 * `local/clients.ts`, which finds the table: a running `npm start`'s, or a deployed stack's when
 * `DIRECTORY_TABLE` is set): the clients assistants registered themselves, and those named by a
 * Client ID Metadata Document (an https `client_id`) that were used or revoked. Commands:
 *
 *   list                 the clients that have not expired: id, name, redirect URIs, dates; revoked documents
 *   revoke <client_id>   a registered client: delete it; a metadata-document URL: refuse it from now on
 *                        (also one never used here); either way end its tokens (its grants' refresh and access tokens)
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
  const name = JSON.stringify(client.name);
  if (client.revokedAt !== undefined) return `${client.clientId} ${name} metadata document, revoked ${isoOf(client.revokedAt)}: refused at authorize and token`;
  const since = client.registration === 'metadata-document' ? `metadata document, first used ${client.createdAt}` : `registered ${client.createdAt}`;
  return `${client.clientId} ${name} ${since}, last used ${isoOf(client.lastUsedAt)}, expires ${isoOf(client.expiresAt)}, ${client.grants?.length ?? 0} grant(s); redirect ${client.redirectUris.join(' ')}`;
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
      if (!revoked) return [`no registered client ${JSON.stringify(clientId)}`];
      const { client, grantsEnded, already } = revoked;
      if (already) return [`${clientId} was revoked already, at ${isoOf(client.revokedAt)}`];
      const refused = client.registration === 'metadata-document' ? '; authorize and token refuse it from now on' : '';
      return [`revoked ${clientId} (${JSON.stringify(client.name)}): ${grantsEnded} grant(s) ended${refused}`];
    }
    default:
      throw new UsageError(CLIENTS_USAGE);
  }
}
