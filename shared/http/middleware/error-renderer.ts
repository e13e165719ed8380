/**
 * The one place errors become responses. Domain errors carry their status; errors from middy's
 * parsers are translated; anything else is logged with its stack and answered as a 500 that
 * reveals nothing internal.
 */
import type { MiddlewareObj } from '@middy/core';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { operationOutcome } from '../../fhir/outcome';
import { badRequest, HttpError, isHttpError, unsupportedMediaType } from '../errors';
import { RETRY_AFTER_SECONDS } from '../deadline';
import { dialectOf, FHIR_BASES, IMPORT_BASE, type Dialect } from '../families';
import { APP_JSON, FHIR_JSON, toLambdaResult, type HttpResponse } from '../response';
import { busyAs503 } from '../../store/busy';
import { contextOf } from './request-context';

interface MiddyHttpError extends Error {
  statusCode: number;
  cause?: { package?: string; message?: string; data?: unknown };
}

function isMiddyHttpError(e: unknown): e is MiddyHttpError {
  return e instanceof Error && typeof (e as MiddyHttpError).statusCode === 'number';
}

/**
 * A request that ran out of the function's time: stopped by middy just before Lambda would stop
 * it, so the client hears a 503 it may retry instead of a gateway error. Batches stop starting
 * entries before this (`../deadline.ts`), so it is the last resort; work already sent to the stores
 * may have been applied, and what a retry does then depends on the path.
 */
export function outOfTime(path: string): HttpError {
  const stopped = 'The request took longer than the service allows and was stopped; part of it may have been applied.';
  const retry = FHIR_BASES.some((base) => path === base || path === `${base}/`)
    ? 'Send the batch again as it is: readings already stored are answered, not stored twice.'
    : path === IMPORT_BASE || path.startsWith(`${IMPORT_BASE}/`)
      ? 'Resources with an id are replaced when sent again; one without an id would be stored a second time, so search for it (by _source) first.'
      : 'Check what was applied before sending it again.';
  return new HttpError(503, `${stopped} ${retry}`, 'timeout', { headers: { 'Retry-After': String(RETRY_AFTER_SECONDS) } });
}

/** Turns any thrown value into an HttpError; `undefined` means an unexpected failure. */
export function toHttpError(e: unknown, path = '/'): HttpError | undefined {
  if (isHttpError(e)) return e;
  const busy = busyAs503(e);
  if (isHttpError(busy)) return busy;
  if (e instanceof Error && e.name === 'TimeoutError' && (e.cause as { package?: string } | undefined)?.package === '@middy/core') return outOfTime(path);
  if (isMiddyHttpError(e)) {
    const pkg = e.cause?.package ?? '';
    if (pkg.includes('json-body-parser') || pkg.includes('urlencode-body-parser')) {
      if (e.cause?.message !== undefined) return badRequest(`The request body is not valid JSON: ${e.cause.message}`, 'structure');
      if (e.message === 'Unsupported Media Type') return unsupportedMediaType('Unsupported content type.');
      return badRequest('The request body is malformed.', 'structure');
    }
    if (e.statusCode >= 400 && e.statusCode < 500) return new HttpError(e.statusCode, e.message);
  }
  return undefined;
}

export function renderError(error: HttpError, dialect: Dialect): HttpResponse {
  const headers = { ...error.headers };
  switch (dialect) {
    case 'fhir':
      return { status: error.status, headers: { 'Content-Type': FHIR_JSON, ...headers }, body: operationOutcome(error.issues) };
    case 'api': {
      const body = error.apiBody ?? error.fields ?? { detail: error.message };
      return { status: error.status, headers: { 'Content-Type': APP_JSON, ...headers }, body };
    }
    case 'oauth':
      return {
        status: error.status,
        headers: { 'Content-Type': APP_JSON, 'Cache-Control': 'no-store', ...headers },
        body: { error: error.oauthError ?? oauthCodeFor(error.status), error_description: error.message },
      };
    default:
      return { status: error.status, headers: { 'Content-Type': APP_JSON, ...headers }, body: { detail: error.message } };
  }
}

function oauthCodeFor(status: number): string {
  if (status === 401) return 'invalid_client';
  if (status === 403) return 'access_denied';
  if (status >= 500) return 'server_error';
  return 'invalid_request';
}

/**
 * Renders the error of a request. `routeHeaders` answers the headers of the route the request
 * names (its CORS): errors thrown before the route is reached (413, 415, malformed JSON, 405) carry
 * them too, or a browser hides them from the page; the route's own errors have them already.
 */
export function errorRenderer(routeHeaders?: (event: APIGatewayProxyEventV2) => Readonly<Record<string, string>> | undefined): MiddlewareObj<APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2> {
  return {
    onError: (request) => {
      const ctx = contextOf(request.event);
      const known = toHttpError(request.error, request.event.rawPath ?? '/');
      const error =
        known ?? new HttpError(500, `An unexpected error occurred (request ${ctx.requestId}).`, 'exception');
      if (known) ctx.log.info('request refused', { status: known.status, error: known.message });
      else ctx.log.error('unexpected error', request.error instanceof Error ? request.error : String(request.error));
      const rendered = renderError(error, dialectOf(request.event.rawPath ?? '/'));
      const headers = routeHeaders?.(request.event);
      request.response = toLambdaResult(headers ? { ...rendered, headers: { ...rendered.headers, ...headers } } : rendered);
    },
  };
}
