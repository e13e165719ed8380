/** Lambda of the `mcp` family: `/mcp` (the assistants' tools) and its protected resource metadata. */
import { authenticator } from '../../shared/auth/authenticate';
import { createHandler } from '../../shared/http/handler';
import { handlerBuilder } from '../../shared/stores';
import { mcpRoutes } from './routes';

/** Every route this Lambda serves (the isolation matrix checks each has a row). */
export const routes = mcpRoutes();

/**
 * This family's handler, on the given stores or the installed ones (see `handlerBuilder`). `/mcp`
 * takes only tokens issued for it (RFC 8707, `resource=<site>/mcp`); the other families take none of them.
 */
export const buildHandler = handlerBuilder(() => createHandler({ family: 'mcp', routes, authenticator, needs: { resource: 'mcp' } }));

export const handler = buildHandler();
