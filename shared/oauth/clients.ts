/**
 * The clients the authorization and token endpoints accept: those stored in the directory (the
 * service's, the operator's, and the ones assistants registered themselves, while they have not
 * expired), and those a `client_id` URL describes (Client ID Metadata Documents). Dynamically
 * registered clients live a day unless used; each token exchange keeps them `KEPT_AFTER_USE_SECONDS`
 * more, and remembers its grant so that revoking the client ends its tokens. A metadata-document
 * client gets the same record at its first token exchange (so the operator can list it) and is
 * kept as long after its last; revoking one keeps its record, marked revoked, so its URL is
 * refused from then on.
 */
import { changeOAuthClient, createOAuthClient, deleteOAuthClient, getOAuthClient, listOAuthClients } from '../directory/oauth-clients';
import type { ClientGrant, OAuthClient } from '../directory/model';
import { isHttpError } from '../http/errors';
import { nowSeconds } from './clock';
import { revokeGrant } from './grants';
import { ClientDocumentRefused, documentClient, documentUrlProblem, isDocumentClientId } from './metadata-documents';

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

export const REVOKED_DOCUMENT = 'This client was revoked by the operator of this service.';

const isStatus = (e: unknown, status: number) => isHttpError(e) && e.status === status;

/** The stored record of a metadata-document client (its use while it has not expired, or its revocation); the URL must be a valid one. */
async function documentRecord(url: string): Promise<OAuthClient | undefined> {
  const record = await getOAuthClient(url);
  return record?.registration === 'metadata-document' ? record : undefined;
}

/** A metadata-document client: refused when revoked; else its document's, with what its record keeps of its use. */
async function documentClientOf(url: string): Promise<OAuthClient> {
  const problem = documentUrlProblem(url);
  if (problem) throw new ClientDocumentRefused(problem);
  const record = await documentRecord(url);
  if (record?.revokedAt !== undefined) throw new ClientDocumentRefused(REVOKED_DOCUMENT);
  const client = await documentClient(url);
  if (!record) return client;
  const { id, createdAt, expiresAt, lastUsedAt, grants } = record;
  return { ...client, id, createdAt, ...(expiresAt !== undefined ? { expiresAt } : {}), ...(lastUsedAt !== undefined ? { lastUsedAt } : {}), ...(grants ? { grants } : {}) };
}

/**
 * The client a `client_id` names, or undefined; a metadata document that cannot be used (or whose
 * URL the operator revoked) throws `ClientDocumentRefused` (its message says why).
 */
export async function findClient(clientId: string): Promise<OAuthClient | undefined> {
  if (isDocumentClientId(clientId)) return documentClientOf(clientId);
  return clientId.length <= MAX_CLIENT_ID_LENGTH ? getOAuthClient(clientId) : undefined;
}

/**
 * Records a token exchange of an assistant's client (registered, or named by a metadata document):
 * it is kept `KEPT_AFTER_USE_SECONDS` from now, and a new grant is remembered; a metadata-document
 * client's first exchange creates its record. Other clients are left as they are. An exchange that
 * raced the client's revocation ends the grant it just started.
 */
export async function noteClientUse(client: OAuthClient, grant?: ClientGrant): Promise<void> {
  if (client.registration === undefined) return;
  const now = nowSeconds();
  const fresh = client.expiresAt !== undefined && client.expiresAt - now > KEPT_AFTER_USE_SECONDS - TOUCH_EVERY_SECONDS;
  if (fresh && !grant) return;
  const document = client.registration === 'metadata-document';
  const use = { lastUsedAt: now, expiresAt: now + KEPT_AFTER_USE_SECONDS };
  // A document's name and redirect URIs may change: the record shows the latest the service used.
  const described = document ? { name: client.name, redirectUris: client.redirectUris, grantTypes: client.grantTypes } : {};
  let revoked = false;
  const change = (current: OAuthClient): OAuthClient => {
    revoked = current.revokedAt !== undefined;
    if (revoked) return current;
    return { ...current, ...described, ...use, ...(grant ? { grants: [...(current.grants ?? []), grant].slice(-MAX_CLIENT_GRANTS) } : {}) };
  };
  if (document && client.expiresAt === undefined && (await recordFirstUse(client, use, grant))) return;
  // The exchange has already spent its code: a concurrent exchange of the same client (409) is
  // retried; a client deleted meanwhile (404: revoked) has nothing left to record.
  for (let attempt = 1; ; attempt += 1) {
    try {
      await changeOAuthClient(client.clientId, change);
      break;
    } catch (e) {
      if (isStatus(e, 404)) {
        revoked = true;
        break;
      }
      if (!isStatus(e, 409) || attempt === 3) throw e;
    }
  }
  if (revoked && grant) await revokeGrant(grant.grantId, grant.userId);
}

