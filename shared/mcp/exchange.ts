/**
 * One MCP exchange through the SDK (see `http.ts`, which loads this on the first request), in the
 * era the request speaks, both on a new server for the caller:
 *
 * - 2026-07-28 (a request carrying the per-request `_meta` envelope): the SDK's `createMcpHandler`,
 *   modern only, which checks the `MCP-Protocol-Version`, `Mcp-Method` and `Mcp-Name` headers
 *   against the body, answers `server/discover` and every request without `initialize`;
 * - the 2025 revisions (everything else, `initialize` included): the SDK's Streamable HTTP
 *   transport, stateless, with JSON answers (the SDK's own stateless fallback would answer in SSE).
 *
 * Which is which is the SDK's own decision (`isLegacyRequest`, the step `createMcpHandler` routes
 * by), so the two can never disagree. The body was parsed (and its size and depth bounded) by the
 * family's middlewares: both take it as is.
 */
import { createMcpHandler, isJSONRPCRequest, isLegacyRequest, WebStandardStreamableHTTPServerTransport, type McpServer } from '@modelcontextprotocol/server';
import { readingPatientsOnce } from '../directory/read-once';
import type { AuthedRequest, HttpRequest } from '../http/request';
import type { HttpResponse } from '../http/response';
import { createMcpServer, TOOLS } from './server';

const TOOL_NAMES: ReadonlySet<string> = new Set(TOOLS.map((t) => t.name));
/** An MCP method's shape (`tools/call`, `notifications/initialized`): anything else is recorded as `other`. */
const METHOD_NAME = /^[a-z]+(\/[a-zA-Z]+){0,3}$/;

/** One MCP exchange (a message, a batch or a notification) as the request's caller. */
export async function exchange(req: AuthedRequest): Promise<HttpResponse> {
  recordAsked(req);
  const serverForCaller = () =>
    createMcpServer(req.caller, {
      onTouched: (patientIds) => req.audit.touched(patientIds),
      onError: (tool, error) => req.log.error('MCP tool failed', { tool, error: error instanceof Error ? error : String(error) }),
    });
  // The SDK's refusals (a wrong Accept, headers that disagree with the body, a message that is no JSON-RPC) are answered by it; the log says why.
  const refused = (error: Error) => req.log.info('MCP request refused', { error: error.message });
  const request = webRequestOf(req);
  const legacy = await isLegacyRequest(request, req.body);
  // The tools only read: a patient record their visibility check and their search both need is read once.
  const answer = await readingPatientsOnce(() => (legacy ? answerLegacy : answerModern)(request, req.body, serverForCaller, refused));
  return httpResponseOf(answer);
}

type Answer = (request: Request, body: unknown, serverForCaller: () => McpServer, refused: (error: Error) => void) => Promise<Response>;

/** 2026-07-28: the SDK's per-request entry, modern only (2025 traffic never reaches it). */
const answerModern: Answer = async (request, body, serverForCaller, refused) => {
  const handler = createMcpHandler(serverForCaller, { legacy: 'reject', onerror: refused });
  try {
    return await handler.fetch(request, body === undefined ? {} : { parsedBody: body });
  } finally {
    await handler.close();
  }
};

/** The 2025 revisions: `initialize` and every request answered statelessly, no session id, one JSON body. */
const answerLegacy: Answer = async (request, body, serverForCaller, refused) => {
  const server = serverForCaller();
  const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
  transport.onerror = refused;
  await server.connect(transport);
  try {
    return await transport.handleRequest(request, body === undefined ? {} : { parsedBody: body });
  } finally {
    await server.close();
  }
};

/** What the SDK reads of a request: its URL, method and headers (the token stays here). */
function webRequestOf(req: HttpRequest): Request {
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    if (name === 'authorization' || name === 'cookie') continue;
    try {
      headers.set(name, value);
    } catch {
      // A header the Fetch API refuses (an invalid value) is none the SDK reads.
    }
  }
  return new Request(`${req.origin}${req.path}`, { method: req.method, headers });
}

async function httpResponseOf(answer: Response): Promise<HttpResponse> {
  const text = await answer.text();
  const headers: Record<string, string> = {};
  answer.headers.forEach((value, name) => (headers[name] = value));
  return { status: answer.status, headers, ...(text ? { body: text } : {}) };
}

/** The audit trail's operations: each request's method, with the tool a call names (never its arguments). */
function recordAsked(req: AuthedRequest): void {
  const messages = Array.isArray(req.body) ? req.body : [req.body];
  for (const message of messages) {
    if (!isJSONRPCRequest(message)) continue;
    const method = METHOD_NAME.test(message.method) ? message.method : 'other';
    const tool = method === 'tools/call' ? (message.params as { name?: unknown } | undefined)?.name : undefined;
    req.audit.asked(tool === undefined ? method : `${method} ${typeof tool === 'string' && TOOL_NAMES.has(tool) ? tool : 'unknown'}`);
  }
}
