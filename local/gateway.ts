/**
 * The local front door on one port, as CloudFront + API Gateway are on AWS: API paths become
 * payload v2 events for the family's Lambda handler; every other path is a portal file, rewritten
 * by the same viewer-request function CloudFront runs.
 */
import { createReadStream, statSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { extname, join, normalize, resolve, sep } from 'node:path';
import type { LambdaHandler } from '../shared/http/handler';
import { familyForPath, isApiPath, type Family } from '../shared/http/families';
import { CONTENT_TYPES, SECURITY_HEADERS, staticSiteHeaders, VIEWER_REQUEST_FUNCTION } from '../shared/http/static-site';
import { connectSources, PORTAL_CONFIG_FILE, type PortalConfig } from '../shared/portal/config';
import type { APIGatewayProxyResultV2 } from 'aws-lambda';
import { config } from '../shared/config';
import { HttpError } from '../shared/http/errors';
import { dialectOf } from '../shared/http/families';
import { renderError } from '../shared/http/middleware/error-renderer';
import { toLambdaResult } from '../shared/http/response';
import { fromResult, toEvent } from './api-gateway-event';
import { callerKey, RateLimiter, type RateLimit } from './rate-limit';
import { invokeLambda } from './lambda-invoke';
import { FUNCTION_TIMEOUT_MS } from '../shared/http/deadline';

/** API Gateway refuses larger payloads before any Lambda runs. */
const API_GATEWAY_MAX_BODY = 10 * 1024 * 1024;

export interface GatewayOptions {
  handlers: Readonly<Record<Family, LambdaHandler>>;
  /** The built site (`scripts/portal-site.ts`). */
  staticDir: string;
  /** The portal's launch configuration, served as `/clients/portal/config.json` (as the stack deploys it). */
  portal?: PortalConfig;
  port: number;
  host?: string;
  /** Per-caller rate limit; default `config().rateLimit` (RATE_LIMIT_PER_SECOND, RATE_LIMIT_BURST). */
  rateLimit?: RateLimit;
  /** Each invocation's time limit, as the stack sets it on the functions; default FUNCTION_TIMEOUT_SECONDS, else 29 s. */
  functionTimeoutMs?: number;
}

/** `FUNCTION_TIMEOUT_SECONDS` (1 to 900, Lambda's own bounds), else the stack's limit. */
export function localFunctionTimeoutMs(env: NodeJS.ProcessEnv = process.env): number {
  const raw = env.FUNCTION_TIMEOUT_SECONDS;
  if (raw === undefined || raw === '') return FUNCTION_TIMEOUT_MS;
  const seconds = Number(raw);
  if (!Number.isFinite(seconds) || seconds < 1 || seconds > 900) throw new Error(`FUNCTION_TIMEOUT_SECONDS must be a number of seconds from 1 to 900, not '${raw}'.`);
  return seconds * 1000;
}

export interface Gateway {
  url: string;
  port: number;
  server: Server;
  close(): Promise<void>;
}

const viewerRequest = new Function('event', `${VIEWER_REQUEST_FUNCTION}\nreturn handler(event);`) as (event: {
  request: { uri: string };
}) => { uri: string };

function readBody(req: IncomingMessage): Promise<Buffer | undefined> {
  return new Promise((done, fail) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let tooLarge = false;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > API_GATEWAY_MAX_BODY) tooLarge = true;
      else chunks.push(chunk);
    });
    req.on('end', () => done(tooLarge ? undefined : Buffer.concat(chunks)));
    req.on('error', fail);
  });
}

function send(res: ServerResponse, status: number, headers: Record<string, string>, body: Buffer | string, cookies: string[] = []) {
  res.statusCode = status;
  for (const [k, v] of Object.entries({ ...SECURITY_HEADERS, ...headers })) res.setHeader(k, v);
  if (cookies.length > 0) res.setHeader('set-cookie', cookies);
  res.end(body);
}

async function serveApi(req: IncomingMessage, res: ServerResponse, handlers: GatewayOptions['handlers'], limiter: RateLimiter, timeoutMs: number) {
  const body = await readBody(req);
  if (body === undefined) {
    return send(res, 413, { 'content-type': 'application/json' }, JSON.stringify({ message: 'Request Entity Too Large' }));
  }
  const url = req.url ?? '/';
  const verdict = limiter.take(callerKey(req));
  if (!verdict.allowed) return sendResult(res, tooManyRequests(url.split('?')[0]!, limiter.limit, verdict.retryAfterSeconds));
  const family = familyForPath(url.split('?')[0]!);
  const event = toEvent({
    method: req.method ?? 'GET',
    url,
    headers: req.headers,
    body,
    sourceIp: req.socket.remoteAddress ?? '127.0.0.1',
  });
  try {
    sendResult(res, await invokeLambda(handlers[family], event, family, timeoutMs));
  } catch {
    // What API Gateway answers when the integration fails.
    send(res, 500, { 'content-type': 'application/json' }, JSON.stringify({ message: 'Internal Server Error' }));
  }
}

