/** Lambda of the `oauth` family: `/o/*`, `/.well-known/*` and `/auth/callback`. */
import { createHandler } from '../../shared/http/handler';

export const handler = createHandler({ family: 'oauth', routes: [] });
