/** Routes of the `oauth` family: `/o/*`, `/.well-known/*` and `/auth/callback`. */
import { authenticate } from '../../shared/auth/authenticate';
import { getUser } from '../../shared/directory/users';
import { unauthorized } from '../../shared/http/errors';
import { json, type HttpResponse } from '../../shared/http/response';
import type { Route } from '../../shared/http/router';
import { OAUTH_PATHS } from '../../shared/http/families';
import { DISCOVERY_CACHE, jwks, openidConfiguration, smartConfiguration } from '../../shared/oauth/discovery';
import { formParams } from '../../shared/oauth/form';
import { callbackPage } from '../../shared/oauth/pages';
import { handleRevocationRequest } from '../../shared/oauth/revocation';
import { handleTokenRequest } from '../../shared/oauth/token-endpoint';
import { fhirUserOf } from '../../shared/oauth/token-response';
import { showSignIn, submitSignIn } from './authorize';
import { corsRoutes } from '../../shared/http/cors';

const NO_STORE = { 'Cache-Control': 'no-store', Pragma: 'no-cache' };

const discovery = (document: () => unknown | Promise<unknown>) => async (): Promise<HttpResponse> => json(200, await document(), DISCOVERY_CACHE);

export function oauthRoutes(): Route[] {
  return [
    ...corsRoutes(OAUTH_PATHS.token, { POST: async (req) => json(200, await handleTokenRequest(req.headers, formParams(req)), NO_STORE) }),
    ...corsRoutes(OAUTH_PATHS.revoke, {
      POST: async (req) => {
        await handleRevocationRequest(req.headers, formParams(req));
        return { status: 200, headers: NO_STORE };
      },
    }),
    ...corsRoutes(OAUTH_PATHS.userinfo, {
      GET: async (req) => {
        const caller = await authenticate(req);
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
      },
    }),
    ...corsRoutes('/.well-known/openid-configuration', { GET: discovery(openidConfiguration) }),
    ...corsRoutes('/o/.well-known/openid-configuration', { GET: discovery(openidConfiguration) }),
    ...corsRoutes('/.well-known/smart-configuration', { GET: discovery(smartConfiguration) }),
    ...corsRoutes(OAUTH_PATHS.jwks, { GET: discovery(jwks) }),
    { method: 'GET', path: OAUTH_PATHS.authorize, handler: showSignIn },
    { method: 'POST', path: OAUTH_PATHS.authorize, handler: submitSignIn },
    { method: 'GET', path: '/auth/callback', handler: async () => callbackPage() },
  ];
}
