/**
 * The assistants' endpoint, `POST /mcp`: the server of `server.ts` behind the SDK's own Streamable
 * HTTP transport, in its web-standard form (`Request` in, `Response` out) since a Lambda gets an
 * event, not a Node socket. Stateless: a new server and transport per request, for the caller the
 * dispatcher authenticated, so any instance answers any request; no session id, no SSE stream (JSON
 * answers), hence no `GET` or `DELETE` (the router's 405). The SDK writes every JSON-RPC message,
 * its errors included; this file only carries them. The SDK, the tools and their schemas are a chunk
 * loaded on the first exchange (`exchange.ts`), not at the function's start: with them the cold
 * start would pass 1 MB (`npm run bench -- cold-start`).
 */
import { config } from '../config';
import type { OriginPolicy } from '../http/cors';
import { forbidden } from '../http/errors';
import type { AuthedRequest, HttpRequest } from '../http/request';
import type { HttpResponse } from '../http/response';

/**
 * A browser page may call `/mcp` only from a configured origin (the transport spec's defence against
 * DNS rebinding): checked before anyone is asked, so a page elsewhere learns nothing, not even 401.
 */
export function assertAllowedOrigin(req: HttpRequest): void {
  const origin = req.headers['origin'];
  if (origin === undefined || config().mcpAllowedOrigins.includes(origin)) return;
  throw originRefused();
}

export const originRefused = () => forbidden('Requests from this Origin are not allowed: the operator lists the allowed ones in MCP_ALLOWED_ORIGINS.');

/**
 * CORS of `/mcp` for the allowed origins (docs/mcp.md#cors-on-mcp): the request headers MCP clients
 * send (the 2025 revisions' protocol version and session id, the 2026 revision's per-request
 * `Mcp-Method` and `Mcp-Name`), and the answer headers a page must read (the 401's challenge, a
 * session id, the 429's `Retry-After`).
 */
export const MCP_CORS: OriginPolicy = {
  origins: () => config().mcpAllowedOrigins,
  refusal: originRefused,
  allowHeaders: ['Authorization', 'Content-Type', 'Accept', 'Mcp-Protocol-Version', 'Mcp-Session-Id', 'Mcp-Method', 'Mcp-Name', 'Last-Event-ID'],
  exposeHeaders: ['WWW-Authenticate', 'Mcp-Session-Id', 'Retry-After'],
};

let exchangeModule: Promise<typeof import('./exchange')> | undefined;

/** One MCP exchange (a message, a batch or a notification) as the request's caller. */
export async function answerMcp(req: AuthedRequest): Promise<HttpResponse> {
  exchangeModule ??= import('./exchange');
  return (await exchangeModule).exchange(req);
}
