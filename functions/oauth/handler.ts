/** Lambda of the `oauth` family: `/o/*`, `/.well-known/*` and `/auth/callback`. */
import { authenticator } from '../../shared/auth/authenticate';
import { createHandler } from '../../shared/http/handler';
import { handlerBuilder } from '../../shared/stores';
import { oauthRoutes } from './routes';

/** Every route this Lambda serves (the isolation matrix checks each has a row). */
export const routes = oauthRoutes();

/**
 * This family's handler, on the given stores or the installed ones (see `handlerBuilder`). Its one
 * authenticated route, userinfo, is the authorization server's own: it answers a token of any of
 * the service's resources who the token is.
 */
export const buildHandler = handlerBuilder(() => createHandler({ family: 'oauth', routes, authenticator, needs: { resource: 'any' } }));

export const handler = buildHandler();
