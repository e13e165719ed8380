/**
 * Discovery documents: OAuth 2.0 Authorization Server Metadata (RFC 8414,
 * `/.well-known/oauth-authorization-server`, where MCP clients look), OpenID Connect
 * (`/.well-known/openid-configuration`, also at the historical
 * `/o/.well-known/openid-configuration`), SMART App Launch 2 (`/.well-known/smart-configuration`,
 * also under each FHIR base), and the JWKS of the token-signing keys. All absolute URLs come from
 * the site-URL setting, which is also the token issuer.
 */
import { TOKEN_ALG } from '../auth/signing-key-provider';
import { signingKeys } from '../auth/signing-keys';
import { config } from '../config';
import { OAUTH_PATHS } from '../http/families';
import { ASSERTION_ALGORITHMS } from './client-keys';
import { SUPPORTED_SCOPES, SYSTEM_SCOPES_ADVERTISED } from './scopes';
import { S256 } from './pkce';

/** Discovery documents change only with a deployment. */
export const DISCOVERY_CACHE = { 'Cache-Control': 'public, max-age=300' };

/** The grants `/o/token/` answers. */
export const GRANT_TYPES = ['authorization_code', 'refresh_token', 'client_credentials'] as const;

export function oauthEndpoints() {
  const site = config().siteUrl;
  return {
    issuer: site,
    authorization_endpoint: `${site}${OAUTH_PATHS.authorize}`,
    token_endpoint: `${site}${OAUTH_PATHS.token}`,
    revocation_endpoint: `${site}${OAUTH_PATHS.revoke}`,
    jwks_uri: `${site}${OAUTH_PATHS.jwks}`,
    userinfo_endpoint: `${site}${OAUTH_PATHS.userinfo}`,
    registration_endpoint: `${site}${OAUTH_PATHS.register}`,
  };
}

const AUTH_METHODS = ['client_secret_basic', 'client_secret_post', 'private_key_jwt', 'none'];
/** The signatures a backend client's assertion (`private_key_jwt`) may carry. */
const AUTH_SIGNING_ALGS = [...ASSERTION_ALGORITHMS];
const SCOPES = [...SUPPORTED_SCOPES, ...SYSTEM_SCOPES_ADVERTISED];

/**
 * RFC 8414's metadata: PKCE with S256 only (required of every authorization request), and the
 * authorization response names its issuer (`iss`, RFC 9207), so a client talking to several servers
 * knows which one answered. Assistants' clients register themselves at `registration_endpoint`
 * (RFC 7591) or name their Client ID Metadata Document's URL as their `client_id`.
 */
export function authorizationServerMetadata(): Record<string, unknown> {
  return {
    ...oauthEndpoints(),
    response_types_supported: ['code'],
    response_modes_supported: ['query'],
    grant_types_supported: [...GRANT_TYPES],
    token_endpoint_auth_methods_supported: AUTH_METHODS,
    token_endpoint_auth_signing_alg_values_supported: AUTH_SIGNING_ALGS,
    revocation_endpoint_auth_methods_supported: AUTH_METHODS,
    revocation_endpoint_auth_signing_alg_values_supported: AUTH_SIGNING_ALGS,
    code_challenge_methods_supported: [S256],
    scopes_supported: SCOPES,
    authorization_response_iss_parameter_supported: true,
    client_id_metadata_document_supported: true,
  };
}

/** OpenID Connect discovery: RFC 8414's metadata and what OpenID Connect adds (id tokens, claims). */
export function openidConfiguration(): Record<string, unknown> {
  return {
    ...authorizationServerMetadata(),
    subject_types_supported: ['public'],
    id_token_signing_alg_values_supported: [TOKEN_ALG],
    claims_supported: ['sub', 'iss', 'aud', 'exp', 'iat', 'nonce', 'email', 'name', 'given_name', 'family_name', 'fhirUser'],
  };
}

export function smartConfiguration(): Record<string, unknown> {
  const endpoints = oauthEndpoints();
  return {
    issuer: endpoints.issuer,
    jwks_uri: endpoints.jwks_uri,
    authorization_endpoint: endpoints.authorization_endpoint,
    token_endpoint: endpoints.token_endpoint,
    revocation_endpoint: endpoints.revocation_endpoint,
    userinfo_endpoint: endpoints.userinfo_endpoint,
    grant_types_supported: [...GRANT_TYPES],
    token_endpoint_auth_methods_supported: AUTH_METHODS,
    token_endpoint_auth_signing_alg_values_supported: AUTH_SIGNING_ALGS,
    scopes_supported: SCOPES,
    response_types_supported: ['code'],
    code_challenge_methods_supported: [S256],
    authorization_response_iss_parameter_supported: true,
    capabilities: [
      'launch-standalone',
      'client-public',
      'client-confidential-symmetric',
      'client-confidential-asymmetric',
      'context-standalone-patient',
      'permission-patient',
      'permission-user',
      'permission-offline',
      'permission-v2',
      'sso-openid-connect',
    ],
  };
}

export async function jwks(): Promise<{ keys: unknown[] }> {
  return { keys: (await (await signingKeys()).verificationKeys()).map((k) => k.jwk) };
}
