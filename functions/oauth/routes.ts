/** Routes of the `oauth` family: `/o/*`, `/.well-known/*` and `/auth/callback`. */
import { getUser } from '../../shared/directory/users';
import { unauthorized } from '../../shared/http/errors';
import { json, type HttpResponse } from '../../shared/http/response';
import type { AuthedRequest } from '../../shared/http/request';
import type { Route, RouteAccess } from '../../shared/http/router';
import { OAUTH_PATHS } from '../../shared/http/families';
import { authorizationServerMetadata, DISCOVERY_CACHE, jwks, openidConfiguration, smartConfiguration } from '../../shared/oauth/discovery';
import { formParams } from '../../shared/oauth/form';
import { callbackPage } from '../../shared/oauth/pages';
import { registerClient } from '../../shared/oauth/registration';
import { handleRevocationRequest } from '../../shared/oauth/revocation';
import { handleTokenRequest } from '../../shared/oauth/token-endpoint';
import { fhirUserOf } from '../../shared/oauth/token-response';
import { showSignIn, submitSignIn } from './authorize';
import { signInToConnections, showConnections, signOutOfConnections, withdrawConnection } from './connections';
import { submitConsent } from './consent';
import { showPasswordForm, submitPassword } from './password';
import { PASSWORD_PATH } from '../../shared/oauth/pages';
import { CONNECTIONS_PATH, CONSENT_PATH, SIGN_OUT_PATH, WITHDRAW_PATH } from '../../shared/oauth/consent-pages';
import { corsRoutes } from '../../shared/http/cors';

const NO_STORE = { 'Cache-Control': 'no-store', Pragma: 'no-cache' };

const discovery = (document: () => unknown | Promise<unknown>): RouteAccess => ({ auth: 'none', handler: async () => json(200, await document(), DISCOVERY_CACHE) });

async function userinfo(req: AuthedRequest): Promise<HttpResponse> {
  const { caller } = req;
  const user = await getUser(caller.userId);
  if (!user) throw unauthorized('The access token is invalid or expired.');
  // OpenID Connect: claims by the token's scopes; who the user is in FHIR terms always.
  const scopes = new Set(caller.scopes);
  return json(
    200,
    {
      sub: String(user.id),
      fhirUser: fhirUserOf(user),
      ...(caller.kind === 'patient' ? { patient: String(caller.patientId) } : {}),
      ...(scopes.has('email') ? { email: user.email } : {}),
      ...(scopes.has('profile') ? { name: `${user.nameGiven} ${user.nameFamily}`.trim() } : {}),
    },
    NO_STORE,
  );
}

export function oauthRoutes(): Route[] {
  return [
    ...corsRoutes(OAUTH_PATHS.token, { POST: { auth: 'none', handler: async (req) => json(200, await handleTokenRequest(req.headers, formParams(req)), NO_STORE) } }),
    ...corsRoutes(OAUTH_PATHS.revoke, {
      POST: {
        auth: 'none',
        handler: async (req) => {
          await handleRevocationRequest(req.headers, formParams(req));
          return { status: 200, headers: NO_STORE };
        },
      },
    }),
    ...corsRoutes(OAUTH_PATHS.register, { POST: { auth: 'none', handler: async (req) => json(201, await registerClient(req), NO_STORE) } }),
    ...corsRoutes(OAUTH_PATHS.userinfo, { GET: { auth: 'caller', handler: userinfo } }),
    ...corsRoutes('/.well-known/oauth-authorization-server', { GET: discovery(authorizationServerMetadata) }),
    ...corsRoutes('/.well-known/openid-configuration', { GET: discovery(openidConfiguration) }),
    ...corsRoutes('/o/.well-known/openid-configuration', { GET: discovery(openidConfiguration) }),
    ...corsRoutes('/.well-known/smart-configuration', { GET: discovery(smartConfiguration) }),
    ...corsRoutes(OAUTH_PATHS.jwks, { GET: discovery(jwks) }),
    { method: 'GET', path: OAUTH_PATHS.authorize, auth: 'none', handler: showSignIn },
    { method: 'POST', path: OAUTH_PATHS.authorize, auth: 'none', handler: submitSignIn },
    { method: 'POST', path: CONSENT_PATH, auth: 'none', handler: submitConsent },
    { method: 'GET', path: CONNECTIONS_PATH, auth: 'none', handler: showConnections },
    { method: 'POST', path: CONNECTIONS_PATH, auth: 'none', handler: signInToConnections },
    { method: 'POST', path: WITHDRAW_PATH, auth: 'none', handler: withdrawConnection },
    { method: 'POST', path: SIGN_OUT_PATH, auth: 'none', handler: signOutOfConnections },
    { method: 'GET', path: PASSWORD_PATH, auth: 'none', handler: showPasswordForm },
    { method: 'POST', path: PASSWORD_PATH, auth: 'none', handler: submitPassword },
    { method: 'GET', path: '/auth/callback', auth: 'none', handler: async () => callbackPage() },
  ];
}
