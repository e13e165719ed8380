/**
 * Builds an endpoint family's Lambda handler: middy with the shared middlewares around a router.
 * Route handlers receive a parsed HttpRequest (with its caller, on routes that need one) and
 * return an HttpResponse; they never see the event.
 */
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import { logMetrics } from '@aws-lambda-powertools/metrics/middleware';
import { captureLambdaHandler } from '@aws-lambda-powertools/tracer/middleware';
import middy from '@middy/core';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Context } from 'aws-lambda';
import { config } from '../config';
import { deadlineOf, EARLY_ANSWER_MS } from './deadline';
import { dispatch } from './dispatch';
import { methodNotAllowed, notFound, unsupportedMediaType } from './errors';
import { bodyLimit } from './middleware/body-limit';
import { bodyParser } from './middleware/body-parser';
import { errorRenderer } from './middleware/error-renderer';
import { contextOf, requestContext } from './middleware/request-context';
import { siteUrlFromParameter } from './middleware/site-url';
import { FORM_MEDIA, JSON_MEDIA, lowerCaseHeaders, parseCookies, requestOrigin, type Authenticator, type CallerNeeds, type HttpRequest } from './request';
import { toLambdaResult } from './response';
import { Router, type Route } from './router';
import { loggerFor } from '../telemetry/logger';
import { metricsFor } from '../telemetry/metrics';
import { processTracer } from '../telemetry/tracer';

export type LambdaHandler = (event: APIGatewayProxyEventV2, context: Context) => Promise<APIGatewayProxyStructuredResultV2>;

export interface FamilyDefinition {
  family: string;
  routes: readonly Route[];
  /** Finds the callers of routes that need one (shared/auth's `authenticator`; platform code does not import it). */
  authenticator: Authenticator;
  /** What every caller of the family's routes must hold beyond a valid token (the management API: no backend services; `/mcp`: a token issued for it). */
  needs?: CallerNeeds;
  /** Extra words for a 405 on a path, e.g. where the resource can be written instead. */
  methodHint?: (method: string, path: string) => string | undefined;
}

const BODY_METHODS = new Set(['POST', 'PUT', 'PATCH']);

export function createHandler(definition: FamilyDefinition): LambdaHandler {
  const router = new Router(definition.routes);
  const log = loggerFor(definition.family);
  const metrics = metricsFor(definition.family);
  const tracer = processTracer();

  const base = async (event: APIGatewayProxyEventV2 & { rawBody?: string }, context: Context) => {
    const ctx = contextOf(event);
    const method = event.requestContext.http.method.toUpperCase();
    const path = event.rawPath || '/';
    const match = router.match(method, path);
    if (match.kind === 'not-found') throw notFound(`No route for ${method} ${path}.`);
    if (match.kind === 'method-not-allowed') {
      throw methodNotAllowed(method, path, match.allowed, definition.methodHint?.(method, path));
    }
    ctx.matched = { method, route: match.route.path, params: match.params };
    tracer.putAnnotation('family', definition.family);
    tracer.putAnnotation('route', `${method} ${match.route.path}`);
    const headers = lowerCaseHeaders(event.headers);
    const contentType = headers['content-type'] ?? '';
    const hasBody = event.rawBody !== undefined;
    if (hasBody && BODY_METHODS.has(method) && !JSON_MEDIA.test(contentType) && !FORM_MEDIA.test(contentType)) {
      throw unsupportedMediaType(
        `Content-Type '${contentType || '(none)'}' is not accepted; send application/json or application/fhir+json.`,
      );
    }
    const req: HttpRequest = {
      method,
      path,
      params: match.params,
      query: new URLSearchParams(event.rawQueryString ?? ''),
      headers,
      cookies: parseCookies(event.cookies),
      body: hasBody ? event.body : undefined,
      rawBody: event.rawBody,
      isJson: JSON_MEDIA.test(contentType),
      isForm: FORM_MEDIA.test(contentType),
      requestId: ctx.requestId,
      sourceIp: event.requestContext.http.sourceIp,
      origin: requestOrigin(event.requestContext.domainName, config().siteUrl),
      log: ctx.log,
      meter: ctx.meter,
      audit: ctx.audit,
      deadline: deadlineOf(context),
    };
    return toLambdaResult(await dispatch(match.route, req, definition));
  };

  // Answers made before the route is reached (413, 415, malformed JSON, 405) carry its CORS headers too.
  const routeHeaders = (event: APIGatewayProxyEventV2) =>
    router.headersFor(event.requestContext.http.method.toUpperCase(), event.rawPath || '/', { headers: lowerCaseHeaders(event.headers) });

  // A second before Lambda's own limit: time to render the 503 and write the request's log and metric lines.
  return middy<APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2>(base, { timeoutEarlyInMillis: EARLY_ANSWER_MS })
    .use(injectLambdaContext(log, { resetKeys: true }))
    // Never the response: its body is patient data, and traces are not where patient data goes.
    .use(captureLambdaHandler(tracer, { captureResponse: false }))
    .use(logMetrics(metrics, { captureColdStartMetric: true }))
    .use(requestContext(log, metrics))
    .use(siteUrlFromParameter())
    .use(bodyLimit(() => config().maxBodyBytes))
    .use(bodyParser(() => config().maxJsonDepth))
    .use(errorRenderer(routeHeaders)) as unknown as LambdaHandler;
}
