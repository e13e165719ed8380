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
 * The origins a browser page may call `/mcp` from: the service's own (the scheme, host and port of
 * the configured site URL: its own pages, and a local client sent to `http://localhost:8000`) and
 * those the operator lists. Compared exactly, as the transport spec's defence against DNS rebinding
 * asks: another port, `127.0.0.1` for `localhost` or `http` for `https` is another origin.
 */
export function allowedOrigins(): readonly string[] {
  const { siteUrl, mcpAllowedOrigins: listed } = config();
  const own = new URL(siteUrl).origin;
  return listed.includes(own) ? listed : [own, ...listed];
}

/**
 * A browser page may call `/mcp` only from an allowed origin (`allowedOrigins`): checked before
 * anyone is asked, so a page elsewhere learns nothing, not even 401.
 */
export function assertAllowedOrigin(req: HttpRequest): void {
  const origin = req.headers['origin'];
  if (origin === undefined || allowedOrigins().includes(origin)) return;
  throw originRefused();
}

export const originRefused = () =>
  forbidden("Requests from this Origin are not allowed: only the service's own origin and those the operator lists in MCP_ALLOWED_ORIGINS are.");

/**
 * CORS of `/mcp` for the allowed origins (docs/mcp.md#cors-on-mcp), the service's own included (a
 * page on the site calling `/mcp` there needs none, but harmless; one calling the API's own domain
 * does): the request headers MCP clients send (the 2025 revisions' protocol version and session
 * id, the 2026 revision's per-request `Mcp-Method` and `Mcp-Name`), and the answer headers a page
 * must read (the 401's challenge, a session id, the 429's `Retry-After`).
 */
export const MCP_CORS: OriginPolicy = {
  origins: allowedOrigins,
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
