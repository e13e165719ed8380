/**
 * Turns a plain HTTP request into the API Gateway HTTP API payload v2 event a Lambda receives, and
 * a Lambda's result back into an HTTP response by API Gateway's v2 rules. Used by the local
 * gateway, `npm run invoke` and the tests.
 */
import type { APIGatewayProxyEventV2, APIGatewayProxyResultV2, Context } from 'aws-lambda';
import { randomUUID } from 'node:crypto';
import { selectGatewayRoute } from '../shared/http/families';
import { FUNCTION_TIMEOUT_MS } from '../shared/http/deadline';

export interface PlainRequest {
  method: string;
  /** Path and query, e.g. `/FHIR/R5/Patient?name=a`. */
  url: string;
  headers: Record<string, string | string[] | undefined>;
  body?: Buffer | string;
  sourceIp?: string;
}

export interface PlainResponse {
  status: number;
  headers: Record<string, string>;
  cookies: string[];
  body: Buffer;
}

/** Media types API Gateway passes as text; any other body arrives Base64-encoded. */
const TEXT_MEDIA = /^(text\/|application\/(json|x-www-form-urlencoded|xml|javascript)\b)/i;

export function toEvent(req: PlainRequest): APIGatewayProxyEventV2 {
  const [rawPath = '/', rawQueryString = ''] = splitOnce(req.url, '?');
  const headers: Record<string, string> = {};
  for (const [k, v] of Object.entries(req.headers)) {
    if (v === undefined) continue;
    headers[k.toLowerCase()] = Array.isArray(v) ? v.join(',') : v;
  }
  const cookies = headers['cookie'] ? headers['cookie'].split(/;\s*/).filter(Boolean) : undefined;
  delete headers['cookie'];
  // Query names are client text: a null-prototype object takes `constructor` and `__proto__` as plain keys.
  const query: Record<string, string> = Object.create(null);
  for (const [k, v] of new URLSearchParams(rawQueryString)) query[k] = Object.hasOwn(query, k) ? `${query[k]},${v}` : v;
  const selected = selectGatewayRoute(rawPath);
  const routeKey = selected ? `ANY ${selected.route.path}` : '$default';
  const now = new Date();
  const body = req.body === undefined ? undefined : Buffer.isBuffer(req.body) ? req.body : Buffer.from(req.body);
  const isText = TEXT_MEDIA.test(headers['content-type'] ?? '');
  const event: APIGatewayProxyEventV2 = {
    version: '2.0',
    routeKey,
    rawPath,
    rawQueryString,
    headers,
    requestContext: {
      accountId: '000000000000',
      apiId: 'local',
      domainName: headers['host'] ?? 'localhost',
      domainPrefix: (headers['host'] ?? 'localhost').split('.')[0]!,
      http: {
        method: req.method.toUpperCase(),
        path: rawPath,
        protocol: 'HTTP/1.1',
        sourceIp: req.sourceIp ?? '127.0.0.1',
        userAgent: headers['user-agent'] ?? '',
      },
      requestId: randomUUID(),
      routeKey,
      stage: '$default',
      time: now.toUTCString(),
      timeEpoch: now.getTime(),
    },
    isBase64Encoded: false,
  };
  if (cookies) event.cookies = cookies;
  if (Object.keys(query).length > 0) event.queryStringParameters = query;
  if (selected?.proxy !== undefined) event.pathParameters = { proxy: selected.proxy };
  if (body !== undefined && body.length > 0) {
    event.body = isText ? body.toString('utf8') : body.toString('base64');
    event.isBase64Encoded = !isText;
  }
  return event;
}

function splitOnce(s: string, sep: string): [string, string] {
  const i = s.indexOf(sep);
  return i < 0 ? [s, ''] : [s.slice(0, i), s.slice(i + 1)];
}

/** API Gateway's payload v2 response rules, including the "plain object means 200 JSON" one. */
export function fromResult(result: APIGatewayProxyResultV2): PlainResponse {
  if (typeof result === 'string' || result === null || typeof result !== 'object' || !('statusCode' in result)) {
    const body = typeof result === 'string' ? result : JSON.stringify(result);
    return { status: 200, headers: { 'content-type': 'application/json' }, cookies: [], body: Buffer.from(body ?? '') };
  }
  const headers: Record<string, string> = {};
  for (const [k, v] of Object.entries(result.headers ?? {})) headers[k.toLowerCase()] = String(v);
  const raw = result.body ?? '';
  const body = result.isBase64Encoded ? Buffer.from(raw, 'base64') : Buffer.from(raw, 'utf8');
  return { status: result.statusCode ?? 200, headers, cookies: result.cookies ?? [], body };
}

export function lambdaContext(functionName: string, timeoutMs = FUNCTION_TIMEOUT_MS): Context {
  const deadline = Date.now() + timeoutMs;
  return {
    callbackWaitsForEmptyEventLoop: false,
    functionName,
    functionVersion: '$LATEST',
    invokedFunctionArn: `arn:aws:lambda:local:000000000000:function:${functionName}`,
    memoryLimitInMB: '1024',
    awsRequestId: randomUUID(),
    logGroupName: `/aws/lambda/${functionName}`,
    logStreamName: 'local',
    getRemainingTimeInMillis: () => Math.max(0, deadline - Date.now()),
    done: () => undefined,
    fail: () => undefined,
    succeed: () => undefined,
  };
}
