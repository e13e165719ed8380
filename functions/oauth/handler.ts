/** Lambda of the `oauth` family: `/o/*`, `/.well-known/*` and `/auth/callback`. */
import { authenticator } from '../../shared/auth/authenticate';
import { createHandler } from '../../shared/http/handler';
import { handlerBuilder } from '../../shared/stores';
import { oauthRoutes } from './routes';

/** Every route this Lambda serves (the isolation matrix checks each has a row). */
export const routes = oauthRoutes();

/** This family's handler, on the given stores or the installed ones (see `handlerBuilder`). */
export const buildHandler = handlerBuilder(() => createHandler({ family: 'oauth', routes, authenticator }));

export const handler = buildHandler();
