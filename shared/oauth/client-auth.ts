/**
 * Who is calling the token and revocation endpoints (RFC 6749 §2.3): a confidential client by HTTP
 * Basic (`client_secret_basic`) or by `client_id` + `client_secret` in the form
 * (`client_secret_post`), never both; a backend client by a signed assertion (`private_key_jwt`,
 * `client-assertion.ts`), with no other credentials; a public client by its `client_id` alone.
 */
import { secretMatches } from '../secrets';
import type { OAuthClient } from '../directory/model';
import { CLIENT_ASSERTION_TYPE, verifyClientAssertion, type VerifiedAssertion } from './client-assertion';
import { ClientDocumentRefused, findClient } from './clients';
import { oauthEndpoints } from './discovery';
import { oauthError } from './errors';
import { required, type Params } from './form';

export type ClientAuthMethod = 'client_secret_basic' | 'client_secret_post' | 'private_key_jwt' | 'none';

export interface AuthenticatedClient {
  client: OAuthClient;
  method: ClientAuthMethod;
  /** With `private_key_jwt`: the assertion, whose `jti` the endpoint spends once it grants the request (`spendAssertion`). */
  assertion?: VerifiedAssertion;
}

const BASIC = /^Basic[ ]+([A-Za-z0-9+/]+={0,2})\s*$/i;

function decodeComponent(text: string): string {
  try {
    return decodeURIComponent(text.replace(/\+/g, ' '));
  } catch {
    throw oauthError('invalid_request', 'The Basic credentials are not valid form-encoded text.');
  }
}

/** `client_id` and secret from `Authorization: Basic`, if the header is there. */
function basicCredentials(header: string | undefined): { clientId: string; secret: string } | undefined {
  if (header === undefined) return undefined;
  const match = BASIC.exec(header);
  if (!match) throw oauthError('invalid_client', 'The Authorization header is not valid Basic credentials.', { headers: { 'WWW-Authenticate': 'Basic realm="cdx"' } });
  const text = Buffer.from(match[1]!, 'base64').toString('utf8');
  const colon = text.indexOf(':');
  if (colon < 0) throw oauthError('invalid_client', 'The Basic credentials have no secret.', { headers: { 'WWW-Authenticate': 'Basic realm="cdx"' } });
  return { clientId: decodeComponent(text.slice(0, colon)), secret: decodeComponent(text.slice(colon + 1)) };
}

/** A backend client by its signed assertion; any other credential beside it is a 400. */
async function assertedClient(headers: Readonly<Record<string, string>>, params: Params): Promise<AuthenticatedClient> {
  if (headers['authorization'] !== undefined || params.client_secret !== undefined) {
    throw oauthError('invalid_request', 'Use one way of client authentication: a client assertion, or a secret, not both.');
  }
  const type = required(params, 'client_assertion_type');
  if (type !== CLIENT_ASSERTION_TYPE) throw oauthError('invalid_client', `Client authentication failed: the client_assertion_type must be ${CLIENT_ASSERTION_TYPE}.`);
  const verified = await verifyClientAssertion(required(params, 'client_assertion'), params.client_id, oauthEndpoints().token_endpoint);
  return { ...verified, method: 'private_key_jwt' };
}

export async function authenticateClient(headers: Readonly<Record<string, string>>, params: Params): Promise<AuthenticatedClient> {
  if (params.client_assertion !== undefined || params.client_assertion_type !== undefined) return assertedClient(headers, params);
  const basic = basicCredentials(headers['authorization']);
  if (basic && params.client_secret !== undefined) throw oauthError('invalid_request', 'Use one way of client authentication, not Basic and client_secret both.');
  if (basic && params.client_id !== undefined && params.client_id !== basic.clientId) {
    throw oauthError('invalid_request', 'The client_id differs from the one in the Basic credentials.');
  }
  const clientId = basic?.clientId ?? params.client_id;
  if (clientId === undefined) throw oauthError('invalid_request', 'The parameter client_id is required.');
  const secret = basic?.secret ?? params.client_secret;
  const method: ClientAuthMethod = basic ? 'client_secret_basic' : secret !== undefined ? 'client_secret_post' : 'none';
  const refuse = (why: string) => oauthError('invalid_client', why, basic ? { headers: { 'WWW-Authenticate': 'Basic realm="cdx"' } } : {});

  const client = await findClient(clientId).catch((e: unknown) => {
    throw e instanceof ClientDocumentRefused ? refuse(`Client authentication failed: ${e.message}`) : e;
  });
  if (!client) throw refuse('Client authentication failed: unknown client.');
  if (client.type === 'confidential') {
    if (secret === undefined || !secretMatches(secret, client.secretHash)) throw refuse('Client authentication failed.');
  } else if (secret !== undefined) {
    throw refuse('This client is public: it has no secret to authenticate with.');
  }
  return { client, method };
}
