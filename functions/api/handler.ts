/** Lambda of the `api` family: `/api/v1/*` and `/health`. */
import { authenticate } from '../../shared/auth/authenticate';
import { createHandler } from '../../shared/http/handler';
import { apiRoutes } from './routes';

/** Every route this Lambda serves (the isolation matrix checks each has a row). */
export const routes = apiRoutes();

export const handler = createHandler({ family: 'api', routes, authenticate });
