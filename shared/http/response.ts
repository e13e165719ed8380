/** What a route handler returns; the handler wrapper turns it into an API Gateway v2 result. */
import type { APIGatewayProxyStructuredResultV2 } from 'aws-lambda';

export interface HttpResponse {
  status: number;
  headers?: Record<string, string>;
  /** A JSON value (serialised here) or text already in its final form. */
  body?: unknown;
  /** `Set-Cookie` values (API Gateway v2 sends each as its own header). */
  cookies?: string[];
}

export const FHIR_JSON = 'application/fhir+json; charset=utf-8';
export const APP_JSON = 'application/json; charset=utf-8';

export function json(status: number, body: unknown, headers: Record<string, string> = {}): HttpResponse {
  return { status, body, headers: { 'Content-Type': APP_JSON, ...headers } };
}

export function fhirJson(status: number, body: unknown, headers: Record<string, string> = {}): HttpResponse {
  return { status, body, headers: { 'Content-Type': FHIR_JSON, ...headers } };
}

export function noContent(headers: Record<string, string> = {}): HttpResponse {
  return { status: 204, headers };
}

export function toLambdaResult(res: HttpResponse): APIGatewayProxyStructuredResultV2 {
  const headers: Record<string, string> = { ...res.headers };
  let body: string | undefined;
  if (res.body === undefined || res.body === null) body = undefined;
  else if (typeof res.body === 'string') body = res.body;
  else {
    body = JSON.stringify(res.body);
    if (!Object.keys(headers).some((h) => h.toLowerCase() === 'content-type')) headers['Content-Type'] = APP_JSON;
  }
  const result: APIGatewayProxyStructuredResultV2 = { statusCode: res.status, headers };
  if (body !== undefined) result.body = body;
  if (res.cookies && res.cookies.length > 0) result.cookies = [...res.cookies];
  return result;
}
