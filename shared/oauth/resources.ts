/**
 * Resource indicators (RFC 8707): the `resource` a client names at the authorization and token
 * endpoints, so that its token is good at that resource only (`/mcp`, or the FHIR and management
 * APIs; `shared/auth/claims.ts` names them). A code keeps the resource its authorization request
 * named and a grant its code's: the token requests after them may repeat it, never change it.
 */
import { resourceNamed, resourceUri, type TokenResource } from '../auth/claims';
import { oauthError } from './errors';

/** The resource a `resource` parameter names (`undefined` when there is none); `invalid_target` for anything this service does not serve. */
export function requestedResource(uri: string | undefined): TokenResource | undefined {
  if (uri === undefined) return undefined;
  const resource = resourceNamed(uri);
  if (resource === undefined) {
    throw oauthError('invalid_target', `The resource is not one of this service's: name ${resourceUri('mcp')} or ${resourceUri('service')}.`);
  }
  return resource;
}

/**
 * The resource of a token issued under a code or a grant: the one it was issued for. A request may
 * name it again (or leave it out); naming another is `invalid_target`, and changes nothing.
 */
export function keptResource(uri: string | undefined, kept: TokenResource | undefined, issuedAs: 'authorization code' | 'refresh token'): TokenResource | undefined {
  const asked = requestedResource(uri);
  if (asked !== undefined && asked !== (kept ?? 'service')) {
    throw oauthError('invalid_target', `The resource differs from the one the ${issuedAs} was issued for (${resourceUri(kept ?? 'service')}).`);
  }
  return kept;
}
