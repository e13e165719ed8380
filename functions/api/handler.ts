/** Lambda of the `api` family: `/api/v1/*` and `/health`. */
import { createHandler } from '../../shared/http/handler';
import { apiRoutes } from './routes';

export const handler = createHandler({ family: 'api', routes: apiRoutes() });
