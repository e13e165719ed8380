/** Lambda of the `oauth` family: `/o/*`, `/.well-known/*` and `/auth/callback`. */
import { createHandler } from '../../shared/http/handler';
import { oauthRoutes } from './routes';

export const handler = createHandler({ family: 'oauth', routes: oauthRoutes() });