function sendResult(res: ServerResponse, result: APIGatewayProxyResultV2) {
  const out = fromResult(result);
  send(res, out.status, out.headers, out.body, out.cookies);
}

/** The 429 of a caller over its rate, in the dialect of the path it asked for. */
function tooManyRequests(path: string, limit: RateLimit, retryAfterSeconds: number): APIGatewayProxyResultV2 {
  const message = `Too many requests: at most ${limit.perSecond} a second per caller (bursts of ${limit.burst}). Retry after ${retryAfterSeconds} s.`;
  const error = new HttpError(429, message, 'throttled', { headers: { 'Retry-After': String(retryAfterSeconds) } });
  return toLambdaResult(renderError(error, dialectOf(path)));
}

interface StaticSite {
  root: string;
  /** Security headers of every page, the Content-Security-Policy included. */
  headers: Record<string, string>;
  /** Files generated from settings, by path. */
  generated: Map<string, string>;
}

function serveStatic(req: IncomingMessage, res: ServerResponse, site: StaticSite) {
  const { root } = site;
  if (req.method !== 'GET' && req.method !== 'HEAD') {
    return send(res, 405, { 'content-type': 'text/plain; charset=utf-8', allow: 'GET, HEAD' }, 'Method Not Allowed');
  }
  const rawPath = (req.url ?? '/').split('?')[0]!;
  let decoded: string;
  try {
    decoded = decodeURIComponent(rawPath);
  } catch {
    return send(res, 400, { 'content-type': 'text/plain; charset=utf-8' }, 'Bad Request');
  }
  const uri = viewerRequest({ request: { uri: decoded } }).uri;
  const generated = site.generated.get(uri);
  if (generated !== undefined) {
    res.statusCode = 200;
    for (const [k, v] of Object.entries(site.headers)) res.setHeader(k, v);
    res.setHeader('content-type', CONTENT_TYPES[extname(uri)] ?? 'application/octet-stream');
    res.setHeader('cache-control', 'no-cache');
    return res.end(req.method === 'HEAD' ? undefined : generated);
  }
  const file = normalize(join(root, uri));
  if (!file.startsWith(root + sep)) return send(res, 404, { 'content-type': 'text/plain; charset=utf-8' }, 'Not Found');
  let size: number;
  try {
    const stat = statSync(file);
    if (!stat.isFile()) throw new Error('not a file');
    size = stat.size;
  } catch {
    return send(res, 404, { 'content-type': 'text/plain; charset=utf-8' }, 'Not Found');
  }
  res.statusCode = 200;
  for (const [k, v] of Object.entries(site.headers)) res.setHeader(k, v);
  res.setHeader('content-type', CONTENT_TYPES[extname(file)] ?? 'application/octet-stream');
  res.setHeader('content-length', String(size));
  res.setHeader('cache-control', 'no-cache');
  if (req.method === 'HEAD') return res.end();
  createReadStream(file).pipe(res);
}

export async function startGateway(options: GatewayOptions): Promise<Gateway> {
  const site: StaticSite = {
    root: resolve(options.staticDir),
    headers: staticSiteHeaders(connectSources(options.portal)),
    generated: new Map(options.portal ? [[`/${PORTAL_CONFIG_FILE}`, JSON.stringify(options.portal)]] : []),
  };
  const limiter = new RateLimiter(options.rateLimit ?? config().rateLimit);
  const timeoutMs = options.functionTimeoutMs ?? localFunctionTimeoutMs();
  const server = createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0]!;
    const work = isApiPath(path) ? serveApi(req, res, options.handlers, limiter, timeoutMs) : Promise.resolve(serveStatic(req, res, site));
    work.catch(() => {
      if (!res.headersSent) send(res, 500, { 'content-type': 'text/plain; charset=utf-8' }, 'Internal Server Error');
    });
  });
  server.keepAliveTimeout = 65_000;
  // Node counts an idle keep-alive connection as one waiting for its next request's headers, and
  // closes it at headersTimeout (60 s by default) though it told the client `timeout=65`: a client
  // reusing it at that moment meets a closed socket (an e2e fetch did, on a busy machine). Longer
  // than the keep-alive, it never closes a connection the client may still reuse.
  server.headersTimeout = server.keepAliveTimeout + 1_000;
  // Loopback unless told otherwise (HOST): a local service with demo accounts is not for the network.
  const host = options.host ?? (process.env.HOST || '127.0.0.1');
  await new Promise<void>((done, fail) => {
    server.once('error', fail);
    server.listen(options.port, host, () => done());
  });
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : options.port;
  return {
    url: `http://localhost:${port}`,
    port,
    server,
    close: () =>
      new Promise<void>((done) => {
        server.closeAllConnections();
        server.close(() => done());
      }),
  };
}