/** Stores a metadata-document client's first use; `false` when a record is there already (a concurrent first use, or one expired but not yet removed). */
async function recordFirstUse(client: OAuthClient, use: { lastUsedAt: number; expiresAt: number }, grant: ClientGrant | undefined): Promise<boolean> {
  try {
    await createOAuthClient({
      clientId: client.clientId,
      name: client.name,
      type: 'public',
      redirectUris: client.redirectUris,
      grantTypes: client.grantTypes,
      registration: 'metadata-document',
      ...use,
      ...(grant ? { grants: [grant] } : {}),
    });
    return true;
  } catch (e) {
    if (isStatus(e, 409)) return false;
    throw e;
  }
}

/** The assistants' clients: those registered that have not expired, and those named by a metadata document that were used or revoked, oldest first. */
export async function listRegisteredClients(): Promise<OAuthClient[]> {
  return (await listOAuthClients()).filter((c) => c.registration === 'dynamic' || c.registration === 'metadata-document');
}

export interface ClientRevocation {
  client: OAuthClient;
  /** The grants ended now. */
  grantsEnded: number;
  /** A metadata-document client revoked before (nothing changed). */
  already?: boolean;
}

/**
 * Revokes an assistant's client. A dynamically registered one is deleted (authorize and token
 * refuse it from now on); a metadata-document URL is marked revoked (its record kept without
 * expiry, created if the URL was never used here, so it is refused from now on too). Either way
 * every grant it remembers is revoked (their refresh tokens and access tokens refused). Undefined
 * for an unknown client, or a URL that cannot be a metadata document; other clients are not
 * revoked here.
 */
export async function revokeRegisteredClient(clientId: string): Promise<ClientRevocation | undefined> {
  if (isDocumentClientId(clientId)) return documentUrlProblem(clientId) === undefined ? revokeDocumentClient(clientId) : undefined;
  const client = await getOAuthClient(clientId);
  if (!client || client.registration !== 'dynamic') return undefined;
  await deleteOAuthClient(clientId);
  return { client, grantsEnded: await endGrants(client) };
}

async function endGrants(client: OAuthClient): Promise<number> {
  for (const grant of client.grants ?? []) await revokeGrant(grant.grantId, grant.userId);
  return client.grants?.length ?? 0;
}

async function revokeDocumentClient(url: string): Promise<ClientRevocation | undefined> {
  for (let attempt = 1; ; attempt += 1) {
    const now = nowSeconds();
    let before: OAuthClient | undefined;
    try {
      const after = await changeOAuthClient(url, (current) => {
        before = current;
        if (current.revokedAt !== undefined || current.registration !== 'metadata-document') return current;
        const { expiresAt: _kept, grants: _ended, ...rest } = current;
        return { ...rest, revokedAt: now };
      });
      if (before!.registration !== 'metadata-document') return undefined;
      if (before!.revokedAt !== undefined) return { client: after, grantsEnded: 0, already: true };
      return { client: after, grantsEnded: await endGrants(before!) };
    } catch (e) {
      if (isStatus(e, 409) && attempt < 3) continue;
      if (!isStatus(e, 404)) throw e;
    }
    // Never used here: its record is the revocation alone.
    try {
      const client = await createOAuthClient({ clientId: url, name: new URL(url).host, type: 'public', registration: 'metadata-document', revokedAt: now });
      return { client, grantsEnded: 0 };
    } catch (e) {
      if (!isStatus(e, 409) || attempt === 3) throw e;
    }
  }
}
