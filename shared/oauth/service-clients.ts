/**
 * The service's own OAuth clients, which exist wherever the service runs: the patient portal (the
 * app invitations are issued for) and the web sign-in of the landing page. Both are public clients
 * (PKCE) whose redirect URI is the service's own `/auth/callback` ([docs/access.md](docs/access.md#the-oauth-20-server-sharedoauth-functionsoauth)). They are created on
 * first use by each process (the demo seed locally, the first request of a cold Lambda on AWS), and
 * their redirect URIs are stored relative, so they follow the site-URL setting.
 */
import { isHttpError } from '../http/errors';
import { config } from '../config';
import { createOAuthClient, getOAuthClient, type OAuthClientInput } from '../directory/oauth-clients';
import type { OAuthClient } from '../directory/model';

export const PORTAL_CLIENT_ID = 'cdx-portal';
export const WEB_CLIENT_ID = 'cdx-web';
export const CALLBACK_PATH = '/auth/callback';
/** The portal's connect page; `CODE` is replaced by the URL-encoded invitation code. */
export const PORTAL_INVITATION_URL = '/clients/portal/?code=CODE';

export const SERVICE_CLIENTS: readonly (OAuthClientInput & { clientId: string })[] = [
  {
    clientId: PORTAL_CLIENT_ID,
    name: 'Patient portal',
    type: 'public',
    redirectUris: [CALLBACK_PATH],
    grantTypes: ['authorization_code', 'refresh_token'],
    invitationUrl: PORTAL_INVITATION_URL,
  },
  {
    clientId: WEB_CLIENT_ID,
    name: 'Clinical Data Exchange',
    type: 'public',
    redirectUris: [CALLBACK_PATH],
    grantTypes: ['authorization_code', 'refresh_token'],
  },
];

let ensured: { table: string; done: Promise<void> } | undefined;

async function ensureOne(input: OAuthClientInput & { clientId: string }): Promise<void> {
  if (await getOAuthClient(input.clientId)) return;
  try {
    await createOAuthClient(input);
  } catch (e) {
    // Another process created it first.
    if (!(isHttpError(e) && e.status === 409)) throw e;
  }
}

/** Creates the service's clients where they are missing; once per process and table. */
export function ensureServiceClients(): Promise<void> {
  const table = config().directoryTable;
  if (ensured?.table !== table) {
    const done = Promise.all(SERVICE_CLIENTS.map(ensureOne)).then(() => undefined);
    ensured = { table, done };
    done.catch(() => {
      if (ensured?.done === done) ensured = undefined;
    });
  }
  return ensured.done;
}

/** A URI as stored on a client, made absolute: a path means "on this service's site". */
export function absoluteUri(stored: string): string {
  return stored.startsWith('/') ? `${config().siteUrl}${stored}` : stored;
}

/** The client's redirect URIs, absolute, in registration order. */
export function redirectUrisOf(client: OAuthClient): string[] {
  return client.redirectUris.map(absoluteUri);
}

/** A loopback `http` URI with its port taken out (else the URI as it is): the text two such URIs must share. */
const LOOPBACK_PORT = /^(http:\/\/(?:127\.0\.0\.1|\[::1\]|localhost))(?::\d{1,5})?(?=[/?]|$)/;
const withoutLoopbackPort = (uri: string): string => uri.replace(LOOPBACK_PORT, '$1');

/**
 * Whether `uri` is registered for the client, byte for byte (no normalisation of any kind), except
 * that a loopback `http` redirect URI matches on any port (RFC 8252 §7.3: a native app listens on
 * whatever port it got).
 */
export function isRegisteredRedirectUri(client: OAuthClient, uri: string): boolean {
  const registered = redirectUrisOf(client);
  if (registered.includes(uri)) return true;
  if (!LOOPBACK_PORT.test(uri)) return false;
  const portless = withoutLoopbackPort(uri);
  return registered.some((r) => LOOPBACK_PORT.test(r) && withoutLoopbackPort(r) === portless);
}
