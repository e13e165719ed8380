/** Lambda of the `oauth` family: `/o/*`, `/.well-known/*` and `/auth/callback`. */
import { authenticate } from '../../shared/auth/authenticate';
import { createHandler } from '../../shared/http/handler';
import { oauthRoutes } from './routes';

/** Every route this Lambda serves (the isolation matrix checks each has a row). */
export const routes = oauthRoutes();

export const handler = createHandler({ family: 'oauth', routes, authenticate });
