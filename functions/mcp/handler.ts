/** Lambda of the `mcp` family: `/mcp` (the assistants' tools) and its protected resource metadata. */
import { authenticator } from '../../shared/auth/authenticate';
import { createHandler } from '../../shared/http/handler';
import { handlerBuilder } from '../../shared/stores';
import { mcpRoutes } from './routes';

/** Every route this Lambda serves (the isolation matrix checks each has a row). */
export const routes = mcpRoutes();

/** This family's handler, on the given stores or the installed ones (see `handlerBuilder`). */
export const buildHandler = handlerBuilder(() => createHandler({ family: 'mcp', routes, authenticator }));

export const handler = buildHandler();
