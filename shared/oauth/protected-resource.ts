/**
 * OAuth 2.0 Protected Resource Metadata (RFC 9728) of the service's protected resources, as the MCP
 * authorization spec asks of an MCP server: a client that gets a 401 from `/mcp` follows the
 * challenge's `resource_metadata` to this document, and from it to the authorization server (this
 * service's own, whose discovery is `discovery.ts`). Absolute URLs come from the site URL, the
 * tokens' issuer, never from the request's `Host`.
 */
import { config } from '../config';
import { PROTECTED_RESOURCE_PATH } from '../http/families';
import { oauthEndpoints } from './discovery';
import { SYSTEM_SCOPES_ADVERTISED } from './scopes';

/**
 * The scopes an assistant's client asks for: who the user is, and reading what they may see (a
 * patient's token gets `patient/*.rs`, a practitioner's `user/*.rs`: `grantedScope` keeps what fits
 * the account). The scopes describe the token; what a caller sees is decided by who they are.
 */
export const READ_SCOPES = ['openid', 'fhirUser', 'patient/*.rs', 'user/*.rs'] as const;

/** Where the metadata of the resource at `resourcePath` (`/mcp`) is published. */
export function protectedResourceMetadataUrl(resourcePath: string): string {
  return `${config().siteUrl}${PROTECTED_RESOURCE_PATH}${resourcePath}`;
}

/** The metadata of the resource at `resourcePath`. */
export function protectedResourceMetadata(resourcePath: string): Record<string, unknown> {
  return {
    resource: `${config().siteUrl}${resourcePath}`,
    authorization_servers: [oauthEndpoints().issuer],
    scopes_supported: [...READ_SCOPES, ...SYSTEM_SCOPES_ADVERTISED],
    bearer_methods_supported: ['header'],
  };
}

/** What a 401 of the resource adds to its `Bearer` challenge (RFC 9728 §5.1). */
export function resourceChallenge(resourcePath: string): Record<string, string> {
  return { resource_metadata: protectedResourceMetadataUrl(resourcePath), scope: READ_SCOPES.join(' ') };
}
