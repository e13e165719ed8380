/** Lambda of the `api` family: `/api/v1/*` and `/health`. */
import { authenticator } from '../../shared/auth/authenticate';
import { createHandler } from '../../shared/http/handler';
import { handlerBuilder } from '../../shared/stores';
import { apiRoutes } from './routes';

/** Every route this Lambda serves (the isolation matrix checks each has a row). */
export const routes = apiRoutes();

/** This family's handler, on the given stores or the installed ones (see `handlerBuilder`). */
export const buildHandler = handlerBuilder(() => createHandler({ family: 'api', routes, authenticator, needs: { backendServices: false } }));

export const handler = buildHandler();
