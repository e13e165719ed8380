/**
 * The clients the authorization and token endpoints accept: those stored in the directory (the
 * service's, the operator's, and the ones assistants registered themselves, while they have not
 * expired), and those a `client_id` URL describes (Client ID Metadata Documents). Dynamically
 * registered clients live a day unless used; each token exchange keeps them `KEPT_AFTER_USE_SECONDS`
 * more, and remembers its grant so that revoking the client ends its tokens.
 */
import { changeOAuthClient, deleteOAuthClient, getOAuthClient, listOAuthClients } from '../directory/oauth-clients';
import type { ClientGrant, OAuthClient } from '../directory/model';
import { isHttpError } from '../http/errors';
import { nowSeconds } from './clock';
import { revokeGrant } from './grants';
import { documentClient, isDocumentClientId } from './metadata-documents';

export { ClientDocumentRefused } from './metadata-documents';

/** A dynamically registered client that never completed a token exchange is gone after this. */
export const UNUSED_CLIENT_SECONDS = 24 * 3600;
/** A used one is kept this long after its last token exchange. */
export const KEPT_AFTER_USE_SECONDS = 90 * 24 * 3600;
/** Its expiry is moved at most this often (a refresh every few minutes need not write every time). */
const TOUCH_EVERY_SECONDS = 24 * 3600;
/** The grants a client remembers for its revocation (a registration is one installation: a handful of users). */
export const MAX_CLIENT_GRANTS = 50;
const MAX_CLIENT_ID_LENGTH = 256;

/**
 * The client a `client_id` names, or undefined; a metadata document that cannot be used throws
 * `ClientDocumentRefused` (its message says why).
 */
export async function findClient(clientId: string): Promise<OAuthClient | undefined> {
  if (isDocumentClientId(clientId)) return documentClient(clientId);
  return clientId.length <= MAX_CLIENT_ID_LENGTH ? getOAuthClient(clientId) : undefined;
}

/**
 * Records a token exchange of a dynamically registered client: it is kept `KEPT_AFTER_USE_SECONDS`
 * from now, and a new grant is remembered. Other clients are left as they are.
 */
export async function noteClientUse(client: OAuthClient, grant?: ClientGrant): Promise<void> {
  if (client.registration !== 'dynamic') return;
  const now = nowSeconds();
  const fresh = client.expiresAt !== undefined && client.expiresAt - now > KEPT_AFTER_USE_SECONDS - TOUCH_EVERY_SECONDS;
  if (fresh && !grant) return;
  const change = (current: OAuthClient): OAuthClient => ({
    ...current,
    lastUsedAt: now,
    expiresAt: now + KEPT_AFTER_USE_SECONDS,
    ...(grant ? { grants: [...(current.grants ?? []), grant].slice(-MAX_CLIENT_GRANTS) } : {}),
  });
  // The exchange has already spent its code: a concurrent exchange of the same client (409) is
  // retried, and a client revoked meanwhile (404) has nothing left to record.
  for (let attempt = 1; ; attempt += 1) {
    try {
      await changeOAuthClient(client.clientId, change);
      return;
    } catch (e) {
      if (isHttpError(e) && e.status === 404) return;
      if (!(isHttpError(e) && e.status === 409) || attempt === 3) throw e;
    }
  }
}

/** The clients assistants registered themselves, that have not expired, oldest first. */
export async function listRegisteredClients(): Promise<OAuthClient[]> {
  return (await listOAuthClients()).filter((c) => c.registration === 'dynamic');
}

/**
 * Revokes a dynamically registered client: it is deleted (authorize and token refuse it from now
 * on) and every grant it remembers is revoked (their refresh tokens and access tokens refused).
 * 404 for an unknown client; other clients are not revoked here.
 */
export async function revokeRegisteredClient(clientId: string): Promise<OAuthClient | undefined> {
  const client = await getOAuthClient(clientId);
  if (!client || client.registration !== 'dynamic') return undefined;
  await deleteOAuthClient(clientId);
  for (const grant of client.grants ?? []) await revokeGrant(grant.grantId, grant.userId);
  return client;
}
