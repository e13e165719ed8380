/** Calls a family's real handler in-process with an API Gateway v2 event, the way API Gateway would. */
import { familyForPath, type Family } from '../../shared/http/families';
import type { LambdaHandler } from '../../shared/http/handler';
import { fromResult, toEvent } from '../../local/api-gateway-event';
import { invokeLambda } from '../../local/lambda-invoke';
import { loadHandlers } from '../../local/handlers';

export interface TestResponse {
  status: number;
  headers: Record<string, string>;
  /** `Set-Cookie` values. */
  cookies: string[];
  text: string;
  json: any;
}

export interface CallOptions {
  headers?: Record<string, string>;
  /** An object is sent as JSON; a string or Buffer as is. */
  body?: unknown;
  token?: string;
  /** Handlers built for the test (e.g. on a set of stores of its own); the service's own by default. */
  handlers?: Record<Family, LambdaHandler>;
  /** The function's time limit for this call (the deadline tests); far above any test's needs by default. */
  timeoutMs?: number;
  /** The address the request comes from (API Gateway's `sourceIp`); 127.0.0.1 by default. */
  sourceIp?: string;
}

let handlers: Record<Family, LambdaHandler> | undefined;

/**
 * The time an in-process call may take before the handler answers 503 `timeout`. Far above API
 * Gateway's 29 s: the budget has its own tests (test/unit/http/handler.test.ts), and a busy machine
 * must not turn a slow answer of a test about something else into a 503.
 */
const TEST_BUDGET_MS = 300_000;

export async function call(method: string, url: string, options: CallOptions = {}): Promise<TestResponse> {
  const families = options.handlers ?? (handlers ??= await loadHandlers());
  const headers: Record<string, string> = { host: 'localhost:8000', ...options.headers };
  let body: string | Buffer | undefined;
  if (typeof options.body === 'string' || Buffer.isBuffer(options.body)) body = options.body;
  else if (options.body !== undefined) {
    body = JSON.stringify(options.body);
    headers['content-type'] ??= 'application/fhir+json';
  }
  if (options.token) headers['authorization'] = `Bearer ${options.token}`;
  const path = url.split('?')[0]!;
  const event = toEvent({ method, url, headers, ...(body !== undefined ? { body } : {}), ...(options.sourceIp ? { sourceIp: options.sourceIp } : {}) });
  const result = fromResult(await invokeLambda(families[familyForPath(path)], event, 'test', options.timeoutMs ?? TEST_BUDGET_MS));
  const text = result.body.toString('utf8');
  let json: unknown;
  try {
    json = text ? JSON.parse(text) : undefined;
  } catch {
    json = undefined;
  }
  return { status: result.status, headers: result.headers, cookies: result.cookies, text, json };
}
