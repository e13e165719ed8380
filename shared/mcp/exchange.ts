/**
 * One MCP exchange through the SDK (see `http.ts`, which loads this on the first request): a new
 * server and transport for the caller, the body handed over as parsed, the answer carried back.
 */
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import { isJSONRPCRequest } from '@modelcontextprotocol/sdk/types.js';
import type { AuthedRequest, HttpRequest } from '../http/request';
import type { HttpResponse } from '../http/response';
import { createMcpServer, TOOLS } from './server';

const TOOL_NAMES: ReadonlySet<string> = new Set(TOOLS.map((t) => t.name));
/** An MCP method's shape (`tools/call`, `notifications/initialized`): anything else is recorded as `other`. */
const METHOD_NAME = /^[a-z]+(\/[a-zA-Z]+){0,3}$/;

/** One MCP exchange (a message, a batch or a notification) as the request's caller. */
export async function exchange(req: AuthedRequest): Promise<HttpResponse> {
  recordAsked(req);
  const server = createMcpServer(req.caller, {
    onTouched: (patientIds) => req.audit.touched(patientIds),
    onError: (tool, error) => req.log.error('MCP tool failed', { tool, error: error instanceof Error ? error : String(error) }),
  });
  const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
  // The transport's refusals (a wrong Accept, a message that is no JSON-RPC) are answered by it; the log says why.
  transport.onerror = (error) => req.log.info('MCP request refused', { error: error.message });
  await server.connect(transport);
  try {
    // The body was parsed (and its size and depth bounded) by the family's middlewares: the transport takes it as is.
    const answer = await transport.handleRequest(webRequestOf(req), req.body === undefined ? {} : { parsedBody: req.body });
    return await httpResponseOf(answer);
  } finally {
    await server.close();
  }
}

/** What the transport reads of a request: its URL, method and headers (the token stays here). */
function webRequestOf(req: HttpRequest): Request {
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    if (name === 'authorization' || name === 'cookie') continue;
    try {
      headers.set(name, value);
    } catch {
      // A header the Fetch API refuses (an invalid value) is none the transport reads.
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
