/** Routes of the `mcp` family: `POST /mcp` and its protected resource metadata (docs/mcp.md). */
import { corsRoutes, originCorsRoutes } from '../../shared/http/cors';
import { MCP_PATH, PROTECTED_RESOURCE_PATH } from '../../shared/http/families';
import { json } from '../../shared/http/response';
import type { Route } from '../../shared/http/router';
import { answerMcp, assertAllowedOrigin, MCP_CORS } from '../../shared/mcp/http';
import { rateLimited } from '../../shared/mcp/rate-limit';
import { DISCOVERY_CACHE } from '../../shared/oauth/discovery';
import { protectedResourceMetadata, resourceChallenge } from '../../shared/oauth/protected-resource';

export function mcpRoutes(): Route[] {
  return [
    ...originCorsRoutes(
      MCP_PATH,
      {
        POST: {
          // A foreign Origin is refused before anyone is asked; then any caller, with a token issued
          // for /mcp (handler.ts), within its client's rate limit.
          auth: 'per-request',
          choose: (req) => {
            assertAllowedOrigin(req);
            return { auth: 'caller', handler: rateLimited(answerMcp) };
          },
          // A client without a token learns from the 401 where to get one (RFC 9728, the MCP authorization spec).
          challenge: () => resourceChallenge(MCP_PATH),
        },
      },
      MCP_CORS,
    ),
    ...corsRoutes(`${PROTECTED_RESOURCE_PATH}${MCP_PATH}`, {
      GET: { auth: 'none', handler: async () => json(200, protectedResourceMetadata(MCP_PATH), DISCOVERY_CACHE) },
    }),
  ];
}
