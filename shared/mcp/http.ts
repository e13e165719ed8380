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
  throw forbidden('Requests from this Origin are not allowed: the operator lists the allowed ones in MCP_ALLOWED_ORIGINS.');
}

let exchangeModule: Promise<typeof import('./exchange')> | undefined;

/** One MCP exchange (a message, a batch or a notification) as the request's caller. */
export async function answerMcp(req: AuthedRequest): Promise<HttpResponse> {
  exchangeModule ??= import('./exchange');
  return (await exchangeModule).exchange(req);
}
